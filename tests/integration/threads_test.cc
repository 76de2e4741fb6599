// build/rokka's threads carry their roles in their names (what `top -H` and `ps -L` show),
// and only the store's writer runs in SCHED_BATCH.
#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/threads.h"

namespace rokka {
namespace {

using testutil::RokkaProcess;
using testutil::TempDir;

TEST(ThreadsTest, BrokerThreadsAreNamedByRole) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"num.network.threads", "3"}});
  broker.start();
  const std::vector<std::string> expected = {"rokka-net-0",  "rokka-net-1",   "rokka-net-2", "rokka-writer",
                                             "rokka-flusher", "rokka-cleaner", "rokka-http"};
  // The port accepts once it listens; a thread names itself when it first runs.
  const auto threads = testutil::threads_once_named(broker.pid(), expected);
  for (const auto& name : expected) ASSERT_EQ(threads.count(name), 1u) << name;
  EXPECT_EQ(threads.count("rokka-net-3"), 0u) << "num.network.threads=3";
  EXPECT_EQ(sched_getscheduler(threads.find("rokka-writer")->second), SCHED_BATCH);
  EXPECT_EQ(sched_getscheduler(threads.find("rokka-net-0")->second), SCHED_OTHER);
  EXPECT_EQ(broker.stop(), 0) << broker.log_tail();
}

}  // namespace
}  // namespace rokka
