#include "protocol/record_batch.h"

#include <gtest/gtest.h>

#include "storage/crc32c.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::protocol {
namespace {

using testutil::RecordBatchBuilder;

std::vector<std::byte> three_records(Compression c = Compression::kNone) {
  return RecordBatchBuilder().compression(c).add("k0", "v0").add(std::nullopt, "v1").add("k2", std::nullopt).build();
}

void put_i32(std::vector<std::byte>& b, size_t at, int32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::byte>(static_cast<uint32_t>(v) >> (24 - 8 * i));
}
void put_i16(std::vector<std::byte>& b, size_t at, int16_t v) {
  b[at] = static_cast<std::byte>(static_cast<uint16_t>(v) >> 8);
  b[at + 1] = static_cast<std::byte>(v);
}

BatchCheck parse(const std::vector<std::byte>& b) {
  RecordBatchView v;
  return RecordBatchView::parse(b, &v);
}

// The header rules of Kafka's log validator on a framed batch.
BatchCheck produced(const std::vector<std::byte>& b) {
  RecordBatchView v;
  if (const BatchCheck c = RecordBatchView::parse(b, &v); c != BatchCheck::kOk) return c;
  return v.check_produced();
}

TEST(RecordBatchTest, AccessorsReadEveryHeaderField) {
  auto bytes = RecordBatchBuilder()
                   .compression(Compression::kGzip)
                   .base_offset(1234)
                   .base_timestamp(1600000000000)
                   .producer(77, 3, 41)
                   .attributes_extra(kTransactionalBit)
                   .add(testutil::TestRecord{"a", "b", {}, 0})
                   .add(testutil::TestRecord{"c", "d", {}, 25})
                   .build();
  set_partition_leader_epoch(bytes, 9);
  RecordBatchView v;
  ASSERT_EQ(RecordBatchView::parse(bytes, &v), BatchCheck::kOk);
  EXPECT_EQ(v.size(), bytes.size());
  EXPECT_EQ(v.base_offset(), 1234);
  EXPECT_EQ(v.batch_length(), static_cast<int32_t>(bytes.size() - 12));
  EXPECT_EQ(v.partition_leader_epoch(), 9);
  EXPECT_EQ(v.magic(), 2);
  EXPECT_EQ(v.compression(), Compression::kGzip);
  EXPECT_EQ(v.timestamp_type(), TimestampType::kCreateTime);
  EXPECT_TRUE(v.is_transactional());
  EXPECT_FALSE(v.is_control());
  EXPECT_EQ(v.last_offset_delta(), 1);
  EXPECT_EQ(v.last_offset(), 1235);
  EXPECT_EQ(v.base_timestamp(), 1600000000000);
  EXPECT_EQ(v.max_timestamp(), 1600000000025);
  EXPECT_EQ(v.producer_id(), 77);
  EXPECT_EQ(v.producer_epoch(), 3);
  EXPECT_EQ(v.base_sequence(), 41);
  EXPECT_EQ(v.records_count(), 2);
  EXPECT_EQ(v.records_section().data(), bytes.data() + 61);
  EXPECT_TRUE(storage::batch_crc_ok(v.bytes()));
}

TEST(RecordBatchTest, ACorruptedByteBreaksTheCrcTheBrokerChecks) {
  auto bytes = three_records();
  bytes[bytes.size() - 3] ^= std::byte{0x40};
  RecordBatchView v;
  ASSERT_EQ(RecordBatchView::parse(bytes, &v), BatchCheck::kOk);  // framing alone cannot tell
  EXPECT_FALSE(storage::batch_crc_ok(v.bytes()));
}

TEST(RecordBatchTest, EveryTruncationIsRejected) {
  const auto bytes = three_records();
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::byte> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    const BatchCheck c = parse(prefix);
    EXPECT_EQ(c, n <= 16 ? BatchCheck::kTruncatedHeader : BatchCheck::kLengthBeyondData) << n;
    EXPECT_EQ(kafka_error(c), ErrorCode::kCorruptMessage);
  }
}

