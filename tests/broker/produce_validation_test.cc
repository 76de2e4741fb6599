// One bad producer must not poison a partition (issue 25): every malformed batch a
// hostile client can send over the wire is refused with Kafka's error code, nothing
// of it is stored, and librdkafka reads back the good records written before and
// after it. Plus the per-record refusals (record_errors), timestamps and the
// MaxTimestamp Kafka derives from the records.
#include <gtest/gtest.h>
#include <zlib.h>

#include <memory>
#include <string>

#include "protocol/error_code.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/produce.h"
#include "protocol/record_batch.h"
#include "protocol/record_validator.h"
#include "storage/crc32c.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/compression_bombs.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/record_batch_builder.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::Compression;
using protocol::ErrorCode;
using testutil::RecordBatchBuilder;
using testutil::bytes_of;
using testutil::cat;
using testutil::good_record;
using testutil::raw_record;
using testutil::TestRecord;
using testutil::varint;
using testutil::WireClient;

constexpr int16_t kProduceVersion = 9;

struct ProduceAnswer {
  int16_t error = -999;
  int64_t base_offset = -2;
  std::optional<std::string> error_message;
  std::vector<protocol::ProduceResponse::BatchIndexAndErrorMessage> record_errors;
};

ProduceAnswer produce_raw(WireClient& c, std::string_view topic, const std::vector<std::byte>& records, int16_t v,
                          int32_t cid, std::optional<std::string_view> transactional_id = std::nullopt) {
  c.send(testutil::produce_request(topic, records, transactional_id), v, cid);
  auto r = c.receive<protocol::ProduceResponse>(v, cid);
  if (!r) return {};
  auto& out = r->responses.at(0).partition_responses.at(0);
  return {rokka::protocol::to_int(out.error_code), out.base_offset, out.error_message, out.record_errors};
}

int64_t high_watermark(WireClient& c, std::string_view topic, int32_t cid) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  t.partitions.push_back({0, -1, -1, 1});  // latest
  c.send(req, 5, cid);
  auto r = c.receive<protocol::ListOffsetsResponse>(5, cid);
  return r ? r->topics.at(0).partitions.at(0).offset : -2;
}

// One broker for the suite: each case works on its own topic.
class ProduceValidation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = std::make_unique<testutil::InProcessBroker>(testutil::InProcessBroker::Overrides{});
  }
  static void TearDownTestSuite() { broker_.reset(); }

  std::string bootstrap() const { return broker_->bootstrap(); }
  uint16_t port() const { return broker_->port(); }

  // librdkafka writes `value` (acks=all) to partition 0 of `topic`; its offset.
  int64_t write_good(const std::string& topic, const std::string& value) {
    testutil::TestProducer producer(bootstrap(), {{"acks", "all"}, {"linger.ms", "0"}});
    EXPECT_EQ(producer.produce(topic, 0, std::nullopt, value), RdKafka::ERR_NO_ERROR);
    auto& delivered = producer.flush();
    if (delivered.size() != 1 || delivered[0].error != RdKafka::ERR_NO_ERROR) return -1;
    return delivered[0].offset;
  }

  // The whole cycle: good-before, the bad batch refused with `expected` and not
  // stored, good-after, and librdkafka reading exactly the two good records.
  ProduceAnswer refused_and_partition_still_readable(const std::string& topic, const std::vector<std::byte>& bad,
                                                     ErrorCode expected, int16_t version = kProduceVersion,
                                                     std::optional<std::string_view> transactional_id = std::nullopt) {
    EXPECT_EQ(write_good(topic, "good-before"), 0);
    WireClient c(port());
    const ProduceAnswer answer = produce_raw(c, topic, bad, version, 1, transactional_id);
    EXPECT_EQ(answer.error, protocol::to_int(expected)) << (answer.error_message ? *answer.error_message : "");
    EXPECT_EQ(answer.base_offset, -1);
    EXPECT_EQ(high_watermark(c, topic, 2), 1) << "the refused batch was stored";
    EXPECT_EQ(write_good(topic, "good-after"), 1);
    const auto got = testutil::consume_assigned(bootstrap(), topic, {0}, 0, 2);
    EXPECT_EQ(got.size(), 2u);
    if (got.size() == 2) {
      EXPECT_EQ(got[0].value, "good-before");
      EXPECT_EQ(got[0].offset, 0);
      EXPECT_EQ(got[1].value, "good-after");
      EXPECT_EQ(got[1].offset, 1);
    }
    return answer;
  }

  static std::unique_ptr<testutil::InProcessBroker> broker_;
};
std::unique_ptr<testutil::InProcessBroker> ProduceValidation::broker_;

