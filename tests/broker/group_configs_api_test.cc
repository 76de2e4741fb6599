// GROUP config resources (Kafka 4): IncrementalAlterConfigs / AlterConfigs / DescribeConfigs
// on a consumer group's consumer.session.timeout.ms and consumer.heartbeat.interval.ms,
// through raw frames on an in-process broker. A value is checked against the broker's
// group.consumer.* bounds (INVALID_CONFIG), reported with source GROUP_CONFIG (8) or
// DEFAULT_CONFIG (5), survives a restart, and reaches the group's heartbeats.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/consumer_group.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int8_t kGroup = 32;
constexpr int8_t kGroupConfigSource = 8;
constexpr int8_t kDefaultSource = 5;
constexpr int8_t kSet = 0;
constexpr int8_t kDelete = 1;
constexpr int8_t kAppend = 2;

int16_t err(ErrorCode e) { return static_cast<int16_t>(e); }

using Entry = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;

struct Op {
  std::string name;
  int8_t op;
  std::optional<std::string> value;
};

// One GROUP resource changed; its error code and message.
std::pair<int16_t, std::string> alter(WireClient& c, std::string_view group, const std::vector<Op>& ops,
                                      bool validate_only = false) {
  protocol::IncrementalAlterConfigsRequest req;
  req.validate_only = validate_only;
  auto& res = req.resources.emplace_back();
  res.resource_type = kGroup;
  res.resource_name = group;
  for (const Op& o : ops)
    res.configs.push_back({o.name, o.op, o.value ? std::optional<std::string_view>(*o.value) : std::nullopt});
  auto resp = c.call<protocol::IncrementalAlterConfigsResponse>(req, 1);
  EXPECT_TRUE(resp);
  if (!resp) return {-1, ""};
  EXPECT_EQ(resp->responses.at(0).resource_type, kGroup);
  EXPECT_EQ(resp->responses.at(0).resource_name, group);
  return {rokka::protocol::to_int(resp->responses.at(0).error_code), resp->responses.at(0).error_message.value_or("")};
}

std::map<std::string, Entry> describe(WireClient& c, std::string_view group) {
  protocol::DescribeConfigsRequest req;
  req.resources.push_back({kGroup, group, std::nullopt});
  req.include_synonyms = true;
  auto resp = c.call<protocol::DescribeConfigsResponse>(req, 4);
  EXPECT_TRUE(resp);
  std::map<std::string, Entry> out;
  if (!resp) return out;
  EXPECT_EQ(resp->results.at(0).error_code, ErrorCode::kNone);
  for (auto& e : resp->results.at(0).configs) out[e.name] = e;
  return out;
}

