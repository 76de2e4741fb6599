// TLS and SASL with real clients against build/rokka: librdkafka and kcat over
// SASL_SSL, mutual TLS whose certificate subject becomes the principal an ACL
// decides on, and the refusals a user meets (wrong password, unknown user,
// untrusted or expired certificate). Certificates are made at test time.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_acls.h"
#include "security/scram_crypto.h"
#include "tests/security/test_pki.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using security::testing::make_cert;
using security::testing::TestCert;
using security::testing::write_file;
using testutil::RokkaProcess;
using testutil::TempDir;

// A CA, the broker's certificate (SAN 127.0.0.1) and client certificates, as PEM files.
struct Pki {
  explicit Pki(const std::filesystem::path& dir)
      : ca(make_cert({{"O", "rokka-test"}, {"CN", "test-ca"}}, nullptr, true)),
        other_ca(make_cert({{"O", "elsewhere"}, {"CN", "other-ca"}}, nullptr, true)),
        broker(make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca, false)) {
    ca_file = write_file((dir / "ca.pem").string(), ca.cert_pem());
    broker_file = write_file((dir / "broker.pem").string(), broker.key_pem() + broker.cert_pem() + ca.cert_pem());
    client("carol", ca, dir);
    client("dave", ca, dir);
    client("eve", other_ca, dir);  // signed by a CA the broker does not trust
    TestCert expired = make_cert({{"O", "rokka-test"}, {"CN", "frank"}}, &ca, false, -7200, -3600);
    write_file((dir / "frank.crt").string(), expired.cert_pem());
    write_file((dir / "frank.key").string(), expired.key_pem());
  }
  void client(const std::string& name, const TestCert& issuer, const std::filesystem::path& dir) {
    TestCert c = make_cert({{"O", "rokka-test"}, {"CN", name}}, &issuer, false);
    write_file((dir / (name + ".crt")).string(), c.cert_pem());
    write_file((dir / (name + ".key")).string(), c.key_pem());
  }

  TestCert ca, other_ca, broker;
  std::string ca_file, broker_file;
};

constexpr const char* kJaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

class SecurityTest : public ::testing::Test {
 protected:
  // The value of one series of the broker's /metrics (-1 when it is missing).
  double metric(const std::string& series) const {
    const auto reply = testutil::http_get(broker_->http_port(), "/metrics");
    const std::string key = "\n" + series + " ";
    const size_t at = reply.body.find(key);
    return at == std::string::npos ? -1 : std::stod(reply.body.substr(at + key.size()));
  }
  double auth_metric(bool succeeded, const std::string& mechanism) const {
    return metric(std::string("kafka_server_socket_server_metrics_") + (succeeded ? "successful" : "failed") +
                  "_authentication_total{mechanism=\"" + mechanism + "\"}");
  }

