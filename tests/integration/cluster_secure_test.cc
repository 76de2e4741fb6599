// Cluster mode with the brokers reaching each other over TLS and SASL (docs/cluster.md,
// inter.broker.listener.name): two build/rokka processes and a real etcd on loopback, whose
// inter-broker listener is SASL_SSL (PLAIN as User:admin; the peer's certificate checked against
// the CA and 127.0.0.1). The test's clients use only the plaintext SETUP listener, so every PLAIN
// login a broker counts is another broker's: a transaction over partitions on both brokers
// completes, and its markers came over SASL_SSL. Skipped, with the reason, where etcd is not
// installed.
#include <gtest/gtest.h>

#include <set>

#include "protocol/messages/metadata.h"
#include "tests/cluster/etcd_process.h"
#include "tests/integration/cluster_start.h"
#include "tests/security/test_pki.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using security::testing::make_cert;
using security::testing::TestCert;
using security::testing::write_file;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr const char* kJaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\";";

class ClusterSecureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    const TestCert ca = make_cert({{"O", "rokka-test"}, {"CN", "test-ca"}}, nullptr, true);
    const TestCert broker = make_cert({{"O", "rokka-test"}, {"CN", "broker"}}, &ca, false);  // SAN 127.0.0.1
    ca_file_ = write_file((dir_ / "ca.pem").string(), ca.cert_pem());
    broker_file_ = write_file((dir_ / "broker.pem").string(), broker.key_pem() + broker.cert_pem() + ca.cert_pem());
    testutil::start_cluster(dir_.path(), 2, [this](int id) { return overrides(id); }, etcd_, brokers_);
  }

  RokkaProcess::Overrides overrides(int id) const {
    return {{"broker.id", std::to_string(id)},
            // SETUP: the test's own plaintext listener, first (the harness asks it for Metadata).
            {"listeners", "SETUP://127.0.0.1:0,SASL_SSL://127.0.0.1:0"},
            {"listener.security.protocol.map", "SETUP:PLAINTEXT,SASL_SSL:SASL_SSL"},
            {"inter.broker.listener.name", "SASL_SSL"},
            {"sasl.mechanism.inter.broker.protocol", "PLAIN"},
            {"ssl.keystore.type", "PEM"},
            {"ssl.keystore.location", broker_file_},
            {"ssl.truststore.type", "PEM"},
            {"ssl.truststore.location", ca_file_},
            {"listener.name.sasl_ssl.sasl.enabled.mechanisms", "PLAIN"},
            {"listener.name.sasl_ssl.plain.sasl.jaas.config", kJaas},
            {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
            {"allow.everyone.if.no.acl.found", "false"},
            {"super.users", "User:admin;User:ANONYMOUS"},  // ANONYMOUS: the test on SETUP
            {"rokka.cluster.etcd.endpoints", etcd_->client_url()},
            {"rokka.cluster.session.timeout.ms", "3000"},
            {"num.partitions", "2"}};
  }
  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }
  // The broker's PLAIN logins so far, succeeded or failed (-1: the series is missing).
  static double plain_logins(RokkaProcess& b, bool succeeded) {
    const auto reply = testutil::http_get(b.http_port(), "/metrics");
    const std::string key = std::string("\nkafka_server_socket_server_metrics_") + (succeeded ? "successful" : "failed") +
                            "_authentication_total{mechanism=\"PLAIN\"} ";
    const size_t at = reply.body.find(key);
    return at == std::string::npos ? -1 : std::stod(reply.body.substr(at + key.size()));
  }

  TempDir dir_;
  std::string ca_file_, broker_file_;
  std::unique_ptr<testutil::EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
};