TEST(GroupConfigsApiTest, SetDescribeDeleteWithKafkasBoundsAndSources) {
  InProcessBroker b;
  WireClient c(b.port());

  // A group nobody has used yet has its configs: the broker's values, as defaults.
  auto configs = describe(c, "g");
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs["consumer.session.timeout.ms"].value, "45000");
  EXPECT_EQ(configs["consumer.session.timeout.ms"].config_source, kDefaultSource);
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].value, "5000");

  ASSERT_EQ(alter(c, "g", {{"consumer.session.timeout.ms", kSet, "50000"},
                           {"consumer.heartbeat.interval.ms", kSet, "6000"}}).first, 0);
  configs = describe(c, "g");
  EXPECT_EQ(configs["consumer.session.timeout.ms"].value, "50000");
  EXPECT_EQ(configs["consumer.session.timeout.ms"].config_source, kGroupConfigSource);
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].value, "6000");
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].config_source, kGroupConfigSource);
  // Another group keeps the broker's.
  EXPECT_EQ(describe(c, "other")["consumer.session.timeout.ms"].value, "45000");

  // Outside group.consumer.{min,max}.session.timeout.ms (45000..60000), not a number, an
  // unknown key, APPEND on an integer: INVALID_CONFIG, and nothing changes.
  auto [code, message] = alter(c, "g", {{"consumer.session.timeout.ms", kSet, "10000"}});
  EXPECT_EQ(code, err(ErrorCode::kInvalidConfig));
  EXPECT_NE(message.find("group.consumer.min.session.timeout.ms"), std::string::npos) << message;
  EXPECT_EQ(alter(c, "g", {{"consumer.heartbeat.interval.ms", kSet, "60001"}}).first, err(ErrorCode::kInvalidConfig));
  EXPECT_EQ(alter(c, "g", {{"consumer.heartbeat.interval.ms", kSet, "abc"}}).first, err(ErrorCode::kInvalidConfig));
  EXPECT_EQ(alter(c, "g", {{"consumer.nothing.ms", kSet, "1"}}).first, err(ErrorCode::kInvalidConfig));
  EXPECT_EQ(alter(c, "g", {{"consumer.heartbeat.interval.ms", kAppend, "1"}}).first, err(ErrorCode::kInvalidConfig));
  // validate_only checks and stores nothing.
  EXPECT_EQ(alter(c, "g", {{"consumer.heartbeat.interval.ms", kSet, "7000"}}, /*validate_only=*/true).first, 0);
  configs = describe(c, "g");
  EXPECT_EQ(configs["consumer.session.timeout.ms"].value, "50000");
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].value, "6000");

  // DELETE goes back to the broker's value.
  ASSERT_EQ(alter(c, "g", {{"consumer.session.timeout.ms", kDelete, std::nullopt}}).first, 0);
  configs = describe(c, "g");
  EXPECT_EQ(configs["consumer.session.timeout.ms"].value, "45000");
  EXPECT_EQ(configs["consumer.session.timeout.ms"].config_source, kDefaultSource);
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].value, "6000");
  EXPECT_EQ(alter(c, "", {{"consumer.session.timeout.ms", kSet, "50000"}}).first, err(ErrorCode::kInvalidRequest));
}

TEST(GroupConfigsApiTest, TheGroupsHeartbeatIntervalReachesItsMembersAndSurvivesARestart) {
  testutil::TempDir dir;
  const InProcessBroker::Overrides same_dir = {{"log.dirs", dir.path().string()}};
  auto join = [](WireClient& c, std::string_view group) {
    protocol::ConsumerGroupHeartbeatRequest req;
    req.group_id = group;
    const std::string id = "member-of-" + std::string(group);
    req.member_id = id;
    req.member_epoch = 0;
    req.rebalance_timeout_ms = 30000;
    std::vector<std::string_view> topics{"t"};
    req.subscribed_topic_names = topics;
    req.topic_partitions.emplace();  // none owned: "(re-)joining"
    std::optional<protocol::ConsumerGroupHeartbeatResponse> resp;
    EXPECT_TRUE(testutil::eventually([&] {
      resp = c.call<protocol::ConsumerGroupHeartbeatResponse>(req, 1);
      return !resp || resp->error_code != ErrorCode::kCoordinatorLoadInProgress;
    }));
    EXPECT_TRUE(resp);
    EXPECT_EQ(resp.value_or(protocol::ConsumerGroupHeartbeatResponse{}).error_code, ErrorCode::kNone);
    return resp.value_or(protocol::ConsumerGroupHeartbeatResponse{}).heartbeat_interval_ms;
  };
  {
    InProcessBroker b(same_dir);
    WireClient c(b.port());
    ASSERT_EQ(alter(c, "slow", {{"consumer.heartbeat.interval.ms", kSet, "12000"}}).first, 0);
    EXPECT_EQ(join(c, "slow"), 12000);
    EXPECT_EQ(join(c, "plain"), 5000);
  }
  InProcessBroker restarted(same_dir);
  WireClient c(restarted.port());
  auto configs = describe(c, "slow");
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].value, "12000");
  EXPECT_EQ(configs["consumer.heartbeat.interval.ms"].config_source, kGroupConfigSource);
  EXPECT_EQ(join(c, "slow"), 12000);
}

}  // namespace
}  // namespace rokka
