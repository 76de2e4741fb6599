#include "storage/store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::BatchSpec;
using testutil::make_batch;
using testutil::TempDir;

TEST(StoreTest, AppendAssignsDenseOffsetsAndReadsBackIdenticalBytes) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  const auto pids = create(*store, 2);
  std::vector<std::vector<std::byte>> sent;
  int64_t expect = 0;
  for (int i = 0; i < 20; ++i) {
    sent.push_back(make_batch({.records = 1 + i % 3, .value_bytes = 10 + i}));
    auto r = append(*store, pids[0], sent.back());
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->base_offset, expect);
    expect += 1 + i % 3;
    ASSERT_TRUE(append(*store, pids[1], make_batch({})).ok());  // interleave another partition
  }
  EXPECT_EQ(store->offsets(pids[0])->next_offset, expect);
  auto all = store->read(pids[0], 0, 1 << 20);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->batches.size(), sent.size());
  int64_t base = 0;
  for (size_t i = 0; i < sent.size(); ++i) {
    const auto want = with_base(sent[i], base);
    EXPECT_EQ(std::vector<std::byte>(all->batches[i].bytes.begin(), all->batches[i].bytes.end()), want) << i;
    EXPECT_TRUE(batch_crc_ok(all->batches[i].bytes));
    base += format::batch::i32(sent[i], format::batch::kLastOffsetDelta) + 1;
  }
}

TEST(StoreTest, ReadReturnsFirstBatchWholeEvenWhenLargerThanMaxBytes) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  const auto pid = create(*store, 1)[0];
  const auto big = make_batch({.records = 2, .value_bytes = 4000});
  ASSERT_TRUE(append(*store, pid, big).ok());
  ASSERT_TRUE(append(*store, pid, make_batch({})).ok());
  auto r = store->read(pid, 1, 10);  // offset inside the first batch
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->batches.size(), 1u);
  EXPECT_EQ(r->batches[0].bytes.size(), big.size());
  auto both = store->read(pid, 0, static_cast<int64_t>(big.size()) + 200);
  EXPECT_EQ(both->batches.size(), 2u);
}

TEST(StoreTest, LookupByOffsetAtEveryBoundary) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));  // 4 units per index chunk
  const auto pid = create(*store, 1)[0];
  std::vector<int64_t> bases;
  int64_t next = 0;
  for (int i = 0; i < 13; ++i) {  // crosses several chunk and one segment boundary
    const int records = 1 + i % 4;
    auto r = append(*store, pid, make_batch({.records = records, .value_bytes = 2000}));
    ASSERT_TRUE(r.ok());
    bases.push_back(r->base_offset);
    next += records;
  }
  for (int64_t off = 0; off < next; ++off) {
    const auto b = read_one(*store, pid, off);
    ASSERT_FALSE(b.empty()) << off;
    const int64_t base = format::batch::i64(b, format::batch::kBaseOffset);
    const int64_t last = base + format::batch::i32(b, format::batch::kLastOffsetDelta);
    EXPECT_TRUE(base <= off && off <= last) << off;
    EXPECT_NE(std::find(bases.begin(), bases.end(), base), bases.end());
  }
  auto at_end = store->read(pid, next, 100);
  ASSERT_TRUE(at_end.ok());
  EXPECT_TRUE(at_end->batches.empty());
  EXPECT_EQ(at_end->offsets.next_offset, next);
  EXPECT_EQ(store->read(pid, next + 1, 100).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(store->read(pid, -1, 100).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(store->read(999, 0, 100).status().code(), StatusCode::kNotFound);
}

TEST(StoreTest, LookupByTimestampFindsFirstBatchReachingIt) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  const auto pid = create(*store, 1)[0];
  EXPECT_EQ(store->lookup_timestamp(pid, 0)->offset, -1);
  EXPECT_EQ(store->max_timestamp(pid)->offset, -1);
  // max timestamps per batch: 100, 300, 200 (goes back), 500, 400
  const int64_t ts[] = {100, 300, 200, 500, 400};
  for (int64_t t : ts) ASSERT_TRUE(append(*store, pid, make_batch({.base_timestamp = t, .max_timestamp = t})).ok());
  EXPECT_EQ(store->lookup_timestamp(pid, 50)->offset, 0);
  EXPECT_EQ(store->lookup_timestamp(pid, 100)->offset, 0);
  EXPECT_EQ(store->lookup_timestamp(pid, 101)->offset, 1);
  EXPECT_EQ(store->lookup_timestamp(pid, 250)->offset, 1);  // batch 2 (200) comes after 300
  EXPECT_EQ(store->lookup_timestamp(pid, 301)->offset, 3);
  EXPECT_EQ(store->lookup_timestamp(pid, 450)->timestamp, 500);
  EXPECT_EQ(store->lookup_timestamp(pid, 501)->offset, -1);
  EXPECT_EQ(store->max_timestamp(pid)->offset, 3);
  EXPECT_EQ(store->max_timestamp(pid)->timestamp, 500);
}

