// The store's threads show up under their rokka-<role> names (top -H, ps -L, perf),
// and the writer runs in SCHED_BATCH so that handing it an append does not preempt
// the network thread that did.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "storage/thread.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::TempDir;

// This process's threads by the name the kernel shows for them.
std::map<std::string, pid_t> threads_by_name() {
  std::map<std::string, pid_t> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) out[name] = static_cast<pid_t>(std::stol(task.path().filename().string()));
  }
  return out;
}

// A thread names itself once it runs: wait for it rather than race its start.
std::map<std::string, pid_t> threads_once_named(const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto threads = threads_by_name();
  while (!threads.count(name) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    threads = threads_by_name();
  }
  return threads;
}

TEST(ThreadTest, StoreThreadsAreNamedAndOnlyTheWriterIsBatchScheduled) {
  TempDir dir;
  auto store = open_store(small_options(dir.path()));
  ASSERT_TRUE(store);
  threads_once_named("rokka-writer");
  const auto threads = threads_once_named("rokka-flusher");
  ASSERT_TRUE(threads.count("rokka-writer"));
  ASSERT_TRUE(threads.count("rokka-flusher"));
  EXPECT_EQ(sched_getscheduler(threads.at("rokka-writer")), SCHED_BATCH);
  EXPECT_EQ(sched_getscheduler(threads.at("rokka-flusher")), SCHED_OTHER);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER) << "the caller's own thread is left alone";

  ASSERT_TRUE(store->close().ok());
  const auto after = threads_by_name();
  EXPECT_FALSE(after.count("rokka-writer"));
  EXPECT_FALSE(after.count("rokka-flusher"));
}

TEST(ThreadTest, LongNamesKeepTheirFirstFifteenCharacters) {
  std::thread t([] {
    name_this_thread("rokka-network-thread-7");
    const auto threads = threads_by_name();
    EXPECT_TRUE(threads.count("rokka-network-t"));
  });
  t.join();
}

}  // namespace
}  // namespace rokka::storage::test
