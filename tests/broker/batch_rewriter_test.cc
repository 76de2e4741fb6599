// The log cleaner's batch rewrite: retained records come back byte-identical (key,
// value, headers, offset, timestamp) under every codec, the header keeps the producer
// fields and LastOffsetDelta, the CRC is valid, and hostile batches are refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "broker/records/batch_rewriter.h"
#include "storage/crc32c.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::broker {
namespace {

using protocol::Compression;
using protocol::Record;
using protocol::RecordBatchView;
using testutil::RecordBatchBuilder;
using testutil::TestRecord;

std::string str(protocol::Bytes b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

struct Seen {
  int64_t offset;
  int64_t timestamp_delta;
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> records_of(const RecordBatchView& v) {
  std::vector<Seen> out;
  std::vector<std::byte> scratch;
  EXPECT_TRUE(for_each_batch_record(v, scratch, [&](const Record& r, int64_t offset) {
    Seen s{offset, r.timestamp_delta, {}, {}, {}};
    if (r.key) s.key = str(*r.key);
    if (r.value) s.value = str(*r.value);
    for (const auto& h : r.headers)
      s.headers.emplace_back(std::string(h.key), h.value ? std::optional(str(*h.value)) : std::nullopt);
    out.push_back(std::move(s));
  }));
  return out;
}

RecordBatchView view(const std::vector<std::byte>& b) {
  RecordBatchView v;
  if (RecordBatchView::parse(b, &v) != protocol::BatchCheck::kOk) throw std::runtime_error("batch does not parse");
  return v;
}

std::vector<std::byte> five_records(Compression c) {
  RecordBatchBuilder b;
  b.compression(c).base_offset(100).base_timestamp(5000).producer(42, 3, 17);
  for (int i = 0; i < 5; ++i) {
    TestRecord r{"k" + std::to_string(i % 2), i == 3 ? std::nullopt : std::optional("value-" + std::to_string(i)),
                 {{"rdk_msgid", "m" + std::to_string(i)}, {"nullhdr", std::nullopt}}, 10 * i};
    b.add(std::move(r));
  }
  return b.build();
}

class BatchRewriterTest : public ::testing::TestWithParam<Compression> {};

TEST_P(BatchRewriterTest, KeptRecordsAreIdenticalAndTheHeaderKeepsProducerState) {
  const auto in = five_records(GetParam());
  const auto original = view(in);
  const auto before = records_of(original);
  std::vector<std::byte> out;
  // Keep offsets 101 (k1), 103 (a tombstone) and 104 (k0).
  ASSERT_EQ(rewrite_batch(original, [](const Record&, int64_t o) { return o == 101 || o >= 103; }, out),
            RewriteOutcome::kRewritten);
  const auto v = view(out);
  EXPECT_TRUE(storage::batch_crc_ok(v.bytes()));
  EXPECT_EQ(v.base_offset(), 100);
  EXPECT_EQ(v.last_offset_delta(), 4);  // Kafka keeps it: the producer's sequence range
  EXPECT_EQ(v.records_count(), 3);
  EXPECT_EQ(v.attributes(), original.attributes());
  EXPECT_EQ(v.compression(), GetParam());
  EXPECT_EQ(v.base_timestamp(), 5000);
  EXPECT_EQ(v.max_timestamp(), original.max_timestamp());
  EXPECT_EQ(v.producer_id(), 42);
  EXPECT_EQ(v.producer_epoch(), 3);
  EXPECT_EQ(v.base_sequence(), 17);
  const auto after = records_of(v);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0], before[1]);
  EXPECT_EQ(after[1], before[3]);
  EXPECT_EQ(after[2], before[4]);
  EXPECT_FALSE(after[1].value.has_value());  // the tombstone stays a tombstone
}

TEST_P(BatchRewriterTest, AllKeptIsUnchangedAndNoneKeptIsAnEmptyUncompressedBatch) {
  const auto in = five_records(GetParam());
  std::vector<std::byte> out;
  EXPECT_EQ(rewrite_batch(view(in), [](const Record&, int64_t) { return true; }, out), RewriteOutcome::kUnchanged);
  ASSERT_EQ(rewrite_batch(view(in), [](const Record&, int64_t) { return false; }, out), RewriteOutcome::kRewritten);
  const auto v = view(out);
  EXPECT_EQ(v.records_count(), 0);
  EXPECT_EQ(v.last_offset_delta(), 4);
  EXPECT_EQ(v.compression(), Compression::kNone);
  EXPECT_EQ(v.producer_id(), 42);
  EXPECT_TRUE(storage::batch_crc_ok(v.bytes()));
  EXPECT_TRUE(records_of(v).empty());
}

INSTANTIATE_TEST_SUITE_P(Codecs, BatchRewriterTest,
                         ::testing::Values(Compression::kNone, Compression::kGzip, Compression::kSnappy,
                                           Compression::kLz4, Compression::kZstd));

TEST(BatchRewriterHostileTest, RecordCountBeyondTheSectionIsRefusedWithoutAllocating) {
  // Compressed, so the framing check cannot bound the count; RecordsCount = 2^31-1.
  auto in = five_records(Compression::kLz4);
  for (int i = 0; i < 4; ++i) in[wire::batch::kRecordsCount + i] = std::byte{i == 0 ? uint8_t{0x7f} : uint8_t{0xff}};
  std::vector<std::byte> out;
  EXPECT_EQ(rewrite_batch(view(in), [](const Record&, int64_t) { return false; }, out), RewriteOutcome::kMalformed);
}

TEST(BatchRewriterHostileTest, RecordLengthBeyondTheSectionIsRefused) {
  auto in = five_records(Compression::kNone);
  in[wire::batch::kHeaderSize] = std::byte{0xfe};  // first record's length varint: huge
  in[wire::batch::kHeaderSize + 1] = std::byte{0xff};
  std::vector<std::byte> out;
  EXPECT_EQ(rewrite_batch(view(in), [](const Record&, int64_t) { return false; }, out), RewriteOutcome::kMalformed);
}

TEST(BatchRewriterHostileTest, GarbageCompressedSectionIsRefused) {
  auto in = five_records(Compression::kLz4);
  for (size_t i = wire::batch::kHeaderSize; i < in.size(); ++i) in[i] = std::byte{0xa5};
  std::vector<std::byte> out;
  EXPECT_EQ(rewrite_batch(view(in), [](const Record&, int64_t) { return false; }, out), RewriteOutcome::kMalformed);
}

}  // namespace
}  // namespace rokka::broker