TEST(StoreTest, LogAppendTimeStampsBrokerClockAndKeepsCrcValid) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.clock_ms = [] { return int64_t{1'700'000'000'000}; };
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  auto r = append(*store, pid, make_batch({.records = 3}), TimestampType::kLogAppendTime);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log_append_time, 1'700'000'000'000);
  const auto b = read_one(*store, pid, 0);
  EXPECT_EQ(format::batch::i64(b, format::batch::kMaxTimestamp), 1'700'000'000'000);
  EXPECT_NE(format::batch::i16(b, format::batch::kAttributes) & format::batch::kTimestampTypeBit, 0);
  EXPECT_TRUE(batch_crc_ok(b));
  EXPECT_EQ(store->max_timestamp(pid)->timestamp, 1'700'000'000'000);
}

TEST(StoreTest, RejectsBadBatchesOnTheCallerThread) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  const auto pid = create(*store, 1)[0];
  auto bad_crc = make_batch({});
  bad_crc.back() ^= std::byte{1};
  auto bad_len = make_batch({});
  format::put_be(bad_len.data() + format::batch::kLength, 0x7fffffff, 4);
  auto bad_magic = make_batch({});
  bad_magic[format::batch::kMagic] = std::byte{1};
  const std::vector<std::byte> short_one(20);
  const auto too_big = make_batch({.value_bytes = 40000});
  const auto no_sequence = make_batch({.producer_id = 7, .producer_epoch = 0, .base_sequence = -1});
  auto backwards = make_batch({});
  format::put_be(backwards.data() + format::batch::kLastOffsetDelta, 0xffffffff, 4);
  seal_batch_crc(backwards);
  EXPECT_EQ(append(*store, pid, bad_crc).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(append(*store, pid, bad_len).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(append(*store, pid, bad_magic).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(append(*store, pid, short_one).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(append(*store, pid, too_big).status().code(), StatusCode::kTooLarge);
  EXPECT_EQ(append(*store, pid, no_sequence).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(append(*store, pid, backwards).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(append(*store, 77, make_batch({})).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->offsets(pid)->next_offset, 0);  // nothing stored
  EXPECT_EQ(append(*store, pid, make_batch({}))->base_offset, 0);
  EXPECT_TRUE(append(*store, pid, testutil::make_control_batch(7, 0, true)).ok());  // a marker has no sequence
}

TEST(StoreTest, OffsetsDenseAndNeverReusedAcrossCleanReopenAndCrash) {
  TempDir dir;
  const auto o = small_options(dir.path());
  PartitionId pid;
  {
    auto store = open_store(o);
    pid = create(*store, 1)[0];
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(append(*store, pid, make_batch({.records = 2})).ok());
    ASSERT_TRUE(store->close().ok());
  }
  {
    auto store = open_store(o);
    EXPECT_EQ(store->offsets(pid)->next_offset, 10);
    EXPECT_EQ(append(*store, pid, make_batch({}))->base_offset, 10);
    // destroyed without close(): a crash
  }
  auto store = open_store(o);
  EXPECT_EQ(store->offsets(pid)->next_offset, 11);
  EXPECT_EQ(append(*store, pid, make_batch({}))->base_offset, 11);
  for (int64_t off = 0; off < 12; ++off) EXPECT_FALSE(read_one(*store, pid, off).empty()) << off;
}

TEST(StoreTest, DeletedPartitionsStayDeletedAndIdsAreNeverReused) {
  TempDir dir;
  const auto o = small_options(dir.path());
  {
    auto store = open_store(o);
    const auto pids = create(*store, 3);
    ASSERT_TRUE(append(*store, pids[1], make_batch({})).ok());
    ASSERT_TRUE(delete_partition(*store, pids[1]).ok());
    EXPECT_EQ(store->read(pids[1], 0, 10).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(append(*store, pids[1], make_batch({})).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(delete_partition(*store, pids[1]).code(), StatusCode::kNotFound);
  }  // crash
  auto store = open_store(o);
  EXPECT_EQ(store->offsets(1).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store->offsets(0).ok());
  EXPECT_EQ(create(*store, 1)[0], 3u);
}

TEST(StoreTest, DeleteRecordsMovesStartOffsetDurably) {
  TempDir dir;
  const auto o = small_options(dir.path());
  PartitionId pid;
  {
    auto store = open_store(o);
    pid = create(*store, 1)[0];
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(append(*store, pid, make_batch({.records = 5})).ok());
    EXPECT_EQ(delete_records(*store, pid, 21).status().code(), StatusCode::kOutOfRange);
    EXPECT_EQ(*delete_records(*store, pid, 7), 7);
    EXPECT_EQ(*delete_records(*store, pid, 3), 7);  // never moves back
    EXPECT_EQ(store->offsets(pid)->log_start_offset, 7);
    EXPECT_EQ(store->read(pid, 6, 10).status().code(), StatusCode::kOutOfRange);
    auto r = store->read(pid, 7, 10);  // the batch holding 7 starts at 5
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(format::batch::i64(r->batches[0].bytes, 0), 5);
  }  // crash
  auto store = open_store(o);
  EXPECT_EQ(store->offsets(pid)->log_start_offset, 7);
  EXPECT_EQ(*delete_records(*store, pid, -1), 20);  // -1: up to the high watermark
  EXPECT_EQ(store->offsets(pid)->log_start_offset, 20);
}

TEST(StoreTest, AppendListenerHearsWhichPartitionsGrew) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  const auto pids = create(*store, 3);
  std::mutex mu;
  std::vector<PartitionId> heard;
  store->set_append_listener([&](std::span<const PartitionId> grown) {
    std::lock_guard lock(mu);
    heard.insert(heard.end(), grown.begin(), grown.end());
  });
  const auto b = make_batch({});
  auto results = append_all(*store, {{pids[2], b}, {pids[0], b}, {pids[2], b}});
  for (auto& r : results) ASSERT_TRUE(r.ok());
  std::lock_guard lock(mu);
  std::sort(heard.begin(), heard.end());
  EXPECT_EQ(heard, (std::vector<PartitionId>{pids[0], pids[2]}));
}

TEST(StoreTest, MetaStoreWritesAreAtomicAndSurviveCrash) {
  TempDir dir;
  const auto o = small_options(dir.path());
  {
    auto store = open_store(o);
    ASSERT_TRUE(meta_write(*store, {{"t/a", "1"}, {"t/b", "2"}, {"o/x", "9"}}).ok());
    ASSERT_TRUE(meta_write(*store, {{"t/a", "", true}, {"t/c", "3"}}).ok());
  }
  auto store = open_store(o);
  auto t = store->meta().scan("t/");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], (std::pair<std::string, std::string>{"t/b", "2"}));
  EXPECT_EQ(t[1], (std::pair<std::string, std::string>{"t/c", "3"}));
  EXPECT_EQ(store->meta().scan("o/").size(), 1u);
}

TEST(StoreTest, CreatingManyPartitionsCreatesNoFiles) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  create(*store, 1);
  const size_t before = count_files(dir.path());
  const auto pids = create(*store, 20000);
  EXPECT_EQ(pids.back(), 20000u);
  EXPECT_EQ(count_files(dir.path()), before);
  EXPECT_EQ(store->offsets(pids.back())->next_offset, 0);
}

TEST(StoreTest, ConcurrentReadersSeeOnlyPublishedWholeBatches) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.flush_mode = FlushMode::kAsync;
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread reader([&] {
    while (!done) {
      const auto next = store->offsets(pid)->next_offset;
      for (int64_t off = std::max<int64_t>(0, next - 3); off < next; ++off) {
        auto r = store->read(pid, off, 1 << 16);
        if (!r.ok()) {
          ++bad;
          continue;
        }
        for (auto& b : r->batches)
          if (!batch_crc_ok(b.bytes)) ++bad;
      }
    }
  });
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(append(*store, pid, make_batch({.value_bytes = 100})).ok());
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace rokka::storage::test
