// RecordValidator: every malformed record shape is refused with Kafka's code under
// every codec, real batches pass however the section is chunked, codec framings
// Kafka's clients cannot read are refused, and a bomb costs bounded memory.
#include "protocol/record_validator.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "protocol/record.h"
#include "tests/testutil/compression_bombs.h"
#include "tests/testutil/process_memory.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::protocol {
namespace {

using testutil::RecordBatchBuilder;
using testutil::bytes_of;
using testutil::cat;
using testutil::good_fields;
using testutil::good_record;
using testutil::raw_record;
using testutil::TestRecord;
using testutil::varint;

// A codec as a test case: snappy twice, raw (librdkafka) and xerial (the Java client).
struct Codec {
  const char* name;
  Compression c;
  bool xerial = false;
};
const Codec kCodecs[] = {{"none", Compression::kNone}, {"gzip", Compression::kGzip},
                         {"snappy", Compression::kSnappy}, {"xerial", Compression::kSnappy, true},
                         {"lz4", Compression::kLz4},       {"zstd", Compression::kZstd}};

RecordBatchBuilder builder(const Codec& codec) {
  RecordBatchBuilder b;
  if (codec.xerial) {
    b.snappy_xerial(1000);  // small blocks: records span them
  } else {
    b.compression(codec.c);
  }
  return b;
}

RecordBatchView parsed(const std::vector<std::byte>& bytes) {
  RecordBatchView v;
  EXPECT_EQ(RecordBatchView::parse(bytes, &v), BatchCheck::kOk);
  return v;
}

RecordCheck check(const std::vector<std::byte>& batch, const RecordPolicy& policy = {}) {
  RecordValidator v;
  return v.validate(parsed(batch), policy);
}

struct Shape {
  const char* name;
  std::vector<std::byte> section;
  int32_t count;
  RecordCheck expected;
};

std::vector<Shape> malformed_shapes() {
  const auto ten_byte_varint = bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
  return {
      {"forty_bytes_of_ff", std::vector<std::byte>(40, std::byte{0xff}), 1, RecordCheck::kBadRecordLength},
      {"length_one_million", raw_record(0, good_fields(), varint(1000000)), 1, RecordCheck::kBadRecordLength},
      {"length_minus_five", raw_record(0, good_fields(), varint(-5)), 1, RecordCheck::kBadRecordLength},
      {"length_ten_byte_varint", raw_record(0, good_fields(), ten_byte_varint), 1, RecordCheck::kBadRecordLength},
      {"key_length_2_pow_30", raw_record(0, cat({varint(1 << 30), bytes_of({'k', 1, 'v', 0})})), 1,
       RecordCheck::kMalformedRecord},
      {"key_length_minus_five", raw_record(0, cat({varint(-5), bytes_of({2, 'v', 0})})), 1, RecordCheck::kMalformedRecord},
      {"value_length_minus_two", raw_record(0, cat({varint(-1), varint(-2), varint(0)})), 1,
       RecordCheck::kMalformedRecord},
      {"offset_delta_ten_byte_varint", cat({varint(14), bytes_of({0, 0}), ten_byte_varint, bytes_of({1, 0})}), 1,
       RecordCheck::kMalformedRecord},
      // Kafka drops a 5-byte varint's bits above 32 (so this key length reads as 1);
      // librdkafka does not: refused so that no consumer reads it otherwise.
      {"key_length_beyond_32_bits", raw_record(0, cat({bytes_of({0x82, 0x80, 0x80, 0x80, 0x20}), bytes_of({'k', 0, 0})})),
       1, RecordCheck::kMalformedRecord},
      {"header_count_minus_one", raw_record(0, cat({varint(-1), varint(-1), varint(-1)})), 1,
       RecordCheck::kMalformedRecord},
      {"header_key_null", raw_record(0, cat({varint(-1), varint(-1), varint(1), varint(-1), varint(-1)})), 1,
       RecordCheck::kMalformedRecord},
      {"header_value_minus_three", raw_record(0, cat({varint(-1), varint(-1), varint(1), varint(1), bytes_of({'h'}), varint(-3)})),
       1, RecordCheck::kMalformedRecord},
      {"length_past_the_section", raw_record(0, good_fields(), varint(static_cast<int64_t>(good_record(0).size()))), 1,
       RecordCheck::kBadRecordLength},
      {"length_beyond_the_fields", raw_record(0, cat({good_fields(), bytes_of({0})})), 1, RecordCheck::kMalformedRecord},
      {"length_one_short_of_the_fields", raw_record(0, good_fields(), varint(static_cast<int64_t>(good_record(0).size() - 2))),
       1, RecordCheck::kMalformedRecord},
      {"valid_record_and_two_stray_bytes", cat({good_record(0), bytes_of({0, 0})}), 1, RecordCheck::kTrailingBytes},
      {"count_one_with_two_records", cat({good_record(0), good_record(1)}), 1, RecordCheck::kTrailingBytes},
      {"count_three_with_two_records", cat({good_record(0), good_record(1)}), 3, RecordCheck::kMissingRecords},
      {"empty_section", {}, 1, RecordCheck::kMissingRecords},
      {"negative_count", good_record(0), -1, RecordCheck::kNegativeCount},
      {"offset_delta_five_first", cat({good_record(5), good_record(1)}), 2, RecordCheck::kOffsetDeltaMismatch},
      {"offset_delta_repeated", cat({good_record(0), good_record(0)}), 2, RecordCheck::kOffsetDeltaMismatch},
  };
}

class MalformedShapeTest : public ::testing::TestWithParam<std::tuple<Shape, Codec>> {};

TEST_P(MalformedShapeTest, IsRefusedWithKafkasCodeUnderEveryCodec) {
  const auto& [shape, codec] = GetParam();
  const auto batch = builder(codec).raw_records(shape.section, shape.count).build();
  RecordValidator whole;
  RecordValidator small(3, 4);  // 3-byte chunks, 4-byte carry: every field spans chunks
  EXPECT_EQ(whole.validate(parsed(batch), {}), shape.expected) << record_check_name(whole.validate(parsed(batch), {}));
  EXPECT_EQ(small.validate(parsed(batch), {}), shape.expected);
  EXPECT_EQ(kafka_error(shape.expected, {}), ErrorCode::kInvalidRecord);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MalformedShapeTest,
                         ::testing::Combine(::testing::ValuesIn(malformed_shapes()), ::testing::ValuesIn(kCodecs)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param).name;
                         });

