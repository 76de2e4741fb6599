// Store::rewrite (compaction's primitive): the new batches replace a range at their
// original offsets, reads skip the gaps, the result survives a clean reopen and a
// crash once acknowledged, a crash before its checkpoint serves the original batches,
// a changed range is a conflict, and retention never deletes a retained partition's data.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>

#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

Status rewrite(Store& s, PartitionId pid, int64_t from, int64_t to, const std::vector<std::vector<std::byte>>& batches) {
  Store::RewriteRequest rq{pid, from, to, {}};
  for (const auto& b : batches) rq.batches.emplace_back(b);
  std::promise<Status> p;
  s.rewrite(std::move(rq), [&](Status st) { p.set_value(st); });
  return p.get_future().get();
}

std::vector<std::byte> one(uint8_t fill, int32_t value_bytes = 16) {
  return make_batch({.value_bytes = value_bytes, .fill = fill});
}

// The base offset and bytes of every batch read from `from` to the end, one read per batch.
std::vector<std::pair<int64_t, std::vector<std::byte>>> read_all(const Store& s, PartitionId pid, int64_t from) {
  std::vector<std::pair<int64_t, std::vector<std::byte>>> out;
  for (int64_t offset = from;;) {
    auto r = s.read(pid, offset, 1);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok() || r->batches.empty()) return out;
    const auto b = r->batches[0].bytes;
    const int64_t base = format::batch::i64(b, format::batch::kBaseOffset);
    out.emplace_back(base, std::vector<std::byte>(b.begin(), b.end()));
    offset = base + format::batch::i32(b, format::batch::kLastOffsetDelta) + 1;
  }
}

class RewriteTest : public ::testing::Test {
 protected:
  // Six one-record batches at offsets 0..5 (fill = offset).
  void SetUp() override {
    store_ = open_store(small_options(dir_.path()));
    pid_ = create(*store_, 1)[0];
    for (uint8_t i = 0; i < 6; ++i) ASSERT_TRUE(append(*store_, pid_, one(i)).ok());
  }
  // Replaces [0, 5) with new batches at offsets 1 and 3 (fills 101, 103).
  Status compact() { return rewrite(*store_, pid_, 0, 5, {with_base(one(101), 1), with_base(one(103), 3)}); }
  void expect_compacted(const Store& s) {
    const auto all = read_all(s, pid_, 0);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0], std::make_pair(int64_t{1}, with_base(one(101), 1)));
    EXPECT_EQ(all[1], std::make_pair(int64_t{3}, with_base(one(103), 3)));
    EXPECT_EQ(all[2], std::make_pair(int64_t{5}, with_base(one(5), 5)));
    EXPECT_EQ(s.offsets(pid_)->log_start_offset, 0);
    EXPECT_EQ(s.offsets(pid_)->next_offset, 6);
  }
  void expect_original(const Store& s) {
    const auto all = read_all(s, pid_, 0);
    ASSERT_EQ(all.size(), 6u);
    for (uint8_t i = 0; i < 6; ++i) EXPECT_EQ(all[i].second, with_base(one(i), i));
  }
  void reopen() {
    store_.reset();
    store_ = open_store(small_options(dir_.path()));
    ASSERT_NE(store_, nullptr);
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
  PartitionId pid_ = 0;
};

TEST_F(RewriteTest, ReadsReturnTheNewBatchesAtTheirOffsetsAndSkipGaps) {
  ASSERT_TRUE(compact().ok());
  expect_compacted(*store_);
  // An offset in a gap is served from the next batch present.
  EXPECT_EQ(format::batch::i64(read_one(*store_, pid_, 2), 0), 3);
  EXPECT_EQ(format::batch::i64(read_one(*store_, pid_, 4), 0), 5);
  // Appends go on at the next offset.
  EXPECT_EQ(append(*store_, pid_, one(6))->base_offset, 6);
}

TEST_F(RewriteTest, SurvivesCleanReopen) {
  ASSERT_TRUE(compact().ok());
  ASSERT_TRUE(store_->close().ok());
  reopen();
  expect_compacted(*store_);
  EXPECT_EQ(append(*store_, pid_, one(6))->base_offset, 6);
}

TEST_F(RewriteTest, AcknowledgedRewriteSurvivesACrash) {
  ASSERT_TRUE(compact().ok());
  ASSERT_TRUE(append(*store_, pid_, one(6)).ok());  // after the rewrite's checkpoint: replayed
  reopen();                                          // no close(): a crash
  const auto all = read_all(*store_, pid_, 0);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].first, 1);
  EXPECT_EQ(all[3], std::make_pair(int64_t{6}, with_base(one(6), 6)));
}

