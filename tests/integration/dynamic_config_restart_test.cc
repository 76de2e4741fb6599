// Dynamic broker configs are broker state: once AlterConfigs is answered they survive
// kill -9 of build/rokka, per broker and as the cluster default, and a deleted one
// stays deleted.
#include <gtest/gtest.h>

#include <map>

#include "protocol/messages/alter_configs.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::RokkaProcess;
using testutil::TempDir;
using testutil::WireClient;

constexpr int8_t kBroker = 4;

// The dynamic values (source 2 or 3) DescribeConfigs reports for a broker resource.
std::map<std::string, std::pair<std::string, int8_t>> dynamic_values(WireClient& c, std::string_view name,
                                                                     int32_t cid) {
  protocol::DescribeConfigsRequest req;
  req.resources.push_back({kBroker, name, std::nullopt});
  c.send(req, 2, cid);
  auto resp = c.receive<protocol::DescribeConfigsResponse>(2, cid);
  EXPECT_TRUE(resp);
  std::map<std::string, std::pair<std::string, int8_t>> out;
  if (!resp) return out;
  EXPECT_EQ(resp->results.at(0).error_code, ErrorCode::kNone);
  for (const auto& e : resp->results.at(0).configs)
    if (e.config_source == 2 || e.config_source == 3) out[e.name] = {e.value.value_or("null"), e.config_source};
  return out;
}

int16_t alter(WireClient& c, std::string_view name, std::string_view key, std::string_view value, int32_t cid) {
  protocol::AlterConfigsRequest req;
  auto& res = req.resources.emplace_back();
  res.resource_type = kBroker;
  res.resource_name = name;
  res.configs.push_back({key, value});
  c.send(req, 1, cid);
  auto resp = c.receive<protocol::AlterConfigsResponse>(1, cid);
  return resp ? rokka::protocol::to_int(resp->responses.at(0).error_code) : -999;
}

TEST(DynamicConfigRestartTest, DynamicBrokerConfigsSurviveKillNine) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"broker.id", "3"}});
  broker.start();
  {
    WireClient c(broker.port());
    ASSERT_EQ(alter(c, "3", "sasl.kerberos.min.time.before.relogin", "58000", 1), 0);
    ASSERT_EQ(alter(c, "", "log.cleaner.threads", "2", 2), 0);
    // Set, then deleted incrementally: must not come back.
    protocol::IncrementalAlterConfigsRequest inc;
    auto& res = inc.resources.emplace_back();
    res.resource_type = kBroker;
    res.resource_name = "3";
    res.configs = {{"num.io.threads", 0, std::string_view("12")}};
    c.send(inc, 1, 3);
    ASSERT_TRUE(c.receive<protocol::IncrementalAlterConfigsResponse>(1, 3));
    res.configs = {{"num.io.threads", 1, std::nullopt}};
    c.send(inc, 1, 4);
    auto deleted = c.receive<protocol::IncrementalAlterConfigsResponse>(1, 4);
    ASSERT_TRUE(deleted);
    ASSERT_EQ(deleted->responses.at(0).error_code, ErrorCode::kNone);
  }
  broker.kill9();
  broker.start();
  WireClient c(broker.port());
  using Values = std::map<std::string, std::pair<std::string, int8_t>>;
  EXPECT_EQ(dynamic_values(c, "3", 5), (Values{{"sasl.kerberos.min.time.before.relogin", {"58000", 2}},
                                               {"log.cleaner.threads", {"2", 3}}}));
  EXPECT_EQ(dynamic_values(c, "", 6), (Values{{"log.cleaner.threads", {"2", 3}}}));
}

}  // namespace
}  // namespace rokka
