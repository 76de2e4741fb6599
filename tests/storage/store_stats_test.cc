// Store::stats(), what /metrics exports of the store: one group-commit observation per
// drained group with its records and entry bytes, the segments and bytes retention
// deleted, and the page-cache window the store keeps (store.pagecache.retain.bytes).
#include <gtest/gtest.h>

#include <atomic>

#include "storage/count_histogram.h"
#include "storage/format.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/wait.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

constexpr int64_t kMiB = 1 << 20;

uint64_t count(const CountHistogram& h) {
  uint64_t n = 0;
  for (size_t i = 0; i <= CountHistogram::kBounds; ++i) n += h.bucket(i);
  return n;
}

TEST(CountHistogramTest, BoundsDoubleFromTheFirstAndTheLastSlotTakesTheRest) {
  CountHistogram h(4096);
  EXPECT_EQ(h.bound(0), 4096u);
  EXPECT_EQ(h.bound(CountHistogram::kBounds - 1), uint64_t{4096} << 15);
  h.observe(0);
  h.observe(4096);      // at a bound: that bucket
  h.observe(4097);      // just past it: the next
  h.observe(1u << 30);  // past every bound
  EXPECT_EQ(h.bucket(0), 2u);
  EXPECT_EQ(h.bucket(1), 1u);
  EXPECT_EQ(h.bucket(CountHistogram::kBounds), 1u);
  EXPECT_EQ(h.sum(), 4096u + 4097u + (1u << 30));
}

TEST(StoreStatsTest, OneAppendCallIsOneGroupCommitWithItsRecordsAndEntryBytes) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  const auto pids = create(*store, 2);
  ASSERT_EQ(count(*store->stats().group_commit_records), 0u) << "creating partitions appends no entry";

  std::vector<AppendRequest> reqs;
  std::vector<std::vector<std::byte>> batches;
  for (int i = 0; i < 3; ++i) batches.push_back(make_batch({.records = 5, .value_bytes = 100}));
  int64_t entry_bytes = 0;
  for (int i = 0; i < 3; ++i) {
    reqs.push_back({.partition = pids[static_cast<size_t>(i % 2)], .batch = batches[static_cast<size_t>(i)]});
    entry_bytes += static_cast<int64_t>(batches[static_cast<size_t>(i)].size()) + format::kEntryHeaderSize;
  }
  for (const auto& r : append_all(*store, reqs)) ASSERT_TRUE(r.ok()) << r.status().to_string();

  const StoreStats stats = store->stats();
  EXPECT_EQ(count(*stats.group_commit_records), 1u);
  EXPECT_EQ(stats.group_commit_records->sum(), 15u);
  EXPECT_EQ(stats.group_commit_records->bucket(4), 1u);  // 15 records: the bucket up to 16
  EXPECT_EQ(count(*stats.group_commit_bytes), 1u);
  EXPECT_EQ(stats.group_commit_bytes->sum(), static_cast<uint64_t>(entry_bytes));

  // A second call, a second group; a refused batch appends nothing and is not counted.
  ASSERT_TRUE(append(*store, pids[0], make_batch({.records = 2})).ok());
  auto bad = make_batch({});
  bad.back() ^= std::byte{1};  // CRC mismatch
  EXPECT_FALSE(append(*store, pids[0], bad).ok());
  EXPECT_EQ(count(*store->stats().group_commit_records), 2u);
  EXPECT_EQ(store->stats().group_commit_records->sum(), 17u);
}

TEST(StoreStatsTest, RetentionCountsTheSegmentsItDeletesAndTheirBytes) {
  TempDir dir;
  std::atomic<int64_t> now{1'000'000};
  auto o = small_options(dir.path());
  o.retention_ms = 60'000;
  o.retention_check_interval_ms = 1;
  o.clock_ms = [&] { return now.load(); };
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  const auto big = make_batch({.value_bytes = 30000});  // two per 64 KiB segment
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(append(*store, pid, big).ok());  // segments 0 and 1 full
  EXPECT_EQ(store->stats().retention_deleted_segments, 0);
  EXPECT_EQ(store->stats().retention_deleted_bytes, 0);

  now += 61'000;
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(append(*store, pid, big).ok());  // segment 2
  // The writer runs a retention pass every millisecond (steady clock), woken by its timer.
  EXPECT_TRUE(testutil::eventually([&] { return store->stats().retention_deleted_segments >= 2; }));
  EXPECT_EQ(count_files(dir.path() / "commitlog"), 1u);
  EXPECT_EQ(store->stats().retention_deleted_segments, 2);
  EXPECT_EQ(store->stats().retention_deleted_bytes, 2 * o.segment_bytes);
}

