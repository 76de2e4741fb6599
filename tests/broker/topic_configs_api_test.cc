// Topic configs checked by the registry through the wire: CreateTopics, AlterConfigs and
// IncrementalAlterConfigs answer INVALID_CONFIG for a value the key refuses and change nothing;
// DescribeConfigs shows a topic's own value or the broker's. min.insync.replicas (1 to 32767,
// its default the broker's min.insync.replicas), and a replication factor from
// default.replication.factor, which is still refused above 1.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "protocol/messages/alter_configs.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int8_t kTopic = 2;
constexpr int8_t kDynamicTopic = 1;  // Kafka's config sources
constexpr int8_t kDefault = 5;

using Result = protocol::CreateTopicsResponse::CreatableTopicResult;
using Entry = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;
using Configs = std::vector<std::pair<std::string, std::string>>;

class TopicConfigsApiTest : public ::testing::Test {
 protected:
  explicit TopicConfigsApiTest(InProcessBroker::Overrides overrides = {}) : broker_(std::move(overrides)) {}

  Result create(std::string_view name, const Configs& configs, int16_t replication_factor = 1) {
    protocol::CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = 1;
    t.replication_factor = replication_factor;
    for (const auto& [k, v] : configs) t.configs.push_back({k, std::string_view(v)});
    req.timeout_ms = 30000;
    auto resp = client_.call<protocol::CreateTopicsResponse>(req, 4);
    EXPECT_TRUE(resp);
    return resp ? resp->topics.at(0) : Result{};
  }

  // AlterConfigs v1 (replaces the topic's configs).
  ErrorCode alter(std::string_view topic, const Configs& configs) {
    protocol::AlterConfigsRequest req;
    auto& res = req.resources.emplace_back();
    res.resource_type = kTopic;
    res.resource_name = topic;
    for (const auto& [k, v] : configs) res.configs.push_back({k, std::string_view(v)});
    auto resp = client_.call<protocol::AlterConfigsResponse>(req, 1);
    EXPECT_TRUE(resp);
    return resp ? resp->responses.at(0).error_code : ErrorCode::kUnknownServerError;
  }

  // IncrementalAlterConfigs v1, SET of one key.
  ErrorCode set(std::string_view topic, std::string_view key, std::string_view value) {
    protocol::IncrementalAlterConfigsRequest req;
    auto& res = req.resources.emplace_back();
    res.resource_type = kTopic;
    res.resource_name = topic;
    res.configs.push_back({key, 0, value});
    auto resp = client_.call<protocol::IncrementalAlterConfigsResponse>(req, 1);
    EXPECT_TRUE(resp);
    return resp ? resp->responses.at(0).error_code : ErrorCode::kUnknownServerError;
  }

  std::map<std::string, Entry> describe(std::string_view topic) {
    protocol::DescribeConfigsRequest req;
    req.resources.push_back({kTopic, topic, std::nullopt});
    auto resp = client_.call<protocol::DescribeConfigsResponse>(req, 4);
    EXPECT_TRUE(resp);
    std::map<std::string, Entry> out;
    if (resp)
      for (auto& e : resp->results.at(0).configs) out[e.name] = e;
    return out;
  }

  bool exists(std::string_view topic) {
    protocol::MetadataRequest req;
    req.topics.emplace();
    req.topics->push_back({{}, topic});
    req.allow_auto_topic_creation = false;
    auto resp = client_.call<protocol::MetadataResponse>(req, 9);
    return resp && resp->topics.at(0).error_code == ErrorCode::kNone;
  }

  InProcessBroker broker_;
  WireClient client_{broker_.port()};
};