TEST_F(ClusterSecureTest, TransactionMarkersReachTheOtherBrokerOverSaslSsl) {
  testutil::KafkaAdmin admin(broker(1).bootstrap());
  ASSERT_EQ(admin.create_topic("secure", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
  auto leaders = [&](int id) {
    testutil::WireClient c(broker(id).port());
    protocol::MetadataRequest req;
    req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{{}, "secure"}};
    req.allow_auto_topic_creation = false;
    std::vector<int32_t> out(2, -1);
    if (auto md = c.call<protocol::MetadataResponse>(req, 12); md && md->topics.size() == 1)
      for (const auto& p : md->topics[0].partitions)
        if (p.partition_index >= 0 && p.partition_index < 2) out[static_cast<size_t>(p.partition_index)] = p.leader_id;
    return out;
  };
  for (int id = 1; id <= 2; ++id)
    ASSERT_TRUE(testutil::eventually([&] { return leaders(id) == std::vector<int32_t>{1, 2} ||
                                                  leaders(id) == std::vector<int32_t>{2, 1}; }, 30s)) << id;
  const double logins_before = plain_logins(broker(1), true) + plain_logins(broker(2), true);

  constexpr int kTimeoutMs = 60000;
  auto ok = [](RdKafka::Error* e, const char* what) {
    std::unique_ptr<RdKafka::Error> owned(e);
    EXPECT_EQ(owned, nullptr) << what << ": " << (owned ? owned->str() : "");
  };
  testutil::TestProducer p(broker(2).bootstrap(), {{"transactional.id", "secure-across"}, {"linger.ms", "1"}});
  auto send = [&](const std::string& prefix) {
    for (int i = 0; i < 20; ++i)
      ASSERT_EQ(p.produce("secure", i % 2, std::nullopt, prefix + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    for (auto& d : p.flush(120s)) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
  };
  ok(p.handle().init_transactions(kTimeoutMs), "init_transactions");
  ok(p.handle().begin_transaction(), "begin");
  send("kept-");
  ok(p.handle().commit_transaction(kTimeoutMs), "commit");
  ok(p.handle().begin_transaction(), "begin");
  send("dropped-");
  ok(p.handle().abort_transaction(kTimeoutMs), "abort");

  for (int32_t part = 0; part < 2; ++part) {
    std::vector<std::string> expected;
    for (int i = part; i < 20; i += 2) expected.push_back("kept-" + std::to_string(i));
    auto got = testutil::consume_assigned(broker(1).bootstrap(), "secure", {part}, 0, expected.size(), 60s,
                                          {{"isolation.level", "read_committed"}, {"group.id", "secure-reader"}});
    std::vector<std::string> values;
    for (const auto& c : got) values.push_back(c.value.value_or(""));
    EXPECT_EQ(values, expected) << "partition " << part;
  }
  // The markers to the broker that does not coordinate the transaction came over SASL_SSL.
  EXPECT_GT(plain_logins(broker(1), true) + plain_logins(broker(2), true), logins_before);
  EXPECT_EQ(plain_logins(broker(1), false) + plain_logins(broker(2), false), 0);
}

// A cluster-mode broker whose inter-broker listener does not exist, or whose SASL mechanism it
// cannot log in with, does not start, and says which key to fix.
TEST_F(ClusterSecureTest, AnInterBrokerListenerThatCannotWorkStopsTheStart) {
  const std::vector<std::pair<RokkaProcess::Overrides, std::string>> cases = {
      {{{"inter.broker.listener.name", "NOPE"}}, "inter.broker.listener.name=NOPE is not one of the listeners"},
      {{{"sasl.mechanism.inter.broker.protocol", "GSSAPI"}}, "sasl.mechanism.inter.broker.protocol=GSSAPI"},
      {{{"listener.name.sasl_ssl.plain.sasl.jaas.config",
         "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";"}},
       "username"},
  };
  int n = 3;
  for (const auto& [changed, message] : cases) {
    RokkaProcess::Overrides o = overrides(n);
    for (const auto& [k, v] : changed) o.push_back({k, v});
    std::filesystem::create_directories(dir_ / ("bad" + std::to_string(n)));
    RokkaProcess bad(dir_ / ("bad" + std::to_string(n)), o);
    try {
      bad.start(60s);
      ADD_FAILURE() << "started with " << changed.front().first << "=" << changed.front().second;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
    ++n;
  }
}

}  // namespace
}  // namespace rokka