struct WireShape {
  const char* name;
  std::vector<std::byte> batch;
  ErrorCode expected;
};

std::vector<WireShape> wire_shapes() {
  const auto ten_byte_varint = bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
  auto plain = [](std::vector<std::byte> section, int32_t count, Compression c = Compression::kNone) {
    return RecordBatchBuilder().compression(c).raw_records(std::move(section), count).build();
  };
  const auto good_section = RecordBatchBuilder().add("k", "v").records_section();
  // LZ4F's default frame links its blocks (beyond one block): the Java client cannot read it.
  const auto long_section = RecordBatchBuilder().add("k", std::string(200000, 'x')).records_section();
  std::vector<std::byte> linked(LZ4F_compressFrameBound(long_section.size(), nullptr));
  linked.resize(LZ4F_compressFrame(linked.data(), linked.size(), long_section.data(), long_section.size(), nullptr));
  auto as_is = [](Compression c, std::vector<std::byte> section, int32_t count = 1) {
    return RecordBatchBuilder().compression(c).uncompressed_section().raw_records(std::move(section), count).build();
  };
  auto bad_crc = plain(cat({good_record(0), bytes_of({7, 7})}), 1);
  bad_crc.back() ^= std::byte{0x10};
  return {
      {"forty_bytes_of_ff", plain(std::vector<std::byte>(40, std::byte{0xff}), 1), ErrorCode::kInvalidRecord},
      {"record_length_one_million", plain(raw_record(0, {}, varint(1000000)), 1), ErrorCode::kInvalidRecord},
      {"record_length_minus_five", plain(raw_record(0, {}, varint(-5)), 1), ErrorCode::kInvalidRecord},
      {"key_length_2_pow_30", plain(raw_record(0, cat({varint(1 << 30), bytes_of({'k', 2, 'v', 0})})), 1),
       ErrorCode::kInvalidRecord},
      {"ten_byte_overlong_varint", plain(raw_record(0, {}, ten_byte_varint), 1), ErrorCode::kInvalidRecord},
      {"valid_record_and_two_stray_bytes", plain(cat({good_record(0), bytes_of({0, 0})}), 1),
       ErrorCode::kInvalidRecord},
      {"count_one_with_two_records", plain(cat({good_record(0), good_record(1)}), 1), ErrorCode::kInvalidRecord},
      {"count_two_with_one_record", plain(good_record(0), 2), ErrorCode::kInvalidRecord},
      {"offset_delta_out_of_sequence", plain(cat({good_record(0), good_record(3)}), 2), ErrorCode::kInvalidRecord},
      {"gzip_attribute_on_non_gzip_bytes", as_is(Compression::kGzip, good_section), ErrorCode::kInvalidRecord},
      {"snappy_attribute_on_non_snappy_bytes", as_is(Compression::kSnappy, std::vector<std::byte>(40, std::byte{0x41})),
       ErrorCode::kInvalidRecord},
      {"lz4_linked_blocks", as_is(Compression::kLz4, linked), ErrorCode::kInvalidRecord},
      {"zstd_count_one_with_two_records", plain(cat({good_record(0), good_record(1)}), 1, Compression::kZstd),
       ErrorCode::kInvalidRecord},
      // 960 KiB of zstd inflating to 30 GiB: zeros are no record (length 0) ...
      {"zstd_bomb_of_zeros", as_is(Compression::kZstd, testutil::zstd_rle_bomb({}, uint64_t{30} << 30)),
       ErrorCode::kInvalidRecord},
      // ... and a record announcing a 2 GiB value of them stops at the inflation bound.
      {"zstd_bomb_long_value",
       as_is(Compression::kZstd, testutil::zstd_rle_bomb(testutil::long_record_prefix(INT32_MAX - 64), uint64_t{30} << 30)),
       ErrorCode::kMessageTooLarge},
      {"base_offset_not_zero", RecordBatchBuilder().base_offset(42).add("k", "v").build(), ErrorCode::kInvalidRecord},
      // A CRC that does not match wins over the malformed records, as in Kafka.
      {"bad_crc_and_stray_bytes", bad_crc, ErrorCode::kCorruptMessage},
  };
}

