#include "protocol/compression.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/record.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::protocol {
namespace {

using testutil::RecordBatchBuilder;
using testutil::TestRecord;

constexpr Compression kCodecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                   Compression::kZstd};
constexpr size_t kBound = 64 << 20;

std::vector<std::byte> bytes_of(const std::string& s) {
  const Bytes b = as_bytes(s);
  return {b.begin(), b.end()};
}

std::optional<std::string> to_string(const std::optional<Bytes>& b) {
  if (!b) return std::nullopt;
  return std::string(as_string_view(*b));
}

// Varied records: keys, null keys and values, headers (one with a null value), a
// 1 MiB value, and timestamp deltas.
std::vector<TestRecord> sample_records() {
  std::vector<TestRecord> out;
  out.push_back({"key-0", "value-0", {}, 0});
  out.push_back({std::nullopt, "no key", {{"h1", "x"}, {"h2", std::nullopt}}, 3});
  out.push_back({"tombstone", std::nullopt, {}, 4});
  out.push_back({"", "", {{"", ""}}, 4});
  std::string big(1 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + (i * 7919) % 26);
  out.push_back({"big", big, {}, 1000});
  for (int i = 0; i < 200; ++i) out.push_back({"k" + std::to_string(i), "v" + std::to_string(i * i), {}, 1000 + i});
  return out;
}

void expect_records_equal(const RecordBatchView& batch, const std::vector<TestRecord>& want) {
  std::vector<std::byte> scratch;
  size_t i = 0;
  const bool ok = for_each_record(batch, kBound, scratch, [&](const Record& r) {
    ASSERT_LT(i, want.size());
    EXPECT_EQ(r.offset_delta, static_cast<int32_t>(i));
    EXPECT_EQ(r.timestamp_delta, want[i].timestamp_delta);
    EXPECT_EQ(to_string(r.key), want[i].key) << i;
    EXPECT_EQ(to_string(r.value), want[i].value) << i;
    ASSERT_EQ(r.headers.size(), want[i].headers.size());
    for (size_t h = 0; h < r.headers.size(); ++h) {
      EXPECT_EQ(r.headers[h].key, want[i].headers[h].first);
      EXPECT_EQ(to_string(r.headers[h].value), want[i].headers[h].second);
    }
    ++i;
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(i, want.size());
}

TEST(CompressionTest, RecordsRoundTripThroughEveryCodec) {
  const auto records = sample_records();
  for (Compression c : kCodecs) {
    SCOPED_TRACE(compression_name(c));
    RecordBatchBuilder builder;
    builder.compression(c);
    for (const auto& r : records) builder.add(r);
    const auto bytes = builder.build();
    RecordBatchView batch;
    ASSERT_EQ(RecordBatchView::parse(bytes, &batch), BatchCheck::kOk);
    EXPECT_EQ(batch.compression(), c);
    if (c != Compression::kNone) {
      EXPECT_LT(bytes.size(), builder.records_section().size());
    }
    expect_records_equal(batch, records);
  }
}

TEST(CompressionTest, SnappyInTheJavaClientsXerialFramingDecodes) {
  const auto records = sample_records();
  RecordBatchBuilder builder;
  builder.snappy_xerial(32 * 1024);
  for (const auto& r : records) builder.add(r);
  const auto bytes = builder.build();
  RecordBatchView batch;
  ASSERT_EQ(RecordBatchView::parse(bytes, &batch), BatchCheck::kOk);
  ASSERT_EQ(batch.compression(), Compression::kSnappy);
  EXPECT_EQ(std::to_integer<int>(batch.records_section()[0]), 0x82);  // the framing's magic
  expect_records_equal(batch, records);
}

TEST(CompressionTest, OutputBeyondTheBoundFailsForEveryCodec) {
  const std::vector<std::byte> zeros(8 << 20, std::byte{0});
  for (Compression c : kCodecs) {
    SCOPED_TRACE(compression_name(c));
    std::vector<std::byte> packed, out;
    ASSERT_TRUE(compress(c, zeros, packed));
    EXPECT_EQ(decompress(c, packed, zeros.size() - 1, out), DecompressStatus::kTooLarge);
    EXPECT_LE(out.capacity(), zeros.size());
    ASSERT_EQ(decompress(c, packed, zeros.size(), out), DecompressStatus::kOk);
    EXPECT_EQ(out, zeros);
  }
}

TEST(CompressionTest, SnappyClaimingAHugeLengthIsRefusedBeforeAllocating) {
  // Preamble varint 0xffffffff (4 GiB), then a few bytes.
  const auto hostile = bytes_of("\xff\xff\xff\xff\x0f\x00\x01\x02");
  std::vector<std::byte> out;
  // A block inflates at most ~21x: 4 GiB from 8 bytes cannot be snappy at all.
  EXPECT_EQ(decompress(Compression::kSnappy, hostile, 1 << 20, out), DecompressStatus::kMalformed);
  EXPECT_LT(out.capacity(), 1u << 20);
  // A plausible claim above the bound is refused as too large, also before allocating.
  std::vector<std::byte> packed;
  ASSERT_TRUE(compress(Compression::kSnappy, std::vector<std::byte>(2 << 20), packed));
  EXPECT_EQ(decompress(Compression::kSnappy, packed, 1 << 20, out), DecompressStatus::kTooLarge);
  EXPECT_LT(out.capacity(), 1u << 20);
}

// decompress() and Decompressor in chunks of any size give the same bytes.
TEST(CompressionTest, StreamingInChunksOfAnySizeYieldsTheWholeSection) {
  std::vector<std::byte> plain(300000);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::byte>((i * 7919) >> 5);
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                        Compression::kZstd}) {
    std::vector<std::byte> packed;
    ASSERT_TRUE(compress(c, plain, packed));
    for (size_t chunk : {size_t{1}, size_t{333}, size_t{65536}}) {
      Decompressor d(chunk);
      d.start(c, packed, plain.size());
      std::vector<std::byte> got;
      for (Bytes b = d.next(); !b.empty(); b = d.next()) {
        EXPECT_LE(b.size(), c == Compression::kNone || c == Compression::kSnappy ? plain.size() : chunk);
        got.insert(got.end(), b.begin(), b.end());
      }
      EXPECT_EQ(d.status(), DecompressStatus::kOk) << compression_name(c) << " chunk " << chunk;
      EXPECT_EQ(got, plain) << compression_name(c) << " chunk " << chunk;
      EXPECT_EQ(d.produced(), plain.size());
    }
  }
}

