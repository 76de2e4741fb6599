// The store's threads show up under their rokka-<role> names (top -H, ps -L, perf),
// and the writer runs in SCHED_BATCH so that handing it an append does not preempt
// the network thread that did.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <thread>

#include "storage/thread.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/threads.h"

namespace rokka::storage::test {
namespace {

using testutil::TempDir;
using testutil::threads_by_name;
using testutil::threads_once_named;

TEST(ThreadTest, StoreThreadsAreNamedAndOnlyTheWriterIsBatchScheduled) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  ASSERT_TRUE(store);
  const auto threads = threads_once_named(::getpid(), {"rokka-writer", "rokka-flusher"});
  ASSERT_EQ(threads.count("rokka-writer"), 1u);
  ASSERT_EQ(threads.count("rokka-flusher"), 1u);
  EXPECT_EQ(sched_getscheduler(threads.find("rokka-writer")->second), SCHED_BATCH);
  EXPECT_EQ(sched_getscheduler(threads.find("rokka-flusher")->second), SCHED_OTHER);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER) << "the caller's own thread is left alone";

  ASSERT_TRUE(store->close().ok());
  const auto after = threads_by_name();
  EXPECT_EQ(after.count("rokka-writer"), 0u);
  EXPECT_EQ(after.count("rokka-flusher"), 0u);
}

TEST(ThreadTest, LongNamesKeepTheirFirstFifteenCharacters) {
  std::thread t([] {
    name_this_thread("rokka-network-thread-7");
    EXPECT_EQ(threads_by_name().count("rokka-network-t"), 1u);
  });
  t.join();
}

}  // namespace
}  // namespace rokka::storage::test