class WireShapeTest : public ProduceValidation, public ::testing::WithParamInterface<WireShape> {};

TEST_P(WireShapeTest, IsRefusedNothingIsStoredAndThePartitionStaysReadable) {
  const WireShape& shape = GetParam();
  const ProduceAnswer answer = refused_and_partition_still_readable(std::string("shape-") + shape.name, shape.batch,
                                                                    shape.expected);
  EXPECT_TRUE(answer.error_message.has_value());
  EXPECT_TRUE(answer.record_errors.empty());  // structural refusals name no record (Kafka neither)
}

INSTANTIATE_TEST_SUITE_P(Issue25, WireShapeTest, ::testing::ValuesIn(wire_shapes()),
                         [](const auto& info) { return std::string(info.param.name); });

// The idempotent path: a refused batch is not a sequence the producer state takes.
TEST_F(ProduceValidation, IdempotentBatchWithMalformedRecordsIsRefused) {
  WireClient c(port());
  protocol::InitProducerIdRequest init;
  init.transaction_timeout_ms = 60000;
  c.send(init, 4, 1);
  auto id = c.receive<protocol::InitProducerIdResponse>(4, 1);
  ASSERT_TRUE(id);
  ASSERT_EQ(id->error_code, ErrorCode::kNone);
  const auto bad = RecordBatchBuilder()
                       .producer(id->producer_id, id->producer_epoch, 0)
                       .raw_records(cat({good_record(0), bytes_of({9})}), 1)
                       .build();
  refused_and_partition_still_readable("idempotent-bad", bad, ErrorCode::kInvalidRecord);
  // The same producer's sequence 0 is still free: a good batch with it is taken.
  const auto good = RecordBatchBuilder().producer(id->producer_id, id->producer_epoch, 0).add("k", "v").build();
  EXPECT_EQ(produce_raw(c, "idempotent-bad", good, kProduceVersion, 3).base_offset, 2);
}

// The transactional path: the records are validated before the transaction is
// consulted (this producer never added the partition), and refused.
TEST_F(ProduceValidation, TransactionalBatchWithMalformedRecordsIsRefused) {
  const auto bad = RecordBatchBuilder()
                       .producer(1000, 0, 0)
                       .attributes_extra(protocol::kTransactionalBit)
                       .compression(Compression::kLz4)
                       .raw_records(cat({good_record(0), good_record(7)}), 2)
                       .build();
  refused_and_partition_still_readable("transactional-bad", bad, ErrorCode::kInvalidRecord, kProduceVersion, "txn-a");
}

// Produce v0-v2 carry the old message format; the up-converted batch is validated
// like any other (here: a compacted topic and a message without a key).
std::vector<std::byte> legacy_magic1(std::optional<std::string_view> key, std::string_view value, int64_t timestamp) {
  std::vector<std::byte> body{std::byte{1}, std::byte{0}};  // magic 1, attributes
  auto put = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) body.push_back(static_cast<std::byte>(v >> (8 * i)));
  };
  put(static_cast<uint64_t>(timestamp), 8);
  put(key ? key->size() : 0xffffffffu, 4);
  if (key)
    for (char ch : *key) body.push_back(static_cast<std::byte>(ch));
  put(value.size(), 4);
  for (char ch : value) body.push_back(static_cast<std::byte>(ch));
  std::vector<std::byte> out(8, std::byte{0});
  const auto crc = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), body.size()));
  for (uint32_t v : {static_cast<uint32_t>(body.size() + 4), crc})
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