TEST(CompressionTest, TruncatedOrGarbageInputIsMalformedForEveryCodec) {
  const auto plain = bytes_of(std::string(5000, 'x') + "tail of the data, not repeated: 0123456789");
  for (Compression c : kCodecs) {
    if (c == Compression::kNone) continue;
    SCOPED_TRACE(compression_name(c));
    std::vector<std::byte> packed, out;
    ASSERT_TRUE(compress(c, plain, packed));
    for (size_t n = 0; n < packed.size(); ++n) {
      const auto status = decompress(c, Bytes(packed).first(n), kBound, out);
      EXPECT_NE(status, DecompressStatus::kOk) << "prefix " << n << " of " << packed.size();
    }
    EXPECT_NE(decompress(c, bytes_of("definitely not compressed data"), kBound, out), DecompressStatus::kOk);
  }
}

TEST(CompressionTest, XerialFramingWithABadBlockLengthIsMalformed) {
  RecordBatchBuilder builder;
  const auto bytes = builder.snappy_xerial().add("k", "v").build();
  RecordBatchView batch;
  ASSERT_EQ(RecordBatchView::parse(bytes, &batch), BatchCheck::kOk);
  std::vector<std::byte> section(batch.records_section().begin(), batch.records_section().end());
  section[16] = std::byte{0x7f};  // first block length: ~2 GiB
  std::vector<std::byte> out;
  EXPECT_EQ(decompress(Compression::kSnappy, section, kBound, out), DecompressStatus::kMalformed);
}

}  // namespace
}  // namespace rokka::protocol