TEST_F(RewriteTest, CrashBeforeItsCheckpointServesTheOriginalBatches) {
  ASSERT_TRUE(store_->close().ok());
  reopen();
  const auto cp = dir_.path() / "checkpoint";
  std::filesystem::copy_file(cp, dir_.path() / "checkpoint.before");
  ASSERT_TRUE(compact().ok());
  ASSERT_TRUE(append(*store_, pid_, one(6)).ok());
  store_.reset();  // crash; then the rewrite's checkpoint "never reached the disk"
  std::filesystem::rename(dir_.path() / "checkpoint.before", cp);
  store_ = open_store(small_options(dir_.path()));
  ASSERT_NE(store_, nullptr);
  const auto all = read_all(*store_, pid_, 0);
  ASSERT_EQ(all.size(), 7u);  // the rewrite entries were not replayed as appends
  for (uint8_t i = 0; i < 7; ++i) EXPECT_EQ(all[i].second, with_base(one(i), i));
  EXPECT_EQ(append(*store_, pid_, one(7))->base_offset, 7);
}

TEST_F(RewriteTest, WholeLogRebuildServesTheOriginalBatches) {
  ASSERT_TRUE(compact().ok());
  ASSERT_TRUE(store_->close().ok());
  std::filesystem::remove(dir_.path() / "checkpoint");
  reopen();
  expect_original(*store_);
  EXPECT_EQ(append(*store_, pid_, one(6))->base_offset, 6);
}

TEST_F(RewriteTest, ChangedRangeIsAConflict) {
  // `from` is not a batch boundary any more (never was here).
  EXPECT_EQ(rewrite(*store_, pid_, 0, 7, {}).code(), StatusCode::kConflict);
  ASSERT_TRUE(delete_records(*store_, pid_, 2).ok());
  EXPECT_EQ(compact().code(), StatusCode::kConflict);
  ASSERT_TRUE(delete_partition(*store_, pid_).ok());
  EXPECT_EQ(compact().code(), StatusCode::kNotFound);
}

TEST_F(RewriteTest, BadBatchesAreRefusedAndNothingChanges) {
  // Outside the range, out of order, and emptying the whole partition.
  EXPECT_EQ(rewrite(*store_, pid_, 0, 3, {with_base(one(1), 4)}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(rewrite(*store_, pid_, 0, 5, {with_base(one(1), 3), with_base(one(1), 1)}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(rewrite(*store_, pid_, 0, 6, {}).code(), StatusCode::kInvalidArgument);
  auto corrupt = with_base(one(1), 1);
  corrupt.back() ^= std::byte{1};
  EXPECT_EQ(rewrite(*store_, pid_, 0, 5, {corrupt}).code(), StatusCode::kCorruption);
  expect_original(*store_);
}

TEST(RewriteRetentionTest, RetentionNeverDeletesARetainedPartitionsSegments) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.retention_bytes = 2 * 65536;
  o.retention_check_interval_ms = 1;  // a pass after every group
  auto store = open_store(o);
  const auto pids = create(*store, 2);
  const PartitionId kept = pids[0], other = pids[1];
  store->set_retained(kept, true);
  ASSERT_TRUE(append(*store, kept, one(7)).ok());  // offset 0, in segment 0
  ASSERT_TRUE(append(*store, kept, one(8)).ok());  // offset 1
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(append(*store, other, one(1, 30000)).ok());
  // Segment 0 holds retained data: it stays, and (segments go oldest first) so does the rest.
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "commitlog" / "00000000000000000000"));
  EXPECT_EQ(read_one(*store, kept, 0), with_base(one(7), 0));

  // Copied forward by a rewrite, its old segments are free to go -- the start offset stays.
  ASSERT_TRUE(rewrite(*store, kept, 0, 2, {with_base(one(7), 0), with_base(one(8), 1)}).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(append(*store, other, one(1, 30000)).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "commitlog" / "00000000000000000000"));
  EXPECT_GT(store->offsets(other)->log_start_offset, 0);
  EXPECT_EQ(store->offsets(kept)->log_start_offset, 0);
  const auto all = read_all(*store, kept, 0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].second, with_base(one(7), 0));
  EXPECT_EQ(all[1].second, with_base(one(8), 1));
}

}  // namespace
}  // namespace rokka::storage::test
