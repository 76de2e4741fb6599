// DescribeConfigs / AlterConfigs / IncrementalAlterConfigs on BROKER resources through
// raw frames on an in-process broker: Kafka's dynamic broker configs (accepted, stored,
// described with their source), static ones (refused), and the config sources reported
// for static and default values.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "protocol/messages/alter_configs.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int8_t kTopic = 2;
constexpr int8_t kBroker = 4;
// Kafka's config sources.
constexpr int8_t kDynamicBroker = 2;
constexpr int8_t kDynamicDefault = 3;
constexpr int8_t kStatic = 4;
constexpr int8_t kDefault = 5;

using Entry = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;

class BrokerConfigsApiTest : public ::testing::Test {
 protected:
  // One resource described (v4: synonyms on); its error code and entries by name.
  std::pair<int16_t, std::map<std::string, Entry>> describe(int8_t type, std::string_view name) {
    protocol::DescribeConfigsRequest req;
    req.resources.push_back({type, name, std::nullopt});
    req.include_synonyms = true;
    client_.send(req, 4, ++cid_);
    auto resp = client_.receive<protocol::DescribeConfigsResponse>(4, cid_);
    EXPECT_TRUE(resp);
    std::map<std::string, Entry> out;
    if (!resp) return {-1, out};
    for (auto& e : resp->results.at(0).configs) out[e.name] = e;
    return {rokka::protocol::to_int(resp->results.at(0).error_code), out};
  }

  // AlterConfigs v1: one (type, name, configs) per resource; the error per resource.
  struct Resource {
    int8_t type;
    std::string name;
    std::vector<std::pair<std::string, std::string>> configs;
  };
  std::vector<std::pair<int16_t, std::string>> alter(const std::vector<Resource>& resources,
                                                     bool validate_only = false) {
    protocol::AlterConfigsRequest req;
    req.validate_only = validate_only;
    for (const auto& r : resources) {
      auto& res = req.resources.emplace_back();
      res.resource_type = r.type;
      res.resource_name = r.name;
      for (const auto& [k, v] : r.configs) res.configs.push_back({k, std::string_view(v)});
    }
    client_.send(req, 1, ++cid_);
    auto resp = client_.receive<protocol::AlterConfigsResponse>(1, cid_);
    EXPECT_TRUE(resp);
    std::vector<std::pair<int16_t, std::string>> out;
    if (!resp) return out;
    for (const auto& r : resp->responses) out.emplace_back(rokka::protocol::to_int(r.error_code), r.error_message.value_or(""));
    return out;
  }

  int16_t create_topic(std::string_view name) {
    protocol::CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = 1;
    t.replication_factor = 1;
    req.timeout_ms = 5000;
    client_.send(req, 4, ++cid_);
    auto resp = client_.receive<protocol::CreateTopicsResponse>(4, cid_);
    return resp ? rokka::protocol::to_int(resp->topics.at(0).error_code) : -1;
  }

  InProcessBroker broker_{{{"broker.id", "1"}, {"num.partitions", "3"}}};
  WireClient client_{broker_.port()};
  int32_t cid_ = 0;
};

TEST_F(BrokerConfigsApiTest, StaticConfigsAreReadOnlyWithTheirSource) {
  auto [err, configs] = describe(kBroker, "1");
  ASSERT_EQ(err, 0);
  ASSERT_TRUE(configs.contains("num.partitions"));
  EXPECT_EQ(configs["num.partitions"].value, "3");
  EXPECT_EQ(configs["num.partitions"].config_source, kStatic);
  EXPECT_TRUE(configs["num.partitions"].read_only);
  ASSERT_TRUE(configs.contains("group.max.size"));
  EXPECT_EQ(configs["group.max.size"].config_source, kDefault);
  // Kafka updates message.max.bytes at runtime: not read-only.
  EXPECT_FALSE(configs["message.max.bytes"].read_only);
}

TEST_F(BrokerConfigsApiTest, TopicDefaultsReportTheDefaultSource) {
  ASSERT_EQ(create_topic("plain"), 0);
  auto [err, configs] = describe(kTopic, "plain");
  ASSERT_EQ(err, 0);
  ASSERT_TRUE(configs.contains("retention.ms"));
  EXPECT_EQ(configs["retention.ms"].config_source, kDefault);
}