TEST(RecordBatchTest, OldMagicIsAnInvalidRecordAndUnknownMagicIsCorrupt) {
  auto bytes = three_records();
  for (int magic : {0, 1}) {
    bytes[16] = static_cast<std::byte>(magic);
    EXPECT_EQ(parse(bytes), BatchCheck::kOldMagic);
  }
  EXPECT_EQ(kafka_error(BatchCheck::kOldMagic), ErrorCode::kInvalidRecord);
  for (int magic : {3, 0x7f, 0xff}) {
    bytes[16] = static_cast<std::byte>(magic);
    EXPECT_EQ(parse(bytes), BatchCheck::kUnknownMagic);
  }
  EXPECT_EQ(kafka_error(BatchCheck::kUnknownMagic), ErrorCode::kCorruptMessage);
}

TEST(RecordBatchTest, LengthMustCoverTheHeaderAndFitTheBytes) {
  auto bytes = three_records();
  for (int32_t length : {-1, INT32_MIN, 0, 48}) {
    put_i32(bytes, wire::batch::kLength, length);
    EXPECT_EQ(parse(bytes), BatchCheck::kLengthBelowHeader) << length;
  }
  // Zeroed bytes (magic 0, Length 0) are corrupt framing, not an old-format message.
  bytes[16] = std::byte{0};
  put_i32(bytes, wire::batch::kLength, 0);
  EXPECT_EQ(parse(bytes), BatchCheck::kLengthBelowHeader);
  bytes[16] = std::byte{2};
  put_i32(bytes, wire::batch::kLength, static_cast<int32_t>(bytes.size() - 11));
  EXPECT_EQ(parse(bytes), BatchCheck::kLengthBeyondData);
  put_i32(bytes, wire::batch::kLength, INT32_MAX);
  EXPECT_EQ(parse(bytes), BatchCheck::kLengthBeyondData);
}

TEST(RecordBatchTest, ANegativeRecordCountIsRefusedAsKafkaDoes) {
  auto bytes = three_records();
  put_i32(bytes, wire::batch::kRecordsCount, -1);
  EXPECT_EQ(parse(bytes), BatchCheck::kOk);  // framing only: the count is checked against the records
  EXPECT_EQ(produced(bytes), BatchCheck::kOffsetCountMismatch);
  EXPECT_EQ(kafka_error(BatchCheck::kOffsetCountMismatch), ErrorCode::kInvalidRecord);
}

TEST(RecordBatchTest, CompressionIdsAboveFourAreCorrupt) {
  auto bytes = three_records();
  for (int16_t id = 0; id <= 7; ++id) {
    put_i16(bytes, wire::batch::kAttributes, id);
    EXPECT_EQ(parse(bytes), id <= 4 ? BatchCheck::kOk : BatchCheck::kUnknownCompression) << id;
  }
  EXPECT_EQ(kafka_error(BatchCheck::kUnknownCompression), ErrorCode::kCorruptMessage);
}

TEST(RecordBatchTest, ProduceRulesFollowKafka) {
  RecordBatchView v;
  const auto zstd = three_records(Compression::kZstd);
  EXPECT_EQ(check_produce_records(zstd, 6, &v), BatchCheck::kZstdBeforeProduceV7);
  EXPECT_EQ(kafka_error(BatchCheck::kZstdBeforeProduceV7), ErrorCode::kUnsupportedCompressionType);
  EXPECT_EQ(check_produce_records(zstd, 7, &v), BatchCheck::kOk);
  EXPECT_EQ(check_produce_records(three_records(Compression::kLz4), 3, &v), BatchCheck::kOk);

  // Kafka's log appender: a client's batch starts at offset 0.
  const auto based = RecordBatchBuilder().base_offset(7).add("k", "v").build();
  EXPECT_EQ(check_produce_records(based, 9, &v), BatchCheck::kNonZeroBaseOffset);
  EXPECT_EQ(kafka_error(BatchCheck::kNonZeroBaseOffset), ErrorCode::kInvalidRecord);

  // The log validator's header rules come after: check_produced().
  auto log_append = RecordBatchBuilder().attributes_extra(kTimestampTypeBit).add("k", "v").build();
  EXPECT_EQ(check_produce_records(log_append, 9, &v), BatchCheck::kOk);
  EXPECT_EQ(produced(log_append), BatchCheck::kLogAppendTimeFromClient);
  EXPECT_EQ(kafka_error(BatchCheck::kLogAppendTimeFromClient), ErrorCode::kInvalidTimestamp);

  auto control = RecordBatchBuilder().attributes_extra(kControlBit).add("k", "v").build();
  EXPECT_EQ(produced(control), BatchCheck::kControlBatchFromClient);

  auto no_sequence = RecordBatchBuilder().producer(5, 0, -1).add("k", "v").build();
  EXPECT_EQ(produced(no_sequence), BatchCheck::kMissingSequence);
  EXPECT_EQ(kafka_error(BatchCheck::kMissingSequence), ErrorCode::kInvalidRecord);
}