StoreOptions window_options(const TempDir& dir, int64_t retain) {
  StoreOptions o;
  o.dir = dir.path();
  o.segment_bytes = 16 * kMiB;
  o.max_append_bytes = 2 * kMiB;
  o.flush_mode = FlushMode::kSync;
  o.page_cache_retain_bytes = retain;
  return o;
}

// Appends `n` ~1 MiB batches (each synced); returns the log bytes they take, padding included.
int64_t write_mib(Store& store, PartitionId pid, int n) {
  int64_t end = 0;
  for (int i = 0; i < n; ++i) {
    const auto batch = make_batch({.records = 16, .value_bytes = 65000});
    EXPECT_TRUE(append(store, pid, batch).ok());
    const int64_t entry = static_cast<int64_t>(batch.size()) + format::kEntryHeaderSize;
    if (end % (16 * kMiB) + entry > 16 * kMiB) end += 16 * kMiB - end % (16 * kMiB);
    end += entry;
  }
  return end;
}

TEST(StoreStatsTest, PageCacheWindowIsTheRetainedTailOfTheLog) {
  TempDir dir;
  auto store = open_store(window_options(dir, 4 * kMiB));
  const PartitionId pid = create(*store, 1)[0];
  EXPECT_EQ(store->stats().page_cache_log_bytes, 0);
  const int64_t end = write_mib(*store, pid, 40);  // 40 MiB over three segments
  // Dropping runs in 8 MiB steps cut at 2 MiB boundaries: at least the newest 4 MiB are
  // kept, never more than 4 + 8 + 2 MiB.
  const int64_t window = store->stats().page_cache_log_bytes;
  EXPECT_GE(window, 4 * kMiB);
  EXPECT_LE(window, 14 * kMiB);
  EXPECT_LT(window, end);
  // Index chunks were handed out (and pre-faulted ahead): the index share is non-zero.
  EXPECT_GE(store->stats().page_cache_index_bytes, 4096);
}

TEST(StoreStatsTest, PageCacheWindowWithMinusOneIsTheWholeLog) {
  TempDir dir;
  auto store = open_store(window_options(dir, -1));
  const PartitionId pid = create(*store, 1)[0];
  const int64_t end = write_mib(*store, pid, 20);
  EXPECT_EQ(store->stats().page_cache_log_bytes, end);
}

}  // namespace
// Issue 22: a partition's first index chunk is 256 bytes (8 units), not a 4 KiB page, so
// 2,000 partitions holding one batch each keep 500 KiB of index (125 pages), not 2,000
// pages (7.8 MiB). The index window counts the chunks handed out and the 1 MiB
// pre-faulted ahead of them.
TEST(StoreStatsTest, PartitionsHoldingABatchEachShareIndexPages) {
  TempDir dir;
  StoreOptions o;  // the default index geometry
  o.dir = dir.path();
  o.segment_bytes = 4 * kMiB;
  o.max_append_bytes = kMiB;
  o.index_file_chunks = 1024;  // 4 MiB index files
  auto store = open_store(o);
  const auto pids = create(*store, 2000);
  std::vector<AppendRequest> reqs;
  const auto batch = make_batch({.value_bytes = 10});
  for (PartitionId pid : pids) reqs.push_back({pid, batch});
  for (const auto& r : append_all(*store, reqs)) ASSERT_TRUE(r.ok());
  EXPECT_EQ(store->stats().page_cache_index_bytes, kMiB);  // 125 chunks used, 256 pre-faulted
  EXPECT_EQ(count_files(dir.path() / "index"), 1u);
  for (PartitionId pid : {pids.front(), pids.back()}) EXPECT_EQ(read_one(*store, pid, 0), with_base(batch, 0));
}

}  // namespace rokka::storage::test
