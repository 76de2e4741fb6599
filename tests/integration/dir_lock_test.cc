// Two brokers on one data directory: the second refuses to start (log.dirs lock),
// and the first keeps serving its data untouched.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using testutil::RokkaProcess;
using testutil::TempDir;

TEST(DirLockIntegrationTest, SecondBrokerOnTheSameLogDirExitsAndTheFirstKeepsServing) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess first(dir / "data");
  first.start();
  {
    testutil::TestProducer p(first.bootstrap(), {{"acks", "all"}});
    ASSERT_EQ(p.produce("locked", 0, std::nullopt, "before"), 0);
    for (auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }

  RokkaProcess second(dir / "data");
  std::string error;
  try {
    second.start();
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  ASSERT_FALSE(error.empty()) << "the second broker started on a locked log dir";
  EXPECT_NE(error.find("exited during start-up"), std::string::npos) << error;
  EXPECT_NE(error.find("in use by another process"), std::string::npos) << error;

  {
    testutil::TestProducer p(first.bootstrap(), {{"acks", "all"}});
    ASSERT_EQ(p.produce("locked", 0, std::nullopt, "after"), 0);
    for (auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }
  auto got = testutil::consume_assigned(first.bootstrap(), "locked", {0}, 0, 2, std::chrono::seconds(30));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].offset, 0);
  EXPECT_EQ(got[0].value, "before");
  EXPECT_EQ(got[1].offset, 1);
  EXPECT_EQ(got[1].value, "after");
  EXPECT_EQ(first.stop(), 0) << first.log_tail();

  // Once the first broker is gone, the directory opens again with both messages.
  second.start();
  EXPECT_EQ(testutil::high_watermarks(second.bootstrap(), "locked", 1), std::vector<int64_t>{2});
  EXPECT_EQ(second.stop(), 0) << second.log_tail();
}

}  // namespace
}  // namespace rokka
