// A failed fsync puts the store in read-only mode for good: the failing append is
// not acknowledged, no later append or meta write succeeds, reads keep working.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "tests/storage/store_fixture.h"
#include "tests/testutil/faulty_file_system.h"

namespace rokka::storage::test {
namespace {

using testutil::FaultyFileSystem;
using testutil::make_batch;
using testutil::TempDir;

class FaultTest : public ::testing::Test {
 protected:
  // Opens a store on the faulty file system with one partition holding one batch.
  void open(void (*tune)(StoreOptions&) = nullptr) {
    auto o = small_options(dir_.path());
    o.fs = &faulty_;
    if (tune) tune(o);
    store_ = open_store(o);
    pid_ = create(*store_, 1)[0];
    ASSERT_TRUE(append_one().ok());  // the segment exists before any fault
  }
  Result<AppendInfo> append_one() { return append(*store_, pid_, make_batch({})); }

  TempDir dir_;
  FaultyFileSystem faulty_;
  std::unique_ptr<Store> store_;
  PartitionId pid_ = 0;
};

TEST_F(FaultTest, FailedFsyncInSyncModeFailsTheAppendAndEveryLaterOne) {
  open();
  faulty_.fail_sync = true;
  EXPECT_EQ(append_one().status().code(), StatusCode::kIoError);
  faulty_.fail_sync = false;  // the disk "recovers": the store must not believe it
  for (int i = 0; i < 3; ++i) EXPECT_EQ(append_one().status().code(), StatusCode::kReadOnly);
  EXPECT_FALSE(meta_write(*store_, {{"o/x", "1"}}).ok());
  EXPECT_FALSE(delete_records(*store_, pid_, 1).ok());
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 1);  // the unacknowledged batch was never published
  EXPECT_FALSE(read_one(*store_, pid_, 0).empty());
  EXPECT_FALSE(store_->close().ok());
}

TEST_F(FaultTest, FailedFlushInAsyncModeMakesTheStoreReadOnly) {
  open([](StoreOptions& o) {
    o.flush_mode = FlushMode::kAsync;
    o.flush_interval_ms = 3600000;
    o.flush_interval_messages = 3;  // the third message triggers the flush (deterministic)
  });
  faulty_.fail_sync = true;
  ASSERT_TRUE(append_one().ok());  // async: acknowledged once written
  EXPECT_EQ(append_one().status().code(), StatusCode::kIoError);
  faulty_.fail_sync = false;
  EXPECT_EQ(append_one().status().code(), StatusCode::kReadOnly);
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 2);
}

TEST_F(FaultTest, FailedPeriodicFlushInAsyncModeMakesTheStoreReadOnly) {
  open([](StoreOptions& o) {
    o.flush_mode = FlushMode::kAsync;
    o.flush_interval_ms = 1;  // the flusher thread syncs every millisecond
  });
  faulty_.fail_sync = true;
  // The failure happens on the flusher thread; the writer learns it at its next group or
  // at its next timer pass, whichever comes first, so the first append to fail gets either
  // the I/O error or the read-only state it caused (both KAFKA_STORAGE_ERROR on the wire),
  // and either names the failed fdatasync.
  Status first_failure;
  for (int i = 0; i < 20000 && first_failure.ok(); ++i) {
    first_failure = append_one().status();
    if (first_failure.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_FALSE(first_failure.ok());
  EXPECT_TRUE(first_failure.code() == StatusCode::kIoError || first_failure.code() == StatusCode::kReadOnly)
      << first_failure.to_string();
  EXPECT_NE(first_failure.to_string().find("injected fdatasync failure"), std::string::npos)
      << first_failure.to_string();
  faulty_.fail_sync = false;
  EXPECT_EQ(append_one().status().code(), StatusCode::kReadOnly);
  EXPECT_EQ(meta_write(*store_, {{"o/x", "1"}}).code(), StatusCode::kReadOnly);
}

// Appends are acknowledged while an fdatasync no acknowledgement waits for is stuck:
// the periodic flush of async mode and a checkpoint's syncs run off the writer thread.
void expect_appends_pass_a_held_sync(FaultyFileSystem& faulty, Store& store, PartitionId pid) {
  faulty.hold_syncs();
  ASSERT_TRUE(append(store, pid, make_batch({})).ok());  // gives the flusher something to sync
  const bool held = faulty.wait_for_held_sync(std::chrono::seconds(30));
  std::promise<bool> acked;
  store.append({AppendRequest{pid, make_batch({})}},
               [&](std::vector<Result<AppendInfo>> r) { acked.set_value(r[0].ok()); });
  auto ack = acked.get_future();
  const bool in_time = ack.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  faulty.release_syncs();
  EXPECT_TRUE(held);
  EXPECT_TRUE(in_time) << "the append waited for the held fdatasync";
  EXPECT_TRUE(ack.get());
  EXPECT_EQ(store.offsets(pid)->next_offset, 3);
  EXPECT_EQ(read_one(store, pid, 2).size(), make_batch({}).size());
}

TEST_F(FaultTest, AsyncAppendsDoNotWaitForThePeriodicFlush) {
  open([](StoreOptions& o) {
    o.flush_mode = FlushMode::kAsync;
    o.flush_interval_ms = 1;
  });
  expect_appends_pass_a_held_sync(faulty_, *store_, pid_);
}

TEST_F(FaultTest, AppendsDoNotWaitForACheckpoint) {
  open([](StoreOptions& o) {
    o.flush_mode = FlushMode::kAsync;
    o.flush_interval_ms = 3600000;
    o.checkpoint_interval_bytes = 1;  // every group checkpoints
  });
  expect_appends_pass_a_held_sync(faulty_, *store_, pid_);
}

TEST_F(FaultTest, FailedWriteFailsTheAppend) {
  open();
  faulty_.fail_write = true;
  EXPECT_FALSE(append_one().ok());
  faulty_.fail_write = false;
  EXPECT_EQ(append_one().status().code(), StatusCode::kReadOnly);
}

TEST_F(FaultTest, SyncModeGroupCommitSharesOneFsync) {
  open();
  const auto b = make_batch({});
  std::vector<AppendRequest> reqs(50, AppendRequest{pid_, b});
  const int before = faulty_.syncs;
  for (auto& r : append_all(*store_, reqs)) ASSERT_TRUE(r.ok());
  EXPECT_EQ(faulty_.syncs - before, 1);  // one append() call = one group = one fdatasync
}

// Index units are stored through a writable mapping, so a new index file reserves
// its blocks when created: on a full disk that is an error the append returns, not
// a SIGBUS at the first store into a hole.
TEST_F(FaultTest, IndexFileThatCannotReserveItsBlocksFailsTheAppend) {
  // The first index file: 16 chunks of 4 units; the partition's first 2 units are in a
  // small chunk (half of chunk 0), the next 60 in chunks 1-15.
  open();
  for (int i = 1; i < 62; ++i) ASSERT_TRUE(append_one().ok()) << i;
  faulty_.fail_allocate = true;  // the 63rd unit needs the second index file
  EXPECT_EQ(append_one().status().code(), StatusCode::kIoError);
  faulty_.fail_allocate = false;
  EXPECT_EQ(append_one().status().code(), StatusCode::kReadOnly);
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 62);  // the failed batch was never published
  EXPECT_FALSE(read_one(*store_, pid_, 61).empty());
}

}  // namespace
}  // namespace rokka::storage::test
