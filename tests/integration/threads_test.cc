// build/rokka's threads carry their roles in their names (what `top -H` and `ps -L` show),
// and only the store's writer runs in SCHED_BATCH.
#include <gtest/gtest.h>
#include <sched.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using testutil::RokkaProcess;
using testutil::TempDir;

// name -> every thread of `pid` with that name.
std::multimap<std::string, pid_t> threads_of(pid_t pid) {
  std::multimap<std::string, pid_t> out;
  const auto dir = std::filesystem::path("/proc") / std::to_string(pid) / "task";
  for (const auto& task : std::filesystem::directory_iterator(dir)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) out.emplace(name, static_cast<pid_t>(std::stol(task.path().filename().string())));
  }
  return out;
}

TEST(ThreadsTest, BrokerThreadsAreNamedByRole) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"num.network.threads", "3"}});
  broker.start();
  const std::vector<std::string> expected = {"rokka-net-0",  "rokka-net-1",   "rokka-net-2",
                                             "rokka-writer", "rokka-flusher", "rokka-cleaner"};
  // The port accepts once it listens; a thread names itself when it first runs: allow for that.
  auto threads = threads_of(broker.pid());
  const auto all_named = [&] {
    for (const auto& name : expected)
      if (threads.count(name) == 0) return false;
    return true;
  };
  for (int i = 0; i < 1000 && !all_named(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    threads = threads_of(broker.pid());
  }
  for (const auto& name : expected) ASSERT_EQ(threads.count(name), 1u) << name;
  EXPECT_EQ(threads.count("rokka-net-3"), 0u) << "num.network.threads=3";
  EXPECT_EQ(sched_getscheduler(threads.find("rokka-writer")->second), SCHED_BATCH);
  EXPECT_EQ(sched_getscheduler(threads.find("rokka-net-0")->second), SCHED_OTHER);
  EXPECT_EQ(broker.stop(), 0) << broker.log_tail();
}

}  // namespace
}  // namespace rokka