// 0081_admin's AlterConfigs: a topic, this broker and a missing topic in one request.
TEST_F(BrokerConfigsApiTest, MixedAlterConfigsAnswersPerResourceAndStoresTheBrokerValue) {
  ASSERT_EQ(create_topic("mixed"), 0);
  auto errors = alter({{kTopic, "mixed", {{"compression.type", "gzip"}, {"flush.ms", "12345678"}}},
                       {kBroker, "1", {{"sasl.kerberos.min.time.before.relogin", "58000"}}},
                       {kTopic, "missing", {{"compression.type", "lz4"}}}});
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].first, 0);
  EXPECT_EQ(errors[1].first, 0) << errors[1].second;
  EXPECT_EQ(errors[2].first, 3);  // UNKNOWN_TOPIC_OR_PARTITION

  auto [err, configs] = describe(kBroker, "1");
  ASSERT_EQ(err, 0);
  ASSERT_TRUE(configs.contains("sasl.kerberos.min.time.before.relogin"));
  const Entry& e = configs["sasl.kerberos.min.time.before.relogin"];
  EXPECT_EQ(e.value, "58000");
  EXPECT_EQ(e.config_source, kDynamicBroker);
  EXPECT_FALSE(e.read_only);
}

TEST_F(BrokerConfigsApiTest, StaticKeysAreRefusedAndNothingIsStored) {
  auto errors = alter({{kBroker, "1", {{"log.cleaner.threads", "2"}, {"broker.id", "5"}}}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, 42);  // INVALID_REQUEST
  EXPECT_EQ(errors[0].second, "Cannot update these configs dynamically: Set(broker.id)");
  auto [err, configs] = describe(kBroker, "1");
  EXPECT_FALSE(configs.contains("log.cleaner.threads"));
  EXPECT_EQ(configs["broker.id"].value, "1");
}

TEST_F(BrokerConfigsApiTest, ValidateOnlyStoresNothing) {
  auto errors = alter({{kBroker, "1", {{"log.cleaner.threads", "2"}}}}, /*validate_only=*/true);
  ASSERT_EQ(errors.at(0).first, 0);
  EXPECT_FALSE(describe(kBroker, "1").second.contains("log.cleaner.threads"));
  // A static key still fails validation.
  EXPECT_EQ(alter({{kBroker, "1", {{"log.dirs", "/elsewhere"}}}}, true).at(0).first, 42);
}

// The TLS and SASL keys with rows in the config table are described given or not, with
// Kafka's defaults; a change needs a restart, as in Kafka (their listener.name.<l>. forms are
// custom keys to AlterConfigs, as before).
TEST_F(BrokerConfigsApiTest, SecurityKeysAreDescribedWithTheirDefaultsAndAreStatic) {
  auto [err, configs] = describe(kBroker, "1");
  ASSERT_EQ(err, 0);
  for (const auto& [name, value] : std::map<std::string, std::string>{{"ssl.principal.mapping.rules", "DEFAULT"},
                                                                      {"sasl.server.max.receive.size", "524288"},
                                                                      {"connections.max.reauth.ms", "0"}}) {
    ASSERT_TRUE(configs.contains(name)) << name;
    EXPECT_EQ(configs[name].value, value) << name;
    EXPECT_EQ(configs[name].config_source, kDefault) << name;
    EXPECT_TRUE(configs[name].read_only) << name;
    auto refused = alter({{kBroker, "1", {{name, value}}}});
    EXPECT_EQ(refused.at(0).first, 42) << name;
    EXPECT_EQ(refused.at(0).second, "Cannot update these configs dynamically: Set(" + name + ")");
  }
  EXPECT_EQ(alter({{kBroker, "1", {{"listener.name.sasl_ssl.connections.max.reauth.ms", "60000"}}}}).at(0).first, 0);
}

// The replication keys (read, not applied yet) are described with their defaults, as Kafka's
// admin tools and librdkafka's tests read them.
TEST_F(BrokerConfigsApiTest, ReplicationKeysAreDescribedWithTheirDefaults) {
  auto [err, configs] = describe(kBroker, "1");
  ASSERT_EQ(err, 0);
  const std::map<std::string, std::string> want = {
      {"default.replication.factor", "1"},       {"min.insync.replicas", "1"},
      {"replica.lag.time.max.ms", "30000"},      {"unclean.leader.election.enable", "false"},
      {"replica.selector.class", ""},            {"rokka.replication.groups", ""},
      {"rokka.replication.listener", ""},        {"rokka.replication.advertised.listener", ""},
      {"rokka.replication.heartbeat.ms", "100"}, {"rokka.replication.idle.timeout.ms", "5000"}};
  for (const auto& [name, value] : want) {
    ASSERT_TRUE(configs.contains(name)) << name;
    EXPECT_EQ(configs[name].value, value) << name;
    EXPECT_EQ(configs[name].config_source, kDefault) << name;
  }
  // Kafka changes these two at runtime, cluster-wide; the others need a restart.
  EXPECT_FALSE(configs["min.insync.replicas"].read_only);
  EXPECT_FALSE(configs["unclean.leader.election.enable"].read_only);
  EXPECT_TRUE(configs["replica.lag.time.max.ms"].read_only);
}

TEST_F(BrokerConfigsApiTest, DynamicReplicationKeysAreCheckedAndStaticOnesRefused) {
  ASSERT_EQ(alter({{kBroker, "", {{"min.insync.replicas", "2"}}}}).at(0).first, 0);
  EXPECT_EQ(describe(kBroker, "1").second["min.insync.replicas"].value, "2");
  // A value the key refuses at start-up is refused here too, and nothing changes.
  auto zero = alter({{kBroker, "", {{"min.insync.replicas", "0"}}}});
  EXPECT_EQ(zero.at(0).first, 42) << zero.at(0).second;
  EXPECT_NE(zero.at(0).second.find("min.insync.replicas"), std::string::npos) << zero.at(0).second;
  EXPECT_EQ(describe(kBroker, "1").second["min.insync.replicas"].value, "2");
  for (const char* key : {"replica.lag.time.max.ms", "rokka.replication.groups"}) {
    auto refused = alter({{kBroker, "1", {{key, "1000"}}}});
    EXPECT_EQ(refused.at(0).first, 42) << key;
    EXPECT_EQ(refused.at(0).second, "Cannot update these configs dynamically: Set(" + std::string(key) + ")");
  }
}

TEST_F(BrokerConfigsApiTest, AnotherBrokersIdIsAnInvalidRequest) {
  EXPECT_EQ(alter({{kBroker, "7", {{"log.cleaner.threads", "2"}}}}).at(0).first, 42);
  EXPECT_EQ(describe(kBroker, "7").first, 42);
  EXPECT_EQ(describe(kBroker, "one").first, 42);
}

TEST_F(BrokerConfigsApiTest, ClusterDefaultIsBelowThePerBrokerValue) {
  ASSERT_EQ(alter({{kBroker, "", {{"log.cleaner.threads", "3"}, {"num.io.threads", "9"}}}}).at(0).first, 0);
  ASSERT_EQ(alter({{kBroker, "1", {{"log.cleaner.threads", "4"}}}}).at(0).first, 0);

  auto [err, defaults] = describe(kBroker, "");
  ASSERT_EQ(err, 0);
  EXPECT_EQ(defaults.size(), 2u);  // the default resource lists its dynamic values only
  EXPECT_EQ(defaults["num.io.threads"].config_source, kDynamicDefault);

  auto [err1, configs] = describe(kBroker, "1");
  ASSERT_EQ(err1, 0);
  const Entry& threads = configs["log.cleaner.threads"];
  EXPECT_EQ(threads.value, "4");
  EXPECT_EQ(threads.config_source, kDynamicBroker);
  ASSERT_EQ(threads.synonyms.size(), 2u);
  EXPECT_EQ(threads.synonyms[1].value, "3");
  EXPECT_EQ(threads.synonyms[1].source, kDynamicDefault);
  EXPECT_EQ(configs["num.io.threads"].config_source, kDynamicDefault);
  // A per-broker key cannot be a cluster default.
  EXPECT_EQ(alter({{kBroker, "", {{"sasl.kerberos.min.time.before.relogin", "1"}}}}).at(0).first, 42);
}

TEST_F(BrokerConfigsApiTest, AlterConfigsReplacesTheBrokersDynamicValues) {
  ASSERT_EQ(alter({{kBroker, "1", {{"log.cleaner.threads", "2"}, {"num.io.threads", "9"}}}}).at(0).first, 0);
  ASSERT_EQ(alter({{kBroker, "1", {{"num.io.threads", "10"}}}}).at(0).first, 0);
  auto configs = describe(kBroker, "1").second;
  EXPECT_FALSE(configs.contains("log.cleaner.threads"));
  EXPECT_EQ(configs["num.io.threads"].value, "10");
}

TEST_F(BrokerConfigsApiTest, IncrementalSetDeleteAndAppendOnBrokerConfigs) {
  protocol::IncrementalAlterConfigsRequest req;
  auto& res = req.resources.emplace_back();
  res.resource_type = kBroker;
  res.resource_name = "1";
  res.configs = {{"log.cleaner.threads", 0, std::string_view("2")},
                 {"metric.reporters", 2, std::string_view("a.Reporter")}};
  client_.send(req, 1, ++cid_);
  auto resp = client_.receive<protocol::IncrementalAlterConfigsResponse>(1, cid_);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->responses.at(0).error_code, ErrorCode::kNone);

  res.configs = {{"log.cleaner.threads", 1, std::nullopt}, {"metric.reporters", 2, std::string_view("b.Reporter")}};
  client_.send(req, 1, ++cid_);
  resp = client_.receive<protocol::IncrementalAlterConfigsResponse>(1, cid_);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->responses.at(0).error_code, ErrorCode::kNone);

  auto configs = describe(kBroker, "1").second;
  EXPECT_FALSE(configs.contains("log.cleaner.threads"));
  EXPECT_EQ(configs["metric.reporters"].value, "a.Reporter,b.Reporter");
}

