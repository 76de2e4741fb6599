// Cluster mode's shared broker state (docs/cluster.md): ACLs, SCRAM credentials, dynamic
// broker configs and client quotas are kept in etcd, so a change made through one broker is
// seen and enforced by the others and survives a restart. Three build/rokka processes with
// an authorizer and a SASL_PLAINTEXT listener (PLAIN for bob, SCRAM-SHA-512 for the users the
// test creates) and one real etcd on loopback. PLAINTEXT is the test's own set-up listener,
// where ANONYMOUS is a super user; the principals whose access is checked are User:bob and
// User:carol, never super users. Skipped, with the reason, where etcd is not installed.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>

#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/client_quotas.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "security/scram_crypto.h"
#include "tests/cluster/etcd_process.h"
#include "tests/integration/cluster_start.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using namespace std::chrono_literals;
using testutil::RokkaProcess;
using testutil::TempDir;
using testutil::WireClient;

constexpr int kSessionMs = 3000;
constexpr int16_t kTopicAuthorizationFailed = 29;
constexpr int8_t kTopic = 2, kLiteral = 3, kAny = 1, kDescribe = 8, kAllow = 3, kBrokerResource = 4, kGroupResource = 32;
constexpr const char* kJaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required user_bob=\"bob-secret\";";

class ClusterSharedStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    testutil::start_cluster(dir_.path(), 3, [this](int id) { return overrides(id); }, etcd_, brokers_);
  }

  // Broker `id` of the cluster on `etcd` (the fixture's by default; none: a single broker).
  RokkaProcess::Overrides overrides(int id, const testutil::EtcdProcess* etcd = nullptr) const {
    RokkaProcess::Overrides o = security(id);
    if (etcd == nullptr) etcd = etcd_.get();
    o.push_back({"rokka.cluster.etcd.endpoints", etcd->client_url()});
    o.push_back({"rokka.cluster.session.timeout.ms", std::to_string(kSessionMs)});
    return o;
  }
  static RokkaProcess::Overrides security(int id) {
    return {{"broker.id", std::to_string(id)},
            {"listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"},
            {"listener.name.sasl_plaintext.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"},
            {"listener.name.sasl_plaintext.plain.sasl.jaas.config", kJaas},
            {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
            {"allow.everyone.if.no.acl.found", "false"},
            {"super.users", "User:ANONYMOUS"},
            {"num.partitions", "1"}};
  }

  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }

  // bob (PLAIN, no super user) asks broker `id` for topic `topic`'s metadata: its error code
  // (TOPIC_AUTHORIZATION_FAILED without DESCRIBE), or -1 when bob could not log in.
  int16_t bob_describes(int id, const std::string& topic) {
    WireClient c(broker(id).port("SASL_PLAINTEXT"));
    protocol::SaslHandshakeRequest hs;
    hs.mechanism = "PLAIN";
    auto h = c.call<protocol::SaslHandshakeResponse>(hs, 1);
    if (!h || h->error_code != ErrorCode::kNone) return -1;
    const std::string plain = std::string("\0bob\0bob-secret", 15);
    protocol::SaslAuthenticateRequest auth;
    auth.auth_bytes = protocol::Bytes(reinterpret_cast<const std::byte*>(plain.data()), plain.size());
    auto a = c.call<protocol::SaslAuthenticateResponse>(auth, 2);
    if (!a || a->error_code != ErrorCode::kNone) return -1;
    protocol::MetadataRequest req;
    req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{{}, topic}};
    req.allow_auto_topic_creation = false;
    auto md = c.call<protocol::MetadataResponse>(req, 12);
    return md && md->topics.size() == 1 ? rokka::protocol::to_int(md->topics[0].error_code) : -1;
  }

  // The principals with ACLs on topic `topic` that broker `id` lists (DescribeAcls).
  std::set<std::string> acls_on(int id, const std::string& topic) {
    WireClient c(broker(id).port());
    protocol::DescribeAclsRequest req;
    req.resource_type_filter = kTopic;
    req.resource_name_filter = topic;
    req.pattern_type_filter = kLiteral;
    req.operation = kAny;
    req.permission_type = kAny;
    auto resp = c.call<protocol::DescribeAclsResponse>(req, 1);
    std::set<std::string> out;
    if (!resp || resp->error_code != ErrorCode::kNone) return {"<error>"};
    for (const auto& r : resp->resources)
      for (const auto& acl : r.acls) out.insert(acl.principal + " op=" + std::to_string(acl.operation));
    return out;
  }

  // The cluster default's dynamic value of `name` as broker `id` describes it.
  std::optional<std::string> default_config(int id, std::string_view name) {
    return config_of(id, kBrokerResource, "", name);
  }
  // The value of config `name` of a resource (type, name) as broker `id` describes it.
  std::optional<std::string> config_of(int id, int8_t type, std::string_view resource, std::string_view name) {
    WireClient c(broker(id).port());
    protocol::DescribeConfigsRequest req;
    req.resources.push_back({type, resource, std::vector<std::string_view>{name}});
    auto resp = c.call<protocol::DescribeConfigsResponse>(req, 1);
    if (!resp || resp->results.size() != 1 || resp->results[0].error_code != ErrorCode::kNone) return "<error>";
    for (const auto& cfg : resp->results[0].configs)
      if (cfg.name == name) return cfg.value;
    return std::nullopt;
  }

  // The producer_byte_rate of user `user` as broker `id` describes it.
  std::optional<double> producer_rate(int id, std::string_view user) {
    WireClient c(broker(id).port());
    protocol::DescribeClientQuotasRequest req;
    req.components.push_back({"user", protocol::DescribeClientQuotasRequest::kMatchExact, user});
    auto resp = c.call<protocol::DescribeClientQuotasResponse>(req, 1);
    if (!resp || resp->error_code != ErrorCode::kNone || !resp->entries) return -1;
    for (const auto& e : *resp->entries)
      for (const auto& v : e.values)
        if (v.key == "producer_byte_rate") return v.value;
    return std::nullopt;
  }

  // Whether `user` gets metadata from broker `id` alone over SCRAM-SHA-512.
  bool scram_login(int id, const std::string& user, const std::string& password) {
    auto conf = testutil::make_conf({{"bootstrap.servers", "127.0.0.1:" + std::to_string(broker(id).port("SASL_PLAINTEXT"))},
                                     {"security.protocol", "SASL_PLAINTEXT"},
                                     {"sasl.mechanisms", "SCRAM-SHA-512"},
                                     {"sasl.username", user},
                                     {"sasl.password", password}});
    std::string err;
    std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
    if (!p) throw std::runtime_error(err);
    RdKafka::Metadata* md = nullptr;
    const RdKafka::ErrorCode e = p->metadata(true, nullptr, &md, 5000);
    delete md;
    return e == RdKafka::ERR_NO_ERROR;
  }

  template <typename Resp, typename Req>
  static Resp call(RokkaProcess& b, const Req& req, int16_t version) {
    WireClient c(b.port());
    auto resp = c.call<Resp>(req, version);
    if (!resp) throw std::runtime_error("no answer");
    return *resp;
  }

  // How long until `done` holds, or fails the test after 10 s.
  template <typename F>
  static std::chrono::milliseconds until(F done) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(testutil::eventually(done, 10s));
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  }

  TempDir dir_;
  std::unique_ptr<testutil::EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
};

