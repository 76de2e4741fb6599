// Coordinator tests log at warn and above unless ROKKA_TEST_LOG is set (any value).
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace {

class QuietLogs : public ::testing::Environment {
 public:
  void SetUp() override {
    if (std::getenv("ROKKA_TEST_LOG") == nullptr) spdlog::set_level(spdlog::level::warn);
  }
};

const auto* const kQuietLogs = ::testing::AddGlobalTestEnvironment(new QuietLogs);

}  // namespace