TEST_F(ProduceValidation, LegacyMessagesAreValidatedAfterUpConversion) {
  testutil::KafkaAdmin admin(bootstrap());
  ASSERT_EQ(admin.create_topic("legacy-compacted", 1, {{"cleanup.policy", "compact"}}), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(port());
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_EQ(produce_raw(c, "legacy-compacted", legacy_magic1("k", "v", now), 2, 1).base_offset, 0);
  EXPECT_EQ(produce_raw(c, "legacy-compacted", legacy_magic1(std::nullopt, "v", now), 2, 2).error,
            protocol::to_int(ErrorCode::kInvalidRecord));
  EXPECT_EQ(high_watermark(c, "legacy-compacted", 3), 1);
}

TEST_F(ProduceValidation, CompactedTopicsListEveryKeylessRecordInRecordErrors) {
  testutil::KafkaAdmin admin(bootstrap());
  ASSERT_EQ(admin.create_topic("compacted-keys", 1, {{"cleanup.policy", "compact"}}), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(port());
  for (Compression codec : {Compression::kNone, Compression::kZstd}) {
    const auto batch = RecordBatchBuilder().compression(codec).add("a", "1").add(std::nullopt, "2").add("c", "3")
                           .add(std::nullopt, "4").build();
    const ProduceAnswer v8 = produce_raw(c, "compacted-keys", batch, 8, 1);
    EXPECT_EQ(v8.error, protocol::to_int(ErrorCode::kInvalidRecord));
    ASSERT_EQ(v8.record_errors.size(), 2u);
    EXPECT_EQ(v8.record_errors[0].batch_index, 1);
    EXPECT_EQ(v8.record_errors[1].batch_index, 3);
    EXPECT_NE(v8.record_errors[0].batch_index_error_message.value_or("").find("no key"), std::string::npos);
    EXPECT_NE(v8.error_message.value_or("").find("2 of 4 records refused"), std::string::npos) << *v8.error_message;
    const ProduceAnswer v7 = produce_raw(c, "compacted-keys", batch, 7, 2);  // no record_errors before v8
    EXPECT_EQ(v7.error, protocol::to_int(ErrorCode::kInvalidRecord));
    EXPECT_TRUE(v7.record_errors.empty());
  }
  EXPECT_EQ(high_watermark(c, "compacted-keys", 3), 0);
  const auto keyed = RecordBatchBuilder().add("a", "1").add("b", "2").build();
  EXPECT_EQ(produce_raw(c, "compacted-keys", keyed, 9, 4).base_offset, 0);
}

TEST_F(ProduceValidation, TimestampsOutsideTheTopicsBoundsAreInvalidTimestamp) {
  testutil::KafkaAdmin admin(bootstrap());
  ASSERT_EQ(admin.create_topic("bounded-time", 1,
                               {{"message.timestamp.before.max.ms", "3600000"}, {"message.timestamp.after.max.ms", "60000"}}),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(port());
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const auto batch = RecordBatchBuilder()
                         .base_timestamp(now - 2 * 3600000)
                         .add(TestRecord{"old", "2 h ago", {}, 0})
                         .add(TestRecord{"now", "now", {}, 2 * 3600000})
                         .add(TestRecord{"future", "in 10 min", {}, 2 * 3600000 + 600000})
                         .build();
  const ProduceAnswer a = produce_raw(c, "bounded-time", batch, 9, 1);
  EXPECT_EQ(a.error, protocol::to_int(ErrorCode::kInvalidTimestamp));
  ASSERT_EQ(a.record_errors.size(), 2u);
  EXPECT_EQ(a.record_errors[0].batch_index, 0);
  EXPECT_EQ(a.record_errors[1].batch_index, 2);
  EXPECT_EQ(high_watermark(c, "bounded-time", 2), 0);
  // A topic without bounds takes the same batch (the broker defaults: Long.MAX_VALUE).
  EXPECT_EQ(write_good("unbounded-time", "first"), 0);
  EXPECT_EQ(produce_raw(c, "unbounded-time", batch, 9, 3).base_offset, 1);
  // The deprecated difference applies while before/after are at their defaults.
  ASSERT_EQ(admin.create_topic("difference-time", 1, {{"message.timestamp.difference.max.ms", "3600000"}}),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(produce_raw(c, "difference-time", batch, 9, 4).error, protocol::to_int(ErrorCode::kInvalidTimestamp));
}

TEST(ProduceValidationConfig, TheBrokerDefaultBoundsApplyToEveryTopic) {
  testutil::InProcessBroker b(testutil::InProcessBroker::Overrides{{"log.message.timestamp.after.max.ms", "1000"}});
  WireClient c(b.port());
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  testutil::TestProducer producer(b.bootstrap());
  producer.produce("defaults", 0, std::nullopt, std::string("first"));
  ASSERT_EQ(producer.flush().size(), 1u);
  const auto future = RecordBatchBuilder().base_timestamp(now + 3600000).add("k", "v").build();
  EXPECT_EQ(produce_raw(c, "defaults", future, 9, 1).error, protocol::to_int(ErrorCode::kInvalidTimestamp));
  const auto past = RecordBatchBuilder().base_timestamp(now - 3600000 * 24 * 365LL).add("k", "v").build();
  EXPECT_EQ(produce_raw(c, "defaults", past, 9, 2).error, 0);
}

// Kafka derives a CreateTime batch's MaxTimestamp from its records (time-based
// ListOffsets relies on it): a batch claiming otherwise is stored corrected, with a
// valid CRC, and librdkafka reads it.
TEST_F(ProduceValidation, MaxTimestampIsDerivedFromTheRecords) {
  EXPECT_EQ(write_good("max-ts", "first"), 0);
  WireClient c(port());
  const int64_t base = 1700000000000;
  for (Compression codec : {Compression::kNone, Compression::kGzip}) {
    const auto lying = RecordBatchBuilder()
                           .compression(codec)
                           .base_timestamp(base)
                           .max_timestamp(base - 1000)  // below its first record
                           .attributes_extra(0x0100)    // an attribute bit Kafka does not define
                           .add(TestRecord{"a", "1", {}, 50})
                           .add(TestRecord{"b", "2", {}, 20})
                           .build();
    ASSERT_EQ(produce_raw(c, "max-ts", lying, 9, 1).error, 0);
  }
  protocol::FetchRequest fetch;
  fetch.max_wait_ms = 0;
  fetch.max_bytes = 1 << 20;
  fetch.topics.push_back({"max-ts", {{0, -1, 1, -1, -1, 1 << 20}}});
  c.send(fetch, 11, 2);
  std::vector<std::byte> frame;  // the response's bytes, which the records point into
  auto resp = c.receive<protocol::FetchResponse>(11, 2, &frame);
  ASSERT_TRUE(resp);
  const auto& part = resp->responses.at(0).partitions.at(0);
  std::vector<std::byte> blob;
  for (const auto& p : part.records.parts) blob.insert(blob.end(), p.bytes.begin(), p.bytes.end());
  if (part.records.data) blob.assign(part.records.data->begin(), part.records.data->end());
  std::vector<protocol::RecordBatchView> batches;
  ASSERT_EQ(protocol::split_batches(blob, batches), protocol::BatchCheck::kOk);
  ASSERT_EQ(batches.size(), 2u);
  for (const auto& b : batches) {
    EXPECT_EQ(b.max_timestamp(), base + 50);
    EXPECT_EQ(b.attributes() & 0xff80, 0);  // cleared, as Kafka rebuilds the attributes
    EXPECT_TRUE(storage::batch_crc_ok(b.bytes()));
  }
  const auto got = testutil::consume_assigned(bootstrap(), "max-ts", {0}, 1, 4);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].timestamp, base + 50);
  EXPECT_EQ(got[1].timestamp, base + 20);
}

}  // namespace
}  // namespace rokka