std::vector<std::byte> varied_batch(const Codec& codec, int64_t base_timestamp = 1700000000000) {
  RecordBatchBuilder b = builder(codec);
  b.base_timestamp(base_timestamp);
  for (int i = 0; i < 40; ++i) {
    TestRecord r;
    if (i % 3) r.key = "key-" + std::to_string(i);
    if (i % 5) r.value = std::string(static_cast<size_t>(i * 37), static_cast<char>('a' + i % 26));
    for (int h = 0; h < i % 4; ++h) r.headers.emplace_back("h" + std::to_string(h), h % 2 ? std::nullopt : std::optional("x"));
    r.timestamp_delta = (i * 7919) % 1000;
    b.add(std::move(r));
  }
  b.add(TestRecord{"big", std::string(300 * 1024, 'z'), {{"after", "the long value"}}, 3});  // beyond the carry
  return b.build();
}

TEST(RecordValidatorTest, WellFormedBatchesPassWithEveryCodecAndChunkSize) {
  for (const Codec& codec : kCodecs) {
    const auto bytes = varied_batch(codec);
    const RecordBatchView batch = parsed(bytes);
    for (auto [chunk, carry] : {std::pair<size_t, size_t>{65536, kMaxCarryBytes}, {1, 1}, {7, 16}, {4096, 100}}) {
      RecordValidator v(chunk, carry);
      EXPECT_EQ(v.validate(batch, {}), RecordCheck::kOk) << codec.name << " chunk " << chunk << ": "
                                                          << v.describe(RecordCheck::kOk, codec.c);
      EXPECT_EQ(v.max_timestamp(), batch.max_timestamp()) << codec.name;
    }
  }
}

TEST(RecordValidatorTest, TheValidatorIsReusableAcrossCodecs) {
  RecordValidator v(512, 64);
  for (int round = 0; round < 2; ++round) {
    for (const Codec& codec : kCodecs) {
      EXPECT_EQ(v.validate(parsed(varied_batch(codec)), {}), RecordCheck::kOk) << codec.name;
      const auto bad = builder(codec).raw_records(cat({good_record(0), bytes_of({1})}), 1).build();
      EXPECT_EQ(v.validate(parsed(bad), {}), RecordCheck::kTrailingBytes) << codec.name;
    }
  }
}