  void SetUp() override {
    std::filesystem::create_directories(dir_ / "data");
    pki_ = std::make_unique<Pki>(dir_.path());
    broker_ = std::make_unique<RokkaProcess>(
        dir_ / "data",
        RokkaProcess::Overrides{
            // PLAINTEXT for the test's own set-up (ANONYMOUS is a super user here, nowhere else).
            {"listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0"},
            {"ssl.keystore.type", "PEM"},
            {"ssl.keystore.location", pki_->broker_file},
            {"ssl.truststore.type", "PEM"},
            {"ssl.truststore.location", pki_->ca_file},
            {"listener.name.ssl.ssl.client.auth", "required"},
            {"listener.name.ssl.ssl.principal.mapping.rules", "RULE:^CN=([a-z]+),O=rokka-test$/$1/,DEFAULT"},
            {"listener.name.sasl_ssl.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"},
            {"listener.name.sasl_ssl.plain.sasl.jaas.config", kJaas},
            {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
            {"allow.everyone.if.no.acl.found", "false"},
            {"super.users", "User:alice;User:ANONYMOUS"},
            {"num.partitions", "1"},
        });
    broker_->start();
    ASSERT_NE(broker_->port("SASL_SSL"), 0);
    ASSERT_NE(broker_->port("SSL"), 0);
  }

  std::string address(const char* listener) const { return "127.0.0.1:" + std::to_string(broker_->port(listener)); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::map<std::string, std::string> sasl_ssl(const std::string& user, const std::string& password) const {
    return {{"security.protocol", "SASL_SSL"}, {"sasl.mechanisms", "PLAIN"}, {"sasl.username", user},
            {"sasl.password", password},       {"ssl.ca.location", pki_->ca_file}};
  }
  std::map<std::string, std::string> scram(const std::string& user, const std::string& password) const {
    auto s = sasl_ssl(user, password);
    s["sasl.mechanisms"] = "SCRAM-SHA-512";
    return s;
  }
  // AlterUserScramCredentials over the PLAINTEXT listener (what kafka-configs.sh
  // --alter --add-config 'SCRAM-SHA-512=[password=...]' sends): the salted password
  // is computed here, as clients do; `password` empty deletes the credential.
  int16_t alter_scram(const std::string& user, const std::string& password) {
    protocol::AlterUserScramCredentialsRequest req;
    const std::string salt = "salt-of-" + user;
    const std::string salted =
        security::scram_salted_password(security::ScramHash::kSha512, password, salt, 4096);
    if (password.empty()) {
      req.deletions.push_back({user, 2});
    } else {
      req.upsertions.push_back({user, 2, 4096, protocol::Bytes(reinterpret_cast<const std::byte*>(salt.data()), salt.size()),
                                protocol::Bytes(reinterpret_cast<const std::byte*>(salted.data()), salted.size())});
    }
    testutil::WireClient c(broker_->port());
    c.send(req, 0, 1);
    auto resp = c.receive<protocol::AlterUserScramCredentialsResponse>(0, 1);
    if (!resp || resp->results.size() != 1) return -100;
    return rokka::protocol::to_int(resp->results[0].error_code);
  }
  std::map<std::string, std::string> mtls(const std::string& name) const {
    return {{"security.protocol", "SSL"},
            {"ssl.ca.location", pki_->ca_file},
            {"ssl.certificate.location", file(name + ".crt")},
            {"ssl.key.location", file(name + ".key")}};
  }

  void create_topic(const std::string& name) {
    testutil::KafkaAdmin admin(broker_->bootstrap());  // PLAINTEXT, ANONYMOUS
    ASSERT_EQ(admin.create_topic(name, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  // Produces `values` with `settings`; the delivery reports.
  std::vector<testutil::Delivered> produce(const std::string& bootstrap, std::map<std::string, std::string> settings,
                                           const std::string& topic, const std::vector<std::string>& values) {
    settings.emplace("message.timeout.ms", "15000");
    testutil::TestProducer p(bootstrap, settings);
    for (const auto& v : values) EXPECT_EQ(p.produce(topic, 0, std::nullopt, v), RdKafka::ERR_NO_ERROR);
    return p.flush(std::chrono::seconds(60));
  }

  // The first error a client with `settings` reports while it tries to reach the broker.
  RdKafka::ErrorCode first_client_error(const std::string& bootstrap, std::map<std::string, std::string> settings,
                                        std::string* text = nullptr) {
    testutil::FirstErrorEvent errors;
    settings["bootstrap.servers"] = bootstrap;
    auto conf = testutil::make_conf(settings);
    std::string err;
    conf->set("event_cb", &errors, err);
    std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
    if (!p) throw std::runtime_error(err);
    RdKafka::Metadata* md = nullptr;
    (void)p->metadata(true, nullptr, &md, 2000);  // makes it connect; fails
    delete md;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (errors.first == RdKafka::ERR_NO_ERROR && std::chrono::steady_clock::now() < deadline) p->poll(50);
    if (text) *text = errors.message;
    return errors.first;
  }

  TempDir dir_;
  std::unique_ptr<Pki> pki_;
  std::unique_ptr<RokkaProcess> broker_;
};

TEST_F(SecurityTest, LibrdkafkaProducesAndConsumesOverSaslSslWithPlain) {
  create_topic("secure");
  std::vector<std::string> values;
  for (int i = 0; i < 200; ++i) values.push_back("secret record " + std::to_string(i) + std::string(i * 7, 'x'));
  const auto delivered = produce(address("SASL_SSL"), sasl_ssl("alice", "alice-secret"), "secure", values);
  ASSERT_EQ(delivered.size(), values.size());
  for (size_t i = 0; i < delivered.size(); ++i) {
    ASSERT_EQ(delivered[i].error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(delivered[i].error);
    EXPECT_EQ(delivered[i].offset, static_cast<int64_t>(i));
  }
  const auto consumed = testutil::consume_assigned(address("SASL_SSL"), "secure", {0}, 0, values.size(),
                                                   std::chrono::seconds(60), sasl_ssl("alice", "alice-secret"));
  ASSERT_EQ(consumed.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(consumed[i].offset, static_cast<int64_t>(i));
    EXPECT_EQ(consumed[i].value, values[i]);
  }
  // The producer's and the consumer's connections authenticated (at least one each).
  EXPECT_GE(auth_metric(true, "PLAIN"), 2);
  EXPECT_EQ(auth_metric(false, "PLAIN"), 0);
}

TEST_F(SecurityTest, KcatProducesAndConsumesOverSaslSsl) {
  create_topic("kcat-secure");
  const std::string input = file("kcat-in.txt");
  {
    std::ofstream out(input);
    for (int i = 0; i < 50; ++i) out << "kcat line " << i << "\n";
  }
  const std::string common = "kcat -b " + address("SASL_SSL") +
                             " -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=alice"
                             " -X sasl.password=alice-secret -X ssl.ca.location=" + pki_->ca_file +
                             " -t kcat-secure";
  auto text_of = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  ASSERT_EQ(std::system((common + " -P -l " + input + " 2>" + file("kcat-p.err")).c_str()), 0)
      << text_of(file("kcat-p.err"));
  FILE* f = ::popen((common + " -C -o beginning -e -q 2>" + file("kcat-c.err")).c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string got;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) got.append(buf, n);
  ASSERT_EQ(::pclose(f), 0) << text_of(file("kcat-c.err"));
  std::ifstream in(input);
  const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, want);
}

TEST_F(SecurityTest, AScramUserWorksTheMomentItIsCreatedAndStopsTheMomentItIsDeleted) {
  create_topic("scram");
  EXPECT_EQ(first_client_error(address("SASL_SSL"), scram("grace", "grace-secret")), RdKafka::ERR__AUTHENTICATION)
      << "no credential yet";
  ASSERT_EQ(alter_scram("grace", "grace-secret"), 0);
  const auto delivered = produce(address("SASL_SSL"), scram("grace", "grace-secret"), "scram", {"over SCRAM-SHA-512"});
  ASSERT_EQ(delivered.size(), 1u);
  // grace is no super user and no ACL names her: authenticated, then refused by the authorizer.
  EXPECT_EQ(delivered[0].error, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED)
      << RdKafka::err2str(delivered[0].error) << "\n" << broker_->log_tail();
  EXPECT_EQ(first_client_error(address("SASL_SSL"), scram("grace", "wrong")), RdKafka::ERR__AUTHENTICATION);

  ASSERT_EQ(alter_scram("grace", ""), 0);  // deleted
  EXPECT_EQ(first_client_error(address("SASL_SSL"), scram("grace", "grace-secret")), RdKafka::ERR__AUTHENTICATION);
}

TEST_F(SecurityTest, AWrongPasswordOrAnUnknownUserIsRefusedWithKafkasMessage) {
  std::string text;
  EXPECT_EQ(first_client_error(address("SASL_SSL"), sasl_ssl("alice", "not-her-password"), &text),
            RdKafka::ERR__AUTHENTICATION);
  EXPECT_NE(text.find("Invalid username or password"), std::string::npos) << text;
  EXPECT_EQ(first_client_error(address("SASL_SSL"), sasl_ssl("mallory", "x"), &text), RdKafka::ERR__AUTHENTICATION);
  // Each refusal is counted (librdkafka may try again before it reports, hence at least).
  EXPECT_GE(auth_metric(false, "PLAIN"), 2);
  EXPECT_EQ(auth_metric(true, "PLAIN"), 0);
  EXPECT_EQ(auth_metric(false, "SCRAM-SHA-512"), 0);
}

TEST_F(SecurityTest, MutualTlsMakesTheCertificateSubjectThePrincipalAnAclDecidesOn) {
  create_topic("carols");
  {
    // ALLOW User:carol WRITE and DESCRIBE on topic carols (nothing for dave).
    testutil::WireClient c(broker_->port());
    protocol::CreateAclsRequest req;
    req.creations = {{2, "carols", 3, "User:carol", "*", 4, 3}, {2, "carols", 3, "User:carol", "*", 8, 3}};
    c.send(req, 2, 1);
    auto created = c.receive<protocol::CreateAclsResponse>(2, 1);
    ASSERT_TRUE(created);
    for (const auto& r : created->results) ASSERT_EQ(r.error_code, ErrorCode::kNone);
  }
  const auto carol = produce(address("SSL"), mtls("carol"), "carols", {"from carol"});
  ASSERT_EQ(carol.size(), 1u);
  EXPECT_EQ(carol[0].error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(carol[0].error);

  const auto dave = produce(address("SSL"), mtls("dave"), "carols", {"from dave"});
  ASSERT_EQ(dave.size(), 1u);
  EXPECT_EQ(dave[0].error, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED) << RdKafka::err2str(dave[0].error);
  // Both certificates authenticated (an ACL, not the handshake, refused dave).
  EXPECT_GE(auth_metric(true, "SSL"), 2);
  EXPECT_EQ(auth_metric(false, "SSL"), 0);
}

TEST_F(SecurityTest, AnUntrustedExpiredOrMissingClientCertificateIsRefused) {
  for (const char* name : {"eve", "frank"}) {
    const auto err = first_client_error(address("SSL"), mtls(name));
    EXPECT_TRUE(err == RdKafka::ERR__SSL || err == RdKafka::ERR__TRANSPORT || err == RdKafka::ERR__AUTHENTICATION)
        << name << ": " << RdKafka::err2str(err);
  }
  std::map<std::string, std::string> no_cert = {{"security.protocol", "SSL"}, {"ssl.ca.location", pki_->ca_file}};
  const auto err = first_client_error(address("SSL"), no_cert);
  EXPECT_TRUE(err == RdKafka::ERR__SSL || err == RdKafka::ERR__TRANSPORT || err == RdKafka::ERR__AUTHENTICATION)
      << RdKafka::err2str(err);
  // Each was refused in the TLS handshake, not later.
  std::ifstream log(broker_->log_path());
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("reason=TLS handshake failed"), std::string::npos);
  EXPECT_GE(auth_metric(false, "SSL"), 3);
  EXPECT_EQ(auth_metric(true, "SSL"), 0);
}

TEST_F(SecurityTest, PlaintextOnATlsPortIsClosed) {
  testutil::WireClient c(broker_->port("SSL"));
  c.send_raw(testutil::WireClient::frame(protocol::ApiKey::kApiVersions, 0, 1, {}));
  EXPECT_TRUE(c.closed_by_peer());
}

}  // namespace
}  // namespace rokka
