#include "protocol/legacy_records.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <optional>
#include <string>

#include "protocol/compression.h"
#include "protocol/record.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::protocol {
namespace {

using testutil::RecordBatchBuilder;

void put_be(std::vector<std::byte>& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
}
void put_legacy_bytes(std::vector<std::byte>& out, const std::optional<std::string>& s) {
  if (!s) return put_be(out, 0xffffffff, 4);
  put_be(out, s->size(), 4);
  for (char c : *s) out.push_back(static_cast<std::byte>(c));
}

struct Legacy {
  int8_t magic = 1;
  int8_t codec = 0;
  int64_t timestamp = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::optional<std::vector<std::byte>> raw_value;  // a wrapper's compressed set
};

// One message-set entry, laid out by hand from the format's description.
std::vector<std::byte> entry(const Legacy& m, int64_t offset = 0) {
  std::vector<std::byte> body;
  body.push_back(static_cast<std::byte>(m.magic));
  body.push_back(static_cast<std::byte>(m.codec));
  if (m.magic == 1) put_be(body, static_cast<uint64_t>(m.timestamp), 8);
  put_legacy_bytes(body, m.key);
  if (m.raw_value) {
    put_be(body, m.raw_value->size(), 4);
    body.insert(body.end(), m.raw_value->begin(), m.raw_value->end());
  } else {
    put_legacy_bytes(body, m.value);
  }
  std::vector<std::byte> out;
  put_be(out, static_cast<uint64_t>(offset), 8);
  put_be(out, body.size() + 4, 4);
  put_be(out, crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())), 4);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

struct Got {
  int64_t timestamp;
  int32_t offset_delta;
  std::optional<std::string> key, value;
};

std::vector<Got> records_of(const std::vector<std::byte>& batch_bytes) {
  RecordBatchView batch;
  EXPECT_EQ(RecordBatchView::parse(batch_bytes, &batch), BatchCheck::kOk);
  EXPECT_EQ(batch.check_produced(), BatchCheck::kOk);  // a batch a v3 produce could have sent
  EXPECT_EQ(batch.size(), batch_bytes.size());
  std::vector<Got> out;
  std::vector<std::byte> scratch;
  auto str = [](const std::optional<Bytes>& b) -> std::optional<std::string> {
    if (!b) return std::nullopt;
    return std::string(as_string_view(*b));
  };
  EXPECT_TRUE(for_each_record(batch, 1 << 20, scratch, [&](const Record& r) {
    out.push_back({batch.base_timestamp() + r.timestamp_delta, r.offset_delta, str(r.key), str(r.value)});
  }));
  EXPECT_EQ(out.size(), static_cast<size_t>(batch.records_count()));
  return out;
}

TEST(LegacyRecordsTest, Magic0MessagesBecomeRecordsWithoutTimestamps) {
  const auto set = concat({entry({.magic = 0, .key = "k0", .value = "v0"}, 7),
                           entry({.magic = 0, .key = std::nullopt, .value = std::nullopt}, 8),
                           entry({.magic = 0, .key = "", .value = "v2"}, 9)});
  std::vector<std::byte> out;
  ASSERT_EQ(upconvert_message_set(set, 1 << 20, out), BatchCheck::kOk);
  const auto got = records_of(out);
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].offset_delta, i);  // producer offsets are ignored: dense from 0
    EXPECT_EQ(got[i].timestamp, -1);
  }
  EXPECT_EQ(got[0].key, "k0");
  EXPECT_EQ(got[0].value, "v0");
  EXPECT_EQ(got[1].key, std::nullopt);
  EXPECT_EQ(got[1].value, std::nullopt);
  EXPECT_EQ(got[2].key, "");
  EXPECT_EQ(got[2].value, "v2");
}

TEST(LegacyRecordsTest, Magic1TimestampsAreKept) {
  const auto set = concat({entry({.magic = 1, .timestamp = 5000, .value = "a"}),
                           entry({.magic = 1, .timestamp = 4000, .value = "b"}),
                           entry({.magic = 1, .timestamp = 6000, .value = "c"})});
  std::vector<std::byte> out;
  ASSERT_EQ(upconvert_message_set(set, 1 << 20, out), BatchCheck::kOk);
  RecordBatchView batch;
  ASSERT_EQ(RecordBatchView::parse(out, &batch), BatchCheck::kOk);
  EXPECT_EQ(batch.max_timestamp(), 6000);
  EXPECT_EQ(batch.producer_id(), -1);
  const auto got = records_of(out);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].timestamp, 5000);
  EXPECT_EQ(got[1].timestamp, 4000);
  EXPECT_EQ(got[2].timestamp, 6000);
  EXPECT_EQ(got[2].value, "c");
}

