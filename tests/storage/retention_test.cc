// Retention deletes whole oldest segments by size and by age, moves each partition's
// log start offset, and never invalidates a slice a reader still holds.
#include <gtest/gtest.h>

#include <atomic>

#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

size_t segments(const TempDir& dir) { return count_files(dir.path() / "commitlog"); }

// ~30 KiB batches: two per 64 KiB segment.
std::vector<std::byte> big(uint8_t fill) { return make_batch({.value_bytes = 30000, .fill = fill}); }

TEST(RetentionTest, BySizeDeletesOldestSegmentsAndMovesStartOffsets) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.retention_bytes = 3 * 65536;
  o.retention_check_interval_ms = 1;  // a pass after every group
  auto store = open_store(o);
  const auto pids = create(*store, 2);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(append(*store, pids[i % 2], big(static_cast<uint8_t>(i))).ok());
  ASSERT_TRUE(append(*store, pids[0], make_batch({})).ok());  // one more group: a retention pass
  // 10 batches = 5 full segments + the active one; keep >= 3 segments' worth
  EXPECT_LE(segments(dir), 4u);
  const auto p0 = *store->offsets(pids[0]);
  EXPECT_GT(p0.log_start_offset, 0);
  EXPECT_EQ(p0.next_offset, 6);
  EXPECT_EQ(store->read(pids[0], p0.log_start_offset - 1, 1).status().code(), StatusCode::kOutOfRange);
  auto first = store->read(pids[0], p0.log_start_offset, 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(format::batch::i64(first->batches[0].bytes, 0), p0.log_start_offset);
}

TEST(RetentionTest, ByAgeDeletesSegmentsOlderThanRetentionMs) {
  TempDir dir;
  std::atomic<int64_t> now{1'000'000};
  auto o = small_options(dir.path());
  o.retention_ms = 60'000;
  o.retention_check_interval_ms = 1;
  o.clock_ms = [&] { return now.load(); };
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(append(*store, pid, big(1)).ok());  // segments 0 and 1 full
  EXPECT_EQ(segments(dir), 2u);
  now += 61'000;
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(append(*store, pid, big(2)).ok());  // new segment 2
  ASSERT_TRUE(append(*store, pid, make_batch({})).ok());
  // segments 0 and 1 last took data before the clock jump: both aged out; the
  // active segment 2 stays
  EXPECT_EQ(segments(dir), 1u);
  EXPECT_EQ(store->offsets(pid)->log_start_offset, 4);
  EXPECT_EQ(store->offsets(pid)->next_offset, 7);
}

TEST(RetentionTest, PartitionEmptiedByRetentionKeepsItsNextOffsetEvenWithoutCheckpoint) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.retention_bytes = 65536;
  o.retention_check_interval_ms = 1;
  PartitionId a;
  {
    auto store = open_store(o);
    const auto pids = create(*store, 2);
    a = pids[0];
    ASSERT_TRUE(append(*store, a, big(1)).ok());
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(append(*store, pids[1], big(2)).ok());
    EXPECT_EQ(store->offsets(a)->log_start_offset, 1);
    EXPECT_EQ(store->offsets(a)->next_offset, 1);
    ASSERT_TRUE(store->close().ok());
  }
  std::filesystem::remove(dir.path() / "checkpoint");  // rebuild finds no entry of `a`
  auto store = open_store(o);
  EXPECT_EQ(store->offsets(a)->next_offset, 1);
  EXPECT_EQ(append(*store, a, make_batch({}))->base_offset, 1);
}

TEST(RetentionTest, HeldSliceStaysValidAfterItsSegmentIsDeleted) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.retention_bytes = 65536;
  o.retention_check_interval_ms = 1;
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  const auto first = big(0x11);
  ASSERT_TRUE(append(*store, pid, first).ok());
  auto held = store->read(pid, 0, 1);
  ASSERT_TRUE(held.ok());
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(append(*store, pid, big(0x22)).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "commitlog" / format::segment_name(0)));
  EXPECT_EQ(store->read(pid, 0, 1).status().code(), StatusCode::kOutOfRange);
  const auto bytes = held->batches[0].bytes;
  EXPECT_EQ(std::vector<std::byte>(bytes.begin(), bytes.end()), with_base(first, 0));
}

}  // namespace
}  // namespace rokka::storage::test
