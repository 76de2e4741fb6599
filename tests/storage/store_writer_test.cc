// The seams below the Store facade: recover() on a directory, then a StoreWriter over
// what it recovered, driven with ops the way store.cc submits them; and the OpQueue
// between callers and the writer.
#include "storage/store_writer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "storage/partition_records.h"
#include "storage/recovery.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

// What StoreImpl does before recovery: the file system and clock filled in.
StoreOptions resolved(const std::filesystem::path& dir) {
  StoreOptions o = small_options(dir);
  o.fs = &FileSystem::real();
  o.clock_ms = [] { return int64_t{1'000'000}; };
  return o;
}

// recover() and the objects it opened, as StoreImpl holds them.
struct Opened {
  explicit Opened(const StoreOptions& o) : options(o) {
    auto r = recover(options, partitions);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (r.ok()) recovered = std::move(*r);
  }
  bool ok() const { return recovered.log != nullptr; }
  StoreState state() { return {options, *recovered.log, *recovered.index, *recovered.journal, partitions}; }
  std::unique_ptr<StoreWriter> start_writer() {
    return std::make_unique<StoreWriter>(state(),
                                         StoreWriter::Start{recovered.next_partition, recovered.checkpoint_pos});
  }

  const StoreOptions& options;
  PartitionTable partitions;
  RecoveredStore recovered;
};

std::vector<PartitionId> create(StoreWriter& w, uint32_t n) {
  std::promise<Result<std::vector<PartitionId>>> p;
  w.submit(CreateOp{n, [&](Result<std::vector<PartitionId>> r) { p.set_value(std::move(r)); }});
  auto r = p.get_future().get();
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : std::vector<PartitionId>{};
}

std::vector<Result<AppendInfo>> append(StoreWriter& w, std::vector<AppendRequest> requests) {
  std::promise<std::vector<Result<AppendInfo>>> p;
  std::vector<Status> checked(requests.size());  // store.cc checks batches on the caller's thread
  w.submit(AppendOp{std::move(requests), std::move(checked),
                    [&](std::vector<Result<AppendInfo>> r) { p.set_value(std::move(r)); }});
  return p.get_future().get();
}

class StoreWriterTest : public ::testing::Test {
 protected:
  TempDir dir_;
  StoreOptions options_ = resolved(dir_.path());
};

TEST_F(StoreWriterTest, RecoveringAnEmptyDirectoryCreatesTheStoreAndItsAbortMarker) {
  Opened o(options_);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.recovered.next_partition, 0u);
  EXPECT_EQ(o.recovered.checkpoint_pos.value, 0);
  for (const char* name : {"meta/journal", "commitlog", "index", "checkpoint", "abort"})
    EXPECT_TRUE(std::filesystem::exists(dir_.path() / name)) << name;
}

TEST_F(StoreWriterTest, RecoveryBuildsThePartitionTableFromTheJournal) {
  {
    auto j = MetaJournal::open(FileSystem::real(), dir_.path() / "meta");
    ASSERT_TRUE(j.ok());
    namespace pr = partition_records;
    ASSERT_TRUE((*j)->append({pr::put_partition(3, 0), pr::put_partition(5, 42), pr::put_next_id(9),
                              {"s/p/not-a-number", "12345678", false}})
                    .ok());
  }
  Opened o(options_);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.recovered.next_partition, 9u);
  EXPECT_NE(o.partitions.live(3), nullptr);
  EXPECT_EQ(o.partitions.get(4), nullptr);
  ASSERT_NE(o.partitions.live(5), nullptr);
  EXPECT_EQ(o.partitions.live(5)->queue.start_offset(), 42);  // its durable floor
  EXPECT_EQ(o.partitions.live(5)->queue.next_offset(), 42);
}

TEST_F(StoreWriterTest, AWriterClosedCleanlyLeavesWhatTheNextRecoveryStartsFrom) {
  LogPosition end;
  {
    Opened o(options_);
    ASSERT_TRUE(o.ok());
    auto w = o.start_writer();
    const auto pids = create(*w, 2);
    ASSERT_EQ(pids, (std::vector<PartitionId>{0, 1}));
    const auto batch = make_batch({.records = 3});
    auto r = append(*w, {{1, batch}, {1, batch}, {7, batch}});
    ASSERT_TRUE(r[0].ok() && r[1].ok());
    EXPECT_EQ(r[0]->base_offset, 0);
    EXPECT_EQ(r[1]->base_offset, 3);
    EXPECT_EQ(r[2].status().code(), StatusCode::kNotFound);  // no partition 7
    EXPECT_EQ(o.partitions.live(1)->queue.next_offset(), 6);  // published before the ack
    ASSERT_TRUE(w->close().ok());
    EXPECT_FALSE(std::filesystem::exists(dir_.path() / "abort"));
    end = o.recovered.log->write_end();
  }
  Opened again(options_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.recovered.next_partition, 2u);
  EXPECT_EQ(again.recovered.checkpoint_pos, end);  // the clean close's checkpoint covers the whole log
  EXPECT_EQ(again.partitions.live(1)->queue.next_offset(), 6);
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "abort"));
}