TEST(RecordValidatorTest, SectionsThatDoNotDecompressAreRefused) {
  const auto plain = RecordBatchBuilder().add("k", "v").records_section();
  const std::string text = "definitely not compressed data";
  const std::vector<std::byte> garbage(reinterpret_cast<const std::byte*>(text.data()),
                                       reinterpret_cast<const std::byte*>(text.data() + text.size()));
  for (Compression c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    // The codec attribute on bytes that are not that codec's.
    const auto not_compressed = RecordBatchBuilder().compression(c).uncompressed_section().raw_records(garbage, 1).build();
    EXPECT_EQ(check(not_compressed), RecordCheck::kNotDecompressible) << compression_name(c);
    EXPECT_EQ(kafka_error(RecordCheck::kNotDecompressible, {}), ErrorCode::kInvalidRecord);
    // A compressed section cut short.
    std::vector<std::byte> packed;
    ASSERT_TRUE(compress(c, plain, packed));
    packed.resize(packed.size() - 2);
    const auto truncated = RecordBatchBuilder().compression(c).uncompressed_section().raw_records(packed, 1).build();
    EXPECT_EQ(check(truncated), RecordCheck::kNotDecompressible) << compression_name(c);
  }
}

TEST(RecordValidatorTest, FramingsKafkasClientsCannotReadAreRefused) {
  const auto plain = RecordBatchBuilder().add("k", "v").records_section();
  auto section_batch = [](Compression c, std::vector<std::byte> section) {
    return RecordBatchBuilder().compression(c).uncompressed_section().raw_records(std::move(section), 1).build();
  };
  std::vector<std::byte> gz, lz4;
  ASSERT_TRUE(compress(Compression::kGzip, plain, gz));
  ASSERT_TRUE(compress(Compression::kLz4, plain, lz4));
  // A second gzip member (librdkafka reads only the first), bytes after the lz4 frame
  // or a second one (the Java client reads only the first).
  EXPECT_EQ(check(section_batch(Compression::kGzip, cat({gz, gz}))), RecordCheck::kUnreadableFraming);
  EXPECT_EQ(check(section_batch(Compression::kLz4, cat({lz4, lz4}))), RecordCheck::kUnreadableFraming);
  EXPECT_EQ(check(section_batch(Compression::kLz4, cat({lz4, bytes_of({0})}))), RecordCheck::kUnreadableFraming);
  // lz4 linked blocks: LZ4F's default (beyond one block), which the Java client
  // cannot decode.
  const auto long_plain = RecordBatchBuilder().add("k", std::string(200000, 'x')).records_section();
  std::vector<std::byte> linked(LZ4F_compressFrameBound(long_plain.size(), nullptr));
  linked.resize(LZ4F_compressFrame(linked.data(), linked.size(), long_plain.data(), long_plain.size(), nullptr));
  EXPECT_EQ(check(section_batch(Compression::kLz4, linked)), RecordCheck::kUnreadableFraming);
  // A zstd frame asking for a 128 MiB window.
  EXPECT_EQ(check(section_batch(Compression::kZstd, testutil::zstd_rle_bomb(plain, 0, 27))),
            RecordCheck::kUnreadableFraming);
  EXPECT_EQ(check(section_batch(Compression::kZstd, testutil::zstd_rle_bomb(plain, 0, 23))), RecordCheck::kOk);
  EXPECT_EQ(kafka_error(RecordCheck::kUnreadableFraming, {}), ErrorCode::kInvalidRecord);
  // Several zstd frames are one stream for every client.
  std::vector<std::byte> first, second;
  const auto two = RecordBatchBuilder().add("a", "1").add("b", "2").records_section();
  const auto one = RecordBatchBuilder().add("a", "1").records_section();
  ASSERT_TRUE(compress(Compression::kZstd, protocol::Bytes(two).first(one.size()), first));
  ASSERT_TRUE(compress(Compression::kZstd, protocol::Bytes(two).subspan(one.size()), second));
  EXPECT_EQ(check(section_batch(Compression::kZstd, cat({first, second}))), RecordCheck::kTrailingBytes);  // count 1
  const auto both = RecordBatchBuilder().compression(Compression::kZstd).uncompressed_section().raw_records(cat({first, second}), 2).build();
  EXPECT_EQ(check(both), RecordCheck::kOk);
}