// An ACL created through broker 1 is listed and enforced by brokers 2 and 3; deleted through
// broker 2, it is gone everywhere; created again, it is there after a broker restarts.
TEST_F(ClusterSharedStateTest, AnAclCreatedOnOneBrokerIsEnforcedByEveryBrokerAndSurvivesARestart) {
  {
    testutil::KafkaAdmin admin(broker(1).bootstrap());  // PLAINTEXT, ANONYMOUS: a super user
    ASSERT_EQ(admin.create_topic("guarded", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  for (int id = 1; id <= 3; ++id)
    ASSERT_TRUE(testutil::eventually([&] { return bob_describes(id, "guarded") == kTopicAuthorizationFailed; }, 30s))
        << "bob is refused on " << id << " without an ACL: " << bob_describes(id, "guarded");

  protocol::CreateAclsRequest create;
  create.creations.push_back({kTopic, "guarded", kLiteral, "User:bob", "*", kDescribe, kAllow});
  auto created = call<protocol::CreateAclsResponse>(broker(1), create, 1);
  ASSERT_EQ(created.results.size(), 1u);
  ASSERT_EQ(created.results[0].error_code, ErrorCode::kNone);
  const std::set<std::string> bob_may_describe = {"User:bob op=8"};
  EXPECT_EQ(acls_on(1, "guarded"), bob_may_describe) << "the broker it was made on has it once answered";
  EXPECT_EQ(bob_describes(1, "guarded"), 0);
  for (int id = 2; id <= 3; ++id) {
    const auto took = until([&] { return acls_on(id, "guarded") == bob_may_describe; });
    std::cout << "acl listed by broker " << id << " after " << took.count() << " ms\n";
    EXPECT_EQ(bob_describes(id, "guarded"), 0) << "enforced on " << id;
  }

  protocol::DeleteAclsRequest del;
  del.filters.push_back({kTopic, "guarded", kLiteral, "User:bob", std::nullopt, kAny, kAny});
  auto deleted = call<protocol::DeleteAclsResponse>(broker(2), del, 1);
  ASSERT_EQ(deleted.filter_results.size(), 1u);
  ASSERT_EQ(deleted.filter_results[0].matching_acls.size(), 1u);
  for (int id : {2, 1, 3}) {
    until([&] { return acls_on(id, "guarded").empty(); });
    EXPECT_EQ(bob_describes(id, "guarded"), kTopicAuthorizationFailed) << "refused again on " << id;
  }

  // Created again through broker 3; broker 2 restarts (gracefully, then killed) and has it.
  auto again = call<protocol::CreateAclsResponse>(broker(3), create, 1);
  ASSERT_EQ(again.results.at(0).error_code, ErrorCode::kNone);
  until([&] { return acls_on(2, "guarded") == bob_may_describe; });
  ASSERT_EQ(broker(2).stop(), 0);
  broker(2).start(60s);
  EXPECT_EQ(acls_on(2, "guarded"), bob_may_describe) << "loaded before it serves";
  EXPECT_EQ(bob_describes(2, "guarded"), 0);
  broker(2).kill9();
  broker(2).start(60s);
  EXPECT_EQ(acls_on(2, "guarded"), bob_may_describe);
  EXPECT_EQ(bob_describes(2, "guarded"), 0);

  // A CreateAcls is one etcd txn: more bindings than etcd's --max-txn-ops (128) are refused
  // whole, with etcd's reason.
  protocol::CreateAclsRequest many;
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) names.push_back("many-" + std::to_string(i));
  for (const auto& name : names) many.creations.push_back({kTopic, name, kLiteral, "User:bob", "*", kDescribe, kAllow});
  auto refused = call<protocol::CreateAclsResponse>(broker(1), many, 1);
  ASSERT_EQ(refused.results.size(), names.size());
  EXPECT_NE(refused.results[0].error_code, ErrorCode::kNone);
  EXPECT_NE(refused.results[0].error_message.value_or("").find("too many operations"), std::string::npos)
      << refused.results[0].error_message.value_or("");
  EXPECT_TRUE(acls_on(1, "many-0").empty());
}

// A SCRAM user created through broker 1 logs in on broker 3 (and, deleted through broker 2,
// no longer does); the cluster default of a dynamic config and a client quota set through one
// broker are described by the others, also after a restart.
TEST_F(ClusterSharedStateTest, ScramUsersDynamicConfigsAndQuotasAreTheClusters) {
  // SCRAM-SHA-512 for carol through broker 1 (the client salts the password).
  const std::string salt = "salt-of-carol";
  const std::string salted = security::scram_salted_password(security::ScramHash::kSha512, "carol-secret", salt, 4096);
  protocol::AlterUserScramCredentialsRequest scram;
  scram.upsertions.push_back({"carol", 2, 4096, protocol::Bytes(reinterpret_cast<const std::byte*>(salt.data()), salt.size()),
                              protocol::Bytes(reinterpret_cast<const std::byte*>(salted.data()), salted.size())});
  EXPECT_FALSE(scram_login(3, "carol", "carol-secret")) << "no credential yet";
  auto altered = call<protocol::AlterUserScramCredentialsResponse>(broker(1), scram, 0);
  ASSERT_EQ(altered.results.size(), 1u);
  ASSERT_EQ(altered.results[0].error_code, ErrorCode::kNone);
  const auto took = until([&] { return scram_login(3, "carol", "carol-secret"); });
  std::cout << "scram user logged in on broker 3 after " << took.count() << " ms\n";
  EXPECT_FALSE(scram_login(3, "carol", "wrong"));

  // The cluster default of log.retention.ms through broker 2; DescribeConfigs on 1 and 3.
  protocol::IncrementalAlterConfigsRequest config;
  config.resources.push_back({kBrokerResource, "", {{"log.retention.ms", 0, "604800001"}}});
  auto configured = call<protocol::IncrementalAlterConfigsResponse>(broker(2), config, 0);
  ASSERT_EQ(configured.responses.size(), 1u);
  ASSERT_EQ(configured.responses[0].error_code, ErrorCode::kNone) << configured.responses[0].error_message.value_or("");
  for (int id : {2, 1, 3}) until([&] { return default_config(id, "log.retention.ms") == "604800001"; });

  // A group's session timeout (a GROUP resource, KIP-848) through broker 1; DescribeConfigs on 2 and 3
  // (whichever broker coordinates the group applies it).
  protocol::IncrementalAlterConfigsRequest group_config;
  group_config.resources.push_back({kGroupResource, "shared-group", {{"consumer.session.timeout.ms", 0, "50000"}}});
  auto grouped = call<protocol::IncrementalAlterConfigsResponse>(broker(1), group_config, 0);
  ASSERT_EQ(grouped.responses.size(), 1u);
  ASSERT_EQ(grouped.responses[0].error_code, ErrorCode::kNone) << grouped.responses[0].error_message.value_or("");
  for (int id : {1, 2, 3})
    until([&] { return config_of(id, kGroupResource, "shared-group", "consumer.session.timeout.ms") == "50000"; });

  // A producer_byte_rate for user carol through broker 3; DescribeClientQuotas on 1 and 2.
  protocol::AlterClientQuotasRequest quota;
  quota.entries.push_back({{{"user", std::string_view("carol")}}, {{"producer_byte_rate", 1048576, false}}});
  auto quoted = call<protocol::AlterClientQuotasResponse>(broker(3), quota, 0);
  ASSERT_EQ(quoted.entries.size(), 1u);
  ASSERT_EQ(quoted.entries[0].error_code, ErrorCode::kNone);
  for (int id : {3, 1, 2}) until([&] { return producer_rate(id, "carol") == 1048576.0; });

  // Broker 1 is killed and restarted: it has all four.
  broker(1).kill9();
  broker(1).start(60s);  // listening; it serves once registered, after its old lease ended
  EXPECT_TRUE(testutil::eventually([&] { return scram_login(1, "carol", "carol-secret"); }, 30s));
  EXPECT_EQ(default_config(1, "log.retention.ms"), "604800001");
  EXPECT_EQ(producer_rate(1, "carol"), 1048576.0);
  EXPECT_EQ(config_of(1, kGroupResource, "shared-group", "consumer.session.timeout.ms"), "50000");

  // Deleted through broker 2: carol can no longer log in on broker 3.
  protocol::AlterUserScramCredentialsRequest removal;
  removal.deletions.push_back({"carol", 2});
  auto removed = call<protocol::AlterUserScramCredentialsResponse>(broker(2), removal, 0);
  ASSERT_EQ(removed.results.at(0).error_code, ErrorCode::kNone);
  until([&] { return !scram_login(3, "carol", "carol-secret"); });
}

// A single broker's ACLs, SCRAM users, dynamic configs and quotas stay when it founds a
// cluster: a broker that joins it afterwards has them.
TEST_F(ClusterSharedStateTest, ASingleBrokerThatFoundsAClusterKeepsItsSharedState) {
  std::filesystem::create_directories(dir_ / "solo");
  brokers_.push_back(std::make_unique<RokkaProcess>(dir_ / "solo", security(4)));
  const int solo = 4;
  broker(solo).start(60s);
  protocol::CreateAclsRequest create;
  create.creations.push_back({kTopic, "kept", kLiteral, "User:bob", "*", kDescribe, kAllow});
  ASSERT_EQ(call<protocol::CreateAclsResponse>(broker(solo), create, 1).results.at(0).error_code, ErrorCode::kNone);
  const std::string salt = "salt-of-dan";
  const std::string salted = security::scram_salted_password(security::ScramHash::kSha512, "dan-secret", salt, 4096);
  protocol::AlterUserScramCredentialsRequest scram;
  scram.upsertions.push_back({"dan", 2, 4096, protocol::Bytes(reinterpret_cast<const std::byte*>(salt.data()), salt.size()),
                              protocol::Bytes(reinterpret_cast<const std::byte*>(salted.data()), salted.size())});
  ASSERT_EQ(call<protocol::AlterUserScramCredentialsResponse>(broker(solo), scram, 0).results.at(0).error_code, ErrorCode::kNone);
  protocol::IncrementalAlterConfigsRequest config;
  config.resources.push_back({kBrokerResource, "", {{"log.retention.ms", 0, "86400000"}}});
  ASSERT_EQ(call<protocol::IncrementalAlterConfigsResponse>(broker(solo), config, 0).responses.at(0).error_code, ErrorCode::kNone);
  protocol::AlterClientQuotasRequest quota;
  quota.entries.push_back({{{"user", std::string_view("dan")}}, {{"producer_byte_rate", 2048, false}}});
  ASSERT_EQ(call<protocol::AlterClientQuotasResponse>(broker(solo), quota, 0).entries.at(0).error_code, ErrorCode::kNone);
  ASSERT_EQ(broker(solo).stop(), 0);

  // A new etcd: the single broker founds the cluster there, and broker 5 joins it.
  testutil::EtcdProcess etcd(dir_ / "etcd-2", "e1");
  etcd.start_new();
  brokers_.back() = std::make_unique<RokkaProcess>(dir_ / "solo", overrides(solo, &etcd));
  broker(solo).start(60s);
  std::filesystem::create_directories(dir_ / "b5");
  brokers_.push_back(std::make_unique<RokkaProcess>(dir_ / "b5", overrides(5, &etcd)));
  broker(5).start(60s);
  EXPECT_EQ(acls_on(5, "kept"), (std::set<std::string>{"User:bob op=8"}));
  EXPECT_TRUE(scram_login(5, "dan", "dan-secret"));
  EXPECT_EQ(default_config(5, "log.retention.ms"), "86400000");
  EXPECT_EQ(producer_rate(5, "dan"), 2048.0);
  EXPECT_EQ(acls_on(2, "kept"), std::set<std::string>{}) << "the fixture's cluster, on another etcd, has none of it";
  broker(5).kill9();
  broker(solo).kill9();
}

}  // namespace
}  // namespace rokka