TEST_F(StoreWriterTest, AWriterDestroyedWithoutCloseLeavesTheAbortMarkerAndRecoveryReplaysTheLog) {
  {
    Opened o(options_);
    ASSERT_TRUE(o.ok());
    auto w = o.start_writer();
    const PartitionId pid = create(*w, 1)[0];
    ASSERT_TRUE(append(*w, {{pid, make_batch({.records = 2})}})[0].ok());
  }  // like a crash
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "abort"));
  Opened again(options_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.partitions.live(0)->queue.next_offset(), 2);  // sync mode: the acked batch was durable
}

TEST_F(StoreWriterTest, AnOpSubmittedAfterCloseCompletesAtOnceWithShutdown) {
  Opened o(options_);
  ASSERT_TRUE(o.ok());
  auto w = o.start_writer();
  ASSERT_TRUE(w->close().ok());
  Status got;
  w->submit(MetaOp{{{"t/a", "1"}}, [&](Status s) { got = s; }});  // runs on this thread
  EXPECT_EQ(got.code(), StatusCode::kShutdown);
  EXPECT_TRUE(w->close().ok());  // a second close answers the first's result
}

TEST_F(StoreWriterTest, TheAppendListenerHearsWhichPartitionsGrewBeforeTheAcks) {
  Opened o(options_);
  ASSERT_TRUE(o.ok());
  auto w = o.start_writer();
  const auto pids = create(*w, 3);
  std::vector<PartitionId> heard;
  w->set_append_listener([&](std::span<const PartitionId> grown) { heard.assign(grown.begin(), grown.end()); });
  const auto batch = make_batch({});
  std::promise<bool> acked;
  w->submit(AppendOp{{{pids[2], batch}, {pids[0], batch}, {pids[2], batch}},
                     std::vector<Status>(3),
                     [&](std::vector<Result<AppendInfo>>) { acked.set_value(!heard.empty()); }});
  EXPECT_TRUE(acked.get_future().get()) << "the listener runs before the acknowledgements";
  EXPECT_EQ(heard, (std::vector<PartitionId>{pids[2], pids[0]}));  // each once, in append order
  ASSERT_TRUE(w->close().ok());
}

TEST_F(StoreWriterTest, ABatchThatFailedTheCallersChecksIsNotStored) {
  Opened o(options_);
  ASSERT_TRUE(o.ok());
  auto w = o.start_writer();
  const PartitionId pid = create(*w, 1)[0];
  const auto batch = make_batch({});
  std::promise<std::vector<Result<AppendInfo>>> p;
  w->submit(AppendOp{{{pid, batch}, {pid, batch}},
                     {Status::corruption("batch CRC mismatch"), Status{}},
                     [&](std::vector<Result<AppendInfo>> r) { p.set_value(std::move(r)); }});
  auto r = p.get_future().get();
  EXPECT_EQ(r[0].status().code(), StatusCode::kCorruption);
  ASSERT_TRUE(r[1].ok());
  EXPECT_EQ(r[1]->base_offset, 0);  // the refused batch took no offset
  ASSERT_TRUE(w->close().ok());
}

TEST(OpQueueTest, APushAfterCloseIsRefusedAndLeavesTheOpToTheCaller) {
  OpQueue q;
  q.close(/*abandon=*/false);
  bool called = false;
  WriterOp op = MetaOp{{}, [&](Status) { called = true; }};
  EXPECT_FALSE(q.push(std::move(op)));
  fail_op(op, Status::shutdown("closed"));
  EXPECT_TRUE(called);
}

TEST(OpQueueTest, TakeReturnsEverythingQueuedAndTheQueuesState) {
  OpQueue q;
  ASSERT_TRUE(q.push(MetaOp{}));
  ASSERT_TRUE(q.push(CreateOp{1, {}}));
  std::vector<WriterOp> ops;
  EXPECT_EQ(q.take(ops, std::chrono::steady_clock::now() + std::chrono::hours(1)), OpQueue::State::kOpen);
  EXPECT_EQ(ops.size(), 2u);
  EXPECT_TRUE(q.empty());
  ops.clear();
  q.close(/*abandon=*/true);
  EXPECT_EQ(q.take(ops, std::chrono::steady_clock::now() + std::chrono::hours(1)), OpQueue::State::kAbandoned);
}

TEST(OpQueueTest, TakeWakesAtTheDeadlineWithNothingQueued) {
  OpQueue q;
  std::vector<WriterOp> ops;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  EXPECT_EQ(q.take(ops, deadline), OpQueue::State::kOpen);
  EXPECT_TRUE(ops.empty());
  EXPECT_GE(std::chrono::steady_clock::now(), deadline);
}

TEST(OpQueueTest, TakeWakesWhenAnOpArrives) {
  OpQueue q;
  std::thread pusher([&] { q.push(MetaOp{}); });
  std::vector<WriterOp> ops;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ops.empty() && std::chrono::steady_clock::now() < deadline) q.take(ops, deadline);
  pusher.join();
  EXPECT_EQ(ops.size(), 1u);
}

}  // namespace
}  // namespace rokka::storage::test