// A long value of zeros inside each codec: small on the wire, gigabytes inflated. The
// walk stops at max_inflated_bytes, and memory stays that of one chunk plus the codec's
// state (zstd's window: 8 MiB; lz4's blocks: 2 x 4 MiB), not the section's.
TEST(RecordValidatorTest, BombsStopAtTheInflatedBoundInBoundedMemory) {
  const auto prefix = testutil::long_record_prefix(INT32_MAX - 64);
  constexpr uint64_t kZeros = uint64_t{300} << 20;  // beyond the 256 MiB bound
  struct Bomb {
    Compression c;
    std::vector<std::byte> section;
  };
  std::vector<Bomb> bombs;
  bombs.push_back({Compression::kZstd, testutil::zstd_rle_bomb(prefix, uint64_t{30} << 30)});  // 30 GiB
  bombs.push_back({Compression::kGzip, testutil::gzip_bomb(prefix, kZeros)});
  bombs.push_back({Compression::kLz4, testutil::lz4_bomb(prefix, kZeros)});
  EXPECT_LT(bombs[0].section.size(), 1000u * 1024);
  RecordValidator v;
  for (const Bomb& b : bombs) {
    const auto batch = RecordBatchBuilder().compression(b.c).uncompressed_section().raw_records(b.section, 1).build();
    RecordCheck got{};
    const int64_t growth = testutil::peak_growth_bytes([&] { got = v.validate(parsed(batch), {}); });
    EXPECT_EQ(got, RecordCheck::kInflatesTooLarge) << compression_name(b.c);
    EXPECT_EQ(v.decompress_status(), DecompressStatus::kTooLarge);
    EXPECT_LT(growth, int64_t{24} << 20) << compression_name(b.c) << " grew by " << growth;
  }
  EXPECT_EQ(kafka_error(RecordCheck::kInflatesTooLarge, {}), ErrorCode::kMessageTooLarge);

  // Zeros alone are not a record (a record of length 0): refused at once.
  const auto zeros = RecordBatchBuilder()
                         .compression(Compression::kZstd)
                         .uncompressed_section()
                         .raw_records(testutil::zstd_rle_bomb({}, uint64_t{30} << 30), 1)
                         .build();
  EXPECT_EQ(v.validate(parsed(zeros), {}), RecordCheck::kMalformedRecord);
  EXPECT_EQ(v.failed_record(), 0);
}

// Snappy cannot inflate more than ~21x, so its bound is the batch's size: a raw
// block claiming more is refused before anything is allocated.
TEST(RecordValidatorTest, SnappyBlocksClaimingMoreThanTheyCanHoldAreRefusedUnallocated) {
  const auto claim = cat({bytes_of({0xff, 0xff, 0xff, 0xff, 0x0f}), std::vector<std::byte>(100, std::byte{0})});
  const auto batch = RecordBatchBuilder().compression(Compression::kSnappy).uncompressed_section().raw_records(claim, 1).build();
  RecordValidator v;
  RecordCheck got{};
  const int64_t growth = testutil::peak_growth_bytes([&] { got = v.validate(parsed(batch), {}); });
  EXPECT_EQ(got, RecordCheck::kNotDecompressible);
  EXPECT_LT(growth, int64_t{4} << 20);
}

TEST(RecordValidatorTest, CompactedTopicsRefuseEachRecordWithoutAKey) {
  RecordPolicy policy;
  policy.keys_required = true;
  for (const Codec& codec : kCodecs) {
    const auto batch = builder(codec).add("a", "1").add(std::nullopt, "2").add("", "3").add(std::nullopt, std::nullopt).build();
    RecordValidator v;
    ASSERT_EQ(v.validate(parsed(batch), policy), RecordCheck::kRecordErrors) << codec.name;
    ASSERT_EQ(v.record_errors().size(), 2u);
    EXPECT_EQ(v.record_errors()[0].index, 1);  // an empty key is a key
    EXPECT_EQ(v.record_errors()[1].index, 3);
    EXPECT_EQ(kafka_error(RecordCheck::kRecordErrors, v.record_errors()), ErrorCode::kInvalidRecord);
    EXPECT_EQ(describe(v.record_errors()[0], policy), "record 1: no key, and a compacted topic keeps records by key");
    EXPECT_EQ(v.validate(parsed(batch), {}), RecordCheck::kOk);  // not compacted: fine
  }
}