TEST_F(TopicConfigsApiTest, MinInsyncReplicasBelowOneIsInvalidConfigOnCreate) {
  for (const char* bad : {"0", "-1", "32768", "two"}) {
    const std::string name = std::string("bad-min-isr-") + (bad[0] == '-' ? "neg" : bad);
    const Result r = create(name, {{"min.insync.replicas", bad}});
    EXPECT_EQ(r.error_code, ErrorCode::kInvalidConfig) << bad;
    EXPECT_NE(r.error_message.value_or("").find("min.insync.replicas"), std::string::npos)
        << r.error_message.value_or("(none)");
    EXPECT_FALSE(exists(name)) << bad;
  }
  ASSERT_EQ(create("isr-two", {{"min.insync.replicas", "2"}}).error_code, ErrorCode::kNone);
  ASSERT_EQ(create("isr-max", {{"min.insync.replicas", "32767"}}).error_code, ErrorCode::kNone);
  auto configs = describe("isr-two");
  ASSERT_TRUE(configs.contains("min.insync.replicas"));
  EXPECT_EQ(configs["min.insync.replicas"].value, "2");
  EXPECT_EQ(configs["min.insync.replicas"].config_source, kDynamicTopic);
}

TEST_F(TopicConfigsApiTest, MinInsyncReplicasBelowOneIsInvalidConfigOnAlterAndChangesNothing) {
  ASSERT_EQ(create("orders", {{"min.insync.replicas", "2"}, {"retention.ms", "60000"}}).error_code, ErrorCode::kNone);
  EXPECT_EQ(alter("orders", {{"min.insync.replicas", "0"}}), ErrorCode::kInvalidConfig);
  EXPECT_EQ(set("orders", "min.insync.replicas", "0"), ErrorCode::kInvalidConfig);
  EXPECT_EQ(set("orders", "min.insync.replicas", "-3"), ErrorCode::kInvalidConfig);
  auto configs = describe("orders");
  EXPECT_EQ(configs["min.insync.replicas"].value, "2");
  EXPECT_EQ(configs["retention.ms"].value, "60000");

  EXPECT_EQ(set("orders", "min.insync.replicas", "3"), ErrorCode::kNone);
  EXPECT_EQ(describe("orders")["min.insync.replicas"].value, "3");
}

TEST_F(TopicConfigsApiTest, UncleanLeaderElectionIsAcceptedAndDefaultsToTheBrokerKey) {
  ASSERT_EQ(create("plain", {}).error_code, ErrorCode::kNone);
  auto configs = describe("plain");
  EXPECT_EQ(configs["unclean.leader.election.enable"].value, "false");
  EXPECT_EQ(configs["unclean.leader.election.enable"].config_source, kDefault);
  EXPECT_EQ(set("plain", "unclean.leader.election.enable", "true"), ErrorCode::kNone);
  EXPECT_EQ(set("plain", "unclean.leader.election.enable", "maybe"), ErrorCode::kInvalidConfig);
  EXPECT_EQ(describe("plain")["unclean.leader.election.enable"].value, "true");
}

class TopicConfigsFromBrokerTest : public TopicConfigsApiTest {
 protected:
  TopicConfigsFromBrokerTest()
      : TopicConfigsApiTest({{"min.insync.replicas", "2"}, {"default.replication.factor", "3"}}) {}
};

// A topic without its own min.insync.replicas shows the broker's, as a default.
TEST_F(TopicConfigsFromBrokerTest, MinInsyncReplicasDefaultsToTheBrokerKey) {
  ASSERT_EQ(create("plain", {}).error_code, ErrorCode::kNone);
  auto configs = describe("plain");
  ASSERT_TRUE(configs.contains("min.insync.replicas"));
  EXPECT_EQ(configs["min.insync.replicas"].value, "2");
  EXPECT_EQ(configs["min.insync.replicas"].config_source, kDefault);
}

// default.replication.factor may name more copies than one broker holds (a replication group's
// size, later); a topic asking for it (-1) is still refused, as one asking for 3 is.
TEST_F(TopicConfigsFromBrokerTest, DefaultReplicationFactorAboveOneIsStillRefused) {
  const Result r = create("defaulted", {}, /*replication_factor=*/-1);
  EXPECT_EQ(r.error_code, ErrorCode::kInvalidReplicationFactor);
  EXPECT_FALSE(exists("defaulted"));
  EXPECT_EQ(create("three", {}, 3).error_code, ErrorCode::kInvalidReplicationFactor);
  EXPECT_EQ(create("one", {}, 1).error_code, ErrorCode::kNone);
}

}  // namespace
}  // namespace rokka