TEST(RecordBatchTest, ProducedCountMustMatchTheOffsetRange) {
  auto bytes = three_records();
  put_i32(bytes, wire::batch::kLastOffsetDelta, 5);
  EXPECT_EQ(produced(bytes), BatchCheck::kOffsetCountMismatch);
  auto empty = RecordBatchBuilder().build();  // zero records, LastOffsetDelta -1
  EXPECT_EQ(produced(empty), BatchCheck::kOffsetCountMismatch);
  EXPECT_EQ(kafka_error(BatchCheck::kOffsetCountMismatch), ErrorCode::kInvalidRecord);
}

TEST(RecordBatchTest, AProducePartitionHoldsExactlyOneBatch) {
  RecordBatchView v;
  EXPECT_EQ(check_produce_records({}, 9, &v), BatchCheck::kNoBatch);
  auto two = three_records();
  const auto second = three_records(Compression::kSnappy);
  two.insert(two.end(), second.begin(), second.end());
  EXPECT_EQ(check_produce_records(two, 9, &v), BatchCheck::kMoreThanOneBatch);
  EXPECT_EQ(kafka_error(BatchCheck::kMoreThanOneBatch), ErrorCode::kInvalidRecord);
}

TEST(RecordBatchTest, SplitterFindsEachBatchAndStopsAtATornOne) {
  const auto a = three_records();
  const auto b = three_records(Compression::kGzip);
  std::vector<std::byte> blob(a);
  blob.insert(blob.end(), b.begin(), b.end());
  std::vector<RecordBatchView> out;
  ASSERT_EQ(split_batches(blob, out), BatchCheck::kOk);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].size(), a.size());
  EXPECT_EQ(out[1].bytes().data(), blob.data() + a.size());
  EXPECT_EQ(out[1].compression(), Compression::kGzip);

  blob.resize(blob.size() - 1);
  EXPECT_EQ(split_batches(blob, out), BatchCheck::kLengthBeyondData);
  EXPECT_EQ(out.size(), 1u);
}

TEST(RecordBatchTest, SettingTheBaseOffsetKeepsTheCrcValid) {
  auto bytes = three_records(Compression::kLz4);
  set_base_offset(bytes, 987654321);
  set_partition_leader_epoch(bytes, 4);
  RecordBatchView v;
  ASSERT_EQ(RecordBatchView::parse(bytes, &v), BatchCheck::kOk);
  EXPECT_EQ(v.base_offset(), 987654321);
  EXPECT_EQ(v.last_offset(), 987654323);
  EXPECT_TRUE(storage::batch_crc_ok(v.bytes()));
}

TEST(RecordBatchTest, MaxTimestampIsRewrittenWithKafkasAttributeBits) {
  auto bytes = three_records(Compression::kLz4);
  put_i16(bytes, wire::batch::kAttributes, static_cast<int16_t>(0x0180 | kTransactionalBit | 3));  // bits 7, 8 unknown
  set_max_timestamp(bytes, 1700000000002);
  RecordBatchView v;
  ASSERT_EQ(RecordBatchView::parse(bytes, &v), BatchCheck::kOk);
  EXPECT_EQ(v.max_timestamp(), 1700000000002);
  EXPECT_EQ(v.attributes(), kTransactionalBit | 3);  // lz4, transactional; the rest cleared
}

TEST(RecordBatchTest, LogAppendTimeNeedsANewCrc) {
  auto bytes = three_records();
  set_log_append_time(bytes, 1700000012345);
  RecordBatchView v;
  ASSERT_EQ(RecordBatchView::parse(bytes, &v), BatchCheck::kOk);
  EXPECT_EQ(v.timestamp_type(), TimestampType::kLogAppendTime);
  EXPECT_EQ(v.max_timestamp(), 1700000012345);
  EXPECT_EQ(v.compression(), Compression::kNone);
  EXPECT_FALSE(storage::batch_crc_ok(v.bytes()));
  storage::seal_batch_crc(bytes);
  EXPECT_TRUE(storage::batch_crc_ok(v.bytes()));
}

}  // namespace
}  // namespace rokka::protocol