TEST(RecordValidatorTest, TimestampsOutsideTheBoundsAreRefusedAsKafkaComputesThem) {
  const int64_t now = 1700000000000;
  RecordPolicy policy;
  policy.check_timestamps = true;
  policy.now_ms = now;
  policy.timestamp_before_max_ms = 1000;
  policy.timestamp_after_max_ms = 500;
  const auto batch = RecordBatchBuilder()
                         .base_timestamp(now - 2000)
                         .add(TestRecord{"a", "too old", {}, 0})
                         .add(TestRecord{"b", "oldest allowed", {}, 1000})
                         .add(TestRecord{"c", "newest allowed", {}, 2500})
                         .add(TestRecord{"d", "too new", {}, 2501})
                         .build();
  RecordValidator v;
  ASSERT_EQ(v.validate(parsed(batch), policy), RecordCheck::kRecordErrors);
  ASSERT_EQ(v.record_errors().size(), 2u);
  EXPECT_EQ(v.record_errors()[0].index, 0);
  EXPECT_EQ(v.record_errors()[0].timestamp, now - 2000);
  EXPECT_EQ(v.record_errors()[1].index, 3);
  EXPECT_EQ(kafka_error(RecordCheck::kRecordErrors, v.record_errors()), ErrorCode::kInvalidTimestamp);
  EXPECT_EQ(describe(v.record_errors()[0], policy),
            "record 0: timestamp 1699999998000 outside [1699999999000, 1700000000500] "
            "(message.timestamp.before.max.ms / after.max.ms)");

  // -1 is "no timestamp" and never out of range; the defaults allow any timestamp.
  const auto none = RecordBatchBuilder().base_timestamp(-1).add("k", "v").build();
  EXPECT_EQ(v.validate(parsed(none), policy), RecordCheck::kOk);
  EXPECT_EQ(v.validate(parsed(batch), RecordPolicy{.check_timestamps = true, .now_ms = now}), RecordCheck::kOk);
  // Kafka's arithmetic wraps: now - ts overflowing to Long.MIN_VALUE reads as in range.
  RecordPolicy tight{.check_timestamps = true, .now_ms = 1000, .timestamp_before_max_ms = 5, .timestamp_after_max_ms = 7};
  const auto wrapped = RecordBatchBuilder().base_timestamp(INT64_MIN + 1000).add("k", "v").build();
  EXPECT_EQ(v.validate(parsed(wrapped), tight), RecordCheck::kOk);
  const auto old = RecordBatchBuilder().base_timestamp(INT64_MIN + 1001).add("k", "v").build();
  EXPECT_EQ(v.validate(parsed(old), tight), RecordCheck::kRecordErrors);
  // A record with both faults counts as keyless (Kafka checks the key first); any
  // timestamp fault makes the batch's answer INVALID_TIMESTAMP.
  policy.keys_required = true;
  const auto mixed = RecordBatchBuilder().base_timestamp(now).add(std::nullopt, "v").add(TestRecord{"k", "v", {}, 9999}).build();
  ASSERT_EQ(v.validate(parsed(mixed), policy), RecordCheck::kRecordErrors);
  ASSERT_EQ(v.record_errors().size(), 2u);
  EXPECT_EQ(v.record_errors()[0].kind, RecordError::Kind::kNoKey);
  EXPECT_EQ(kafka_error(RecordCheck::kRecordErrors, v.record_errors()), ErrorCode::kInvalidTimestamp);
}

// Kafka writes the records' largest timestamp into MaxTimestamp (at least -1), whatever
// the producer put there.
TEST(RecordValidatorTest, MaxTimestampIsTheRecordsLargest) {
  RecordValidator v;
  for (const Codec& codec : kCodecs) {
    const auto lying = builder(codec)
                           .base_timestamp(5000)
                           .max_timestamp(10)
                           .add(TestRecord{"a", "1", {}, 7})
                           .add(TestRecord{"b", "2", {}, 3})
                           .build();
    ASSERT_EQ(v.validate(parsed(lying), {}), RecordCheck::kOk);
    EXPECT_EQ(v.max_timestamp(), 5007) << codec.name;
  }
  const auto negative = RecordBatchBuilder().base_timestamp(-50).add(TestRecord{"a", "1", {}, 3}).build();
  ASSERT_EQ(v.validate(parsed(negative), {}), RecordCheck::kOk);
  EXPECT_EQ(v.max_timestamp(), -1);
}

}  // namespace
}  // namespace rokka::protocol
