// A failed fsync puts the store in read-only mode for good: the failing append is
// not acknowledged, no later append or meta write succeeds, reads keep working.
#include <gtest/gtest.h>

#include "tests/storage/store_fixture.h"
#include "tests/testutil/faulty_file_system.h"

namespace rokka::storage::test {
namespace {

using testutil::FaultyFileSystem;
using testutil::make_batch;
using testutil::TempDir;

TEST(FaultTest, FailedFsyncInSyncModeFailsTheAppendAndEveryLaterOne) {
  TempDir dir;
  FaultyFileSystem faulty;
  auto o = small_options(dir.path());
  o.fs = &faulty;
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  ASSERT_TRUE(append(*store, pid, make_batch({})).ok());
  faulty.fail_sync = true;
  auto failed = append(*store, pid, make_batch({}));
  EXPECT_EQ(failed.status().code(), StatusCode::kIoError);
  faulty.fail_sync = false;  // the disk "recovers": the store must not believe it
  for (int i = 0; i < 3; ++i) EXPECT_EQ(append(*store, pid, make_batch({})).status().code(), StatusCode::kReadOnly);
  EXPECT_FALSE(meta_write(*store, {{"o/x", "1"}}).ok());
  EXPECT_FALSE(delete_records(*store, pid, 1).ok());
  EXPECT_EQ(store->offsets(pid)->next_offset, 1);  // the unacknowledged batch was never published
  EXPECT_FALSE(read_one(*store, pid, 0).empty());
  EXPECT_FALSE(store->close().ok());
}

TEST(FaultTest, FailedFlushInAsyncModeMakesTheStoreReadOnly) {
  TempDir dir;
  FaultyFileSystem faulty;
  auto o = small_options(dir.path());
  o.fs = &faulty;
  o.flush_mode = FlushMode::kAsync;
  o.flush_interval_ms = 3600000;
  o.flush_interval_messages = 3;  // the third message triggers the flush (deterministic)
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  ASSERT_TRUE(append(*store, pid, make_batch({})).ok());
  faulty.fail_sync = true;
  ASSERT_TRUE(append(*store, pid, make_batch({})).ok());  // async: acknowledged once written
  EXPECT_EQ(append(*store, pid, make_batch({})).status().code(), StatusCode::kIoError);
  faulty.fail_sync = false;
  EXPECT_EQ(append(*store, pid, make_batch({})).status().code(), StatusCode::kReadOnly);
  EXPECT_EQ(store->offsets(pid)->next_offset, 2);
}

TEST(FaultTest, FailedWriteFailsTheAppend) {
  TempDir dir;
  FaultyFileSystem faulty;
  auto o = small_options(dir.path());
  o.fs = &faulty;
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  ASSERT_TRUE(append(*store, pid, make_batch({})).ok());
  faulty.fail_write = true;
  EXPECT_FALSE(append(*store, pid, make_batch({})).ok());
  faulty.fail_write = false;
  EXPECT_EQ(append(*store, pid, make_batch({})).status().code(), StatusCode::kReadOnly);
}

TEST(FaultTest, SyncModeGroupCommitSharesOneFsync) {
  TempDir dir;
  FaultyFileSystem faulty;
  auto o = small_options(dir.path());
  o.fs = &faulty;
  auto store = open_store(o);
  const auto pid = create(*store, 1)[0];
  const auto b = make_batch({});
  std::vector<AppendRequest> reqs(50, AppendRequest{pid, b});
  const int before = faulty.syncs;
  for (auto& r : append_all(*store, reqs)) ASSERT_TRUE(r.ok());
  EXPECT_EQ(faulty.syncs - before, 1);  // one append() call = one group = one fdatasync
}

}  // namespace
}  // namespace rokka::storage::test