TEST(LegacyRecordsTest, CompressedWrappersAreOpened) {
  for (Compression codec : {Compression::kGzip, Compression::kSnappy, Compression::kLz4}) {
    const auto inner = concat({entry({.magic = 1, .timestamp = 10, .key = "x", .value = "first"}, 0),
                               entry({.magic = 1, .timestamp = 11, .value = "second"}, 1)});
    std::vector<std::byte> compressed;
    ASSERT_TRUE(compress(codec, inner, compressed));
    const auto set = concat({entry({.magic = 1, .codec = static_cast<int8_t>(codec), .timestamp = 11,
                                    .raw_value = compressed}),
                             entry({.magic = 1, .timestamp = 12, .value = "plain"})});
    std::vector<std::byte> out;
    ASSERT_EQ(upconvert_message_set(set, 1 << 20, out), BatchCheck::kOk) << compression_name(codec);
    const auto got = records_of(out);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].key, "x");
    EXPECT_EQ(got[0].value, "first");
    EXPECT_EQ(got[1].value, "second");
    EXPECT_EQ(got[1].timestamp, 11);
    EXPECT_EQ(got[2].value, "plain");
    EXPECT_EQ(got[2].offset_delta, 2);
  }
}

TEST(LegacyRecordsTest, BrokenInputIsRefusedWithKafkasAnswer) {
  const auto good = concat({entry({.value = "a"}), entry({.value = "b"})});
  std::vector<std::byte> out;

  auto flipped = good;
  flipped[good.size() - 1] ^= std::byte{1};  // the last value byte: CRC-32 no longer matches
  EXPECT_EQ(upconvert_message_set(flipped, 1 << 20, out), BatchCheck::kLegacyCrcMismatch);
  EXPECT_EQ(kafka_error(BatchCheck::kLegacyCrcMismatch), ErrorCode::kCorruptMessage);

  EXPECT_EQ(upconvert_message_set({}, 1 << 20, out), BatchCheck::kNoBatch);

  const auto v2 = RecordBatchBuilder().add("k", "v").build();
  EXPECT_EQ(upconvert_message_set(v2, 1 << 20, out), BatchCheck::kRecordBatchBeforeProduceV3);
  EXPECT_EQ(kafka_error(BatchCheck::kRecordBatchBeforeProduceV3), ErrorCode::kInvalidRecord);

  auto zstd = entry({.magic = 1, .codec = 4, .value = "zz"});
  EXPECT_EQ(upconvert_message_set(zstd, 1 << 20, out), BatchCheck::kZstdBeforeProduceV7);
}

TEST(LegacyRecordsTest, EveryTruncationIsRefusedOrEndsAtAWholeMessage) {
  const auto first = entry({.key = "key", .value = "value-1"});
  const auto set = concat({first, entry({.value = "value-2"})});
  for (size_t n = 1; n < set.size(); ++n) {
    std::vector<std::byte> out;
    const std::vector<std::byte> prefix(set.begin(), set.begin() + static_cast<ptrdiff_t>(n));
    const BatchCheck c = upconvert_message_set(prefix, 1 << 20, out);
    if (n == first.size()) {
      ASSERT_EQ(c, BatchCheck::kOk);
      EXPECT_EQ(records_of(out).size(), 1u);
    } else {
      EXPECT_NE(c, BatchCheck::kOk) << n;
      EXPECT_EQ(kafka_error(c), ErrorCode::kCorruptMessage) << n;
    }
  }
}

TEST(LegacyRecordsTest, HostileSizesAndNestingAreBounded) {
  std::vector<std::byte> out;
  // MessageSize of 2^31-1 with 30 bytes present.
  auto huge = entry({.value = "x"});
  huge[8] = std::byte{0x7f}, huge[9] = std::byte{0xff}, huge[10] = std::byte{0xff}, huge[11] = std::byte{0xff};
  EXPECT_EQ(upconvert_message_set(huge, 1 << 20, out), BatchCheck::kLengthBeyondData);

  // A gzip bomb: 4 MiB of zeros inside a wrapper, with a 1 MiB output bound.
  const std::string zeros(4 << 20, '\0');
  const auto inner = entry({.value = zeros});
  std::vector<std::byte> compressed;
  ASSERT_TRUE(compress(Compression::kGzip, inner, compressed));
  const auto bomb = entry({.codec = 1, .raw_value = compressed});
  EXPECT_NE(upconvert_message_set(bomb, 1 << 20, out), BatchCheck::kOk);
  EXPECT_EQ(upconvert_message_set(bomb, 8 << 20, out), BatchCheck::kOk);

  // Compression inside compression is not a valid message set.
  std::vector<std::byte> twice;
  ASSERT_TRUE(compress(Compression::kGzip, bomb, twice));
  EXPECT_NE(upconvert_message_set(entry({.codec = 1, .raw_value = twice}), 64 << 20, out), BatchCheck::kOk);
}

}  // namespace
}  // namespace rokka::protocol