TEST_F(BrokerConfigsApiTest, PasswordsAreMaskedEverywhere) {
  ASSERT_EQ(alter({{kBroker, "1", {{"listener.name.plaintext.ssl.key.password", "secret"}}}}).at(0).first, 0);
  auto configs = describe(kBroker, "1").second;
  ASSERT_TRUE(configs.contains("listener.name.plaintext.ssl.key.password"));
  const Entry& e = configs["listener.name.plaintext.ssl.key.password"];
  EXPECT_TRUE(e.is_sensitive);
  EXPECT_FALSE(e.value.has_value());
  for (const auto& syn : e.synonyms) EXPECT_FALSE(syn.value.has_value());
}

// max.connections.per.ip applies as soon as it is set, and falls back when deleted.
TEST_F(BrokerConfigsApiTest, ConnectionsPerAddressLimitChangesLive) {
  ASSERT_EQ(alter({{kBroker, "1", {{"max.connections.per.ip", "2"}}}}).at(0).first, 0);
  WireClient second(broker_.port());
  second.send(protocol::ApiVersionsRequest{"rokka-test", "1"}, 3, 1);
  ASSERT_TRUE(second.receive<protocol::ApiVersionsResponse>(3, 1));
  WireClient third(broker_.port());
  EXPECT_TRUE(third.closed_by_peer());

  ASSERT_EQ(alter({{kBroker, "1", {}}}).at(0).first, 0);  // AlterConfigs with nothing: all removed
  WireClient fourth(broker_.port());
  fourth.send(protocol::ApiVersionsRequest{"rokka-test", "1"}, 3, 2);
  EXPECT_TRUE(fourth.receive<protocol::ApiVersionsResponse>(3, 2));
}

