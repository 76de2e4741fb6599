// The data directory lock: a second Store (or broker) on the same directory is
// refused while the first is open, and may open once the first is gone.
#include "storage/dir_lock.h"

#include <gtest/gtest.h>

#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::BatchSpec;
using testutil::TempDir;

TEST(DirLockTest, SecondStoreOnTheSameDirectoryIsRefusedWhileTheFirstIsOpen) {
  TempDir dir;
  auto first = open_store(small_options(dir.path()));
  ASSERT_TRUE(first);
  const PartitionId pid = create(*first, 1)[0];
  ASSERT_TRUE(append(*first, pid, testutil::make_batch(BatchSpec{})).ok());

  auto second = Store::open(small_options(dir.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kIoError);
  EXPECT_NE(second.status().message().find("in use by another process"), std::string::npos)
      << second.status().to_string();

  // The refused open touched nothing: the first store still appends at the next offset.
  auto next = append(*first, pid, testutil::make_batch(BatchSpec{}));
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  EXPECT_EQ(next->base_offset, 1);
}

TEST(DirLockTest, ReopensAfterTheFirstStoreIsClosedAndDestroyed) {
  TempDir dir;
  {
    auto first = open_store(small_options(dir.path()));
    ASSERT_TRUE(first);
    const PartitionId pid = create(*first, 1)[0];
    ASSERT_TRUE(append(*first, pid, testutil::make_batch(BatchSpec{})).ok());
    ASSERT_TRUE(first->close().ok());
  }
  auto again = open_store(small_options(dir.path()));
  ASSERT_TRUE(again);
  auto offsets = again->offsets(0);
  ASSERT_TRUE(offsets.ok());
  EXPECT_EQ(offsets->next_offset, 1);
}

TEST(DirLockTest, AStoreDestroyedWithoutCloseReleasesTheLock) {
  TempDir dir;
  { ASSERT_TRUE(open_store(small_options(dir.path()))); }  // like a crash: no close()
  EXPECT_TRUE(open_store(small_options(dir.path())));
}

TEST(DirLockTest, DifferentDirectoriesDoNotConflict) {
  TempDir a, b;
  auto first = open_store(small_options(a.path()));
  auto second = open_store(small_options(b.path()));
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
}

TEST(DirLockTest, AcquireReportsTheLockedDirectory) {
  TempDir dir;
  auto held = DirLock::acquire(dir.path());
  ASSERT_TRUE(held.ok()) << held.status().to_string();
  auto again = DirLock::acquire(dir.path());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find(dir.path().string()), std::string::npos);
  held->reset();
  EXPECT_TRUE(DirLock::acquire(dir.path()).ok());
}

}  // namespace
}  // namespace rokka::storage::test