// Broker 0's configs as DescribeConfigs v4 gives them, by name.
std::map<std::string, Entry> broker_configs(const InProcessBroker& b) {
  WireClient c(b.port());
  protocol::DescribeConfigsRequest req;
  req.resources.push_back({kBroker, "0", std::nullopt});
  auto resp = c.call<protocol::DescribeConfigsResponse>(req, 4);
  EXPECT_TRUE(resp);
  std::map<std::string, Entry> configs;
  if (resp)
    for (auto& e : resp->results.at(0).configs) configs[e.name] = e;
  return configs;
}

// The TLS and SASL settings are described too (KIP-368's clients read
// connections.max.reauth.ms), secrets with a null value.
TEST(BrokerSecurityConfigsTest, SecuritySettingsAreDescribedSecretsMasked) {
  {
    InProcessBroker plain;
    auto configs = broker_configs(plain);
    ASSERT_TRUE(configs.contains("connections.max.reauth.ms"));
    EXPECT_EQ(configs["connections.max.reauth.ms"].value, "0");
    EXPECT_EQ(configs["connections.max.reauth.ms"].config_source, kDefault);
  }
  InProcessBroker b{{{"connections.max.reauth.ms", "10000"},
                     {"listener.name.plaintext.plain.sasl.jaas.config",
                      "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"secret\";"},
                     {"ssl.keystore.location", "/etc/rokka/broker.pem"}}};
  auto configs = broker_configs(b);
  EXPECT_EQ(configs["connections.max.reauth.ms"].value, "10000");
  EXPECT_EQ(configs["connections.max.reauth.ms"].config_source, kStatic);
  EXPECT_EQ(configs["ssl.keystore.location"].value, "/etc/rokka/broker.pem");
  ASSERT_TRUE(configs.contains("listener.name.plaintext.plain.sasl.jaas.config"));
  EXPECT_TRUE(configs["listener.name.plaintext.plain.sasl.jaas.config"].is_sensitive);
  EXPECT_FALSE(configs["listener.name.plaintext.plain.sasl.jaas.config"].value.has_value());
}

}  // namespace
}  // namespace rokka
