// SASL/OAUTHBEARER with a real client against build/rokka: librdkafka produces
// and consumes through both of Rokka's token validators, each on its own listener:
//   UNSECURED (SASL_PLAINTEXT): Kafka's unsecured validator, alg "none" tokens
//     that librdkafka makes itself (enable.sasl.oauthbearer.unsecure.jwt);
//   SIGNED (SASL_SSL): JWTs checked against a JWKS file, with an expected audience
//     and issuer; the test signs them (RS256, ES256) and hands them to librdkafka
//     from its token refresh callback (rd_kafka_oauthbearer_set_token).
// With the StandardAuthorizer on, the token's subject is the principal an ACL
// decides on; bad tokens are refused with SASL_AUTHENTICATION_FAILED.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafkacpp.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/messages/create_acls.h"
#include "tests/security/jwt_test_signer.h"
#include "tests/security/test_pki.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using security::testing::jwks_of;
using security::testing::make_cert;
using security::testing::TestCert;
using security::testing::TestSigningKey;
using security::testing::write_file;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr const char* kUnsecuredValidator =
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler";
constexpr const char* kLoginModule = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;";
constexpr const char* kAudience = "rokka-test";
constexpr const char* kIssuer = "https://issuer.rokka.test";

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// JWT claims: sub, aud, iss, iat, exp (seconds from now).
std::string claims(const std::string& sub, const std::string& aud, const std::string& iss, int64_t iat_from_now = 0,
                   int64_t exp_from_now = 3600) {
  const int64_t now = now_s();
  return "{\"sub\":\"" + sub + "\",\"aud\":\"" + aud + "\",\"iss\":\"" + iss +
         "\",\"iat\":" + std::to_string(now + iat_from_now) + ",\"exp\":" + std::to_string(now + exp_from_now) + "}";
}

// Hands librdkafka one fixed token from its refresh callback, through the C API's
// rd_kafka_oauthbearer_set_token. librdkafka is told the token lives another hour
// whatever its exp claim says (it refuses to send a token it believes expired), so
// that an expired JWT really reaches the broker, which must find out by itself.
class StaticToken : public RdKafka::OAuthBearerTokenRefreshCb {
 public:
  StaticToken(std::string token, std::string principal) : token_(std::move(token)), principal_(std::move(principal)) {}

  void oauthbearer_token_refresh_cb(RdKafka::Handle* handle, const std::string& /*oauthbearer_config*/) override {
    char errstr[512] = "";
    const int64_t lifetime_ms = (now_s() + 3600) * 1000;
    const rd_kafka_resp_err_t err = rd_kafka_oauthbearer_set_token(
        handle->c_ptr(), token_.c_str(), lifetime_ms, principal_.c_str(), nullptr, 0, errstr, sizeof errstr);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      {
        std::lock_guard lock(mu_);
        error_ = errstr;
      }
      rd_kafka_oauthbearer_set_token_failure(handle->c_ptr(), errstr);
      return;
    }
    ++set_;
  }

  // How many times librdkafka accepted the token (0: it never had one to send).
  int times_set() const { return set_.load(); }
  std::string error() const {
    std::lock_guard lock(mu_);
    return error_;
  }

 private:
  const std::string token_, principal_;
  std::atomic<int> set_{0};
  mutable std::mutex mu_;
  std::string error_;
};

class OAuthBearerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "data");
    ca_ = make_cert({{"O", "rokka-test"}, {"CN", "test-ca"}}, nullptr, true);
    const TestCert broker_cert = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
    ca_file_ = write_file(file("ca.pem"), ca_.cert_pem());
    const std::string broker_file =
        write_file(file("broker.pem"), broker_cert.key_pem() + broker_cert.cert_pem() + ca_.cert_pem());
    // The JWKS the broker trusts: one RSA and one EC key. `outsider_` is not in it.
    jwks_file_ = write_file(file("jwks.json"), jwks_of({rsa_.jwk(), ec_.jwk()}));

    broker_ = std::make_unique<RokkaProcess>(
        dir_ / "data",
        RokkaProcess::Overrides{
            // PLAINTEXT for the test's own set-up (ANONYMOUS is a super user here, nowhere else).
            {"listeners", "PLAINTEXT://127.0.0.1:0,UNSECURED://127.0.0.1:0,SIGNED://127.0.0.1:0"},
            {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,UNSECURED:SASL_PLAINTEXT,SIGNED:SASL_SSL"},
            {"ssl.keystore.type", "PEM"},
            {"ssl.keystore.location", broker_file},
            // Kafka's unsecured validator, only because it is named.
            {"listener.name.unsecured.sasl.enabled.mechanisms", "OAUTHBEARER"},
            {"listener.name.unsecured.oauthbearer.sasl.jaas.config", kLoginModule},
            {"listener.name.unsecured.oauthbearer.sasl.server.callback.handler.class", kUnsecuredValidator},
            // The signed validator (the default when a JWKS URL is set), its keys in each of
            // Kafka's spellings: listener + mechanism prefix, listener prefix, bare.
            {"listener.name.signed.sasl.enabled.mechanisms", "OAUTHBEARER"},
            {"listener.name.signed.oauthbearer.sasl.jaas.config", kLoginModule},
            {"listener.name.signed.oauthbearer.sasl.oauthbearer.jwks.endpoint.url", "file:" + jwks_file_},
            {"listener.name.signed.sasl.oauthbearer.expected.audience", std::string("other-audience, ") + kAudience},
            {"sasl.oauthbearer.expected.issuer", kIssuer},
            {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
            {"allow.everyone.if.no.acl.found", "false"},
            {"super.users", "User:ANONYMOUS"},
            {"num.partitions", "1"},
        });
    broker_->start();
    ASSERT_NE(broker_->port("UNSECURED"), 0);
    ASSERT_NE(broker_->port("SIGNED"), 0);
  }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::string address(const char* listener) const { return "127.0.0.1:" + std::to_string(broker_->port(listener)); }

  // The value of one series of the broker's /metrics (-1 when it is missing).
  double metric(const std::string& series) const {
    const auto reply = testutil::http_get(broker_->http_port(), "/metrics");
    const std::string key = "\n" + series + " ";
    const size_t at = reply.body.find(key);
    return at == std::string::npos ? -1 : std::stod(reply.body.substr(at + key.size()));
  }
  double oauth_authentications(bool succeeded) const {
    const double v = metric(std::string("kafka_server_socket_server_metrics_") + (succeeded ? "successful" : "failed") +
                            "_authentication_total{mechanism=\"OAUTHBEARER\"}");
    return v < 0 ? 0 : v;  // a series not yet counted
  }

  // librdkafka's settings for a listener: SASL_PLAINTEXT for UNSECURED, SASL_SSL for SIGNED.
  std::map<std::string, std::string> client(const char* listener) const {
    std::map<std::string, std::string> s = {{"bootstrap.servers", address(listener)}, {"sasl.mechanisms", "OAUTHBEARER"}};
    if (std::string(listener) == "SIGNED") {
      s["security.protocol"] = "SASL_SSL";
      s["ssl.ca.location"] = ca_file_;
    } else {
      s["security.protocol"] = "SASL_PLAINTEXT";
    }
    return s;
  }
  // librdkafka's own unsecured token for `principal`.
  std::map<std::string, std::string> unsecured_client(const char* listener, const std::string& principal) const {
    auto s = client(listener);
    s["enable.sasl.oauthbearer.unsecure.jwt"] = "true";
    s["sasl.oauthbearer.config"] = "principal=" + principal + " lifeSeconds=3600";
    return s;
  }

  static std::unique_ptr<RdKafka::Conf> conf(const std::map<std::string, std::string>& settings, StaticToken* token) {
    auto c = testutil::make_conf(settings);
    std::string err;
    if (token != nullptr && c->set("oauthbearer_token_refresh_cb", token, err) != RdKafka::Conf::CONF_OK)
      throw std::runtime_error("oauthbearer_token_refresh_cb: " + err);
    return c;
  }

  // ALLOW `principal` WRITE, READ and DESCRIBE on `topic` and READ on every group, over PLAINTEXT.
  void allow(const std::string& principal, const std::string& topic) {
    testutil::WireClient c(broker_->port());
    protocol::CreateAclsRequest req;
    // resource 2 = TOPIC, 3 = GROUP; pattern 3 = LITERAL; operation 3 = READ, 4 = WRITE, 8 = DESCRIBE; 3 = ALLOW.
    req.creations = {{2, topic, 3, principal, "*", 4, 3},
                     {2, topic, 3, principal, "*", 3, 3},
                     {2, topic, 3, principal, "*", 8, 3},
                     {3, "*", 3, principal, "*", 3, 3}};
    c.send(req, 2, 1);
    auto created = c.receive<protocol::CreateAclsResponse>(2, 1);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->results.size(), req.creations.size());
    for (const auto& r : created->results) ASSERT_EQ(r.error_code, ErrorCode::kNone) << r.error_message.value_or("");
  }

  void create_topic(const std::string& name) {
    testutil::KafkaAdmin admin(broker_->bootstrap());  // PLAINTEXT, ANONYMOUS
    ASSERT_EQ(admin.create_topic(name, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  // Produces (key, value) pairs to partition 0; the delivery reports.
  std::vector<testutil::Delivered> produce(std::map<std::string, std::string> settings, StaticToken* token,
                                           const std::string& topic,
                                           const std::vector<std::pair<std::string, std::string>>& records) {
    settings.emplace("message.timeout.ms", "30000");
    testutil::DeliveryCollector reports;
    auto c = conf(settings, token);
    std::string err;
    c->set("dr_cb", &reports, err);
    std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(c.get(), err));
    if (!p) throw std::runtime_error("producer: " + err);
    for (const auto& [key, value] : records) {
      for (;;) {
        const auto e = p->produce(topic, 0, RdKafka::Producer::RK_MSG_COPY, const_cast<char*>(value.data()),
                                  value.size(), key.data(), key.size(), 0, nullptr, nullptr);
        if (e != RdKafka::ERR__QUEUE_FULL) {
          EXPECT_EQ(e, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(e);
          break;
        }
        p->poll(10);
      }
    }
    p->flush(60000);
    p.reset();
    return reports.delivered;
  }

  // Reads partition 0 of `topic` from offset 0 (assigned, no group) until `count`
  // records arrived or 60 s passed.
  std::vector<testutil::Consumed> consume(std::map<std::string, std::string> settings, StaticToken* token,
                                          const std::string& topic, size_t count) {
    settings["group.id"] = "oauth-readers";
    settings["enable.auto.commit"] = "false";
    auto c = conf(settings, token);
    std::string err;
    std::unique_ptr<RdKafka::KafkaConsumer> consumer(RdKafka::KafkaConsumer::create(c.get(), err));
    if (!consumer) throw std::runtime_error("consumer: " + err);
    std::vector<RdKafka::TopicPartition*> tps = {RdKafka::TopicPartition::create(topic, 0, 0)};
    consumer->assign(tps);
    RdKafka::TopicPartition::destroy(tps);
    std::vector<testutil::Consumed> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
      std::unique_ptr<RdKafka::Message> m(consumer->consume(100));
      if (m->err() == RdKafka::ERR_NO_ERROR) out.push_back(testutil::to_consumed(*m));
    }
    consumer->close();
    return out;
  }

  // What a client with `settings` meets when it reaches the broker: the first
  // error it reports, or ERR_NO_ERROR as soon as a Metadata request is answered
  // (it was let in). `text` gets the error's message.
  RdKafka::ErrorCode first_client_error(std::map<std::string, std::string> settings, StaticToken* token,
                                        std::string* text) {
    testutil::FirstErrorEvent errors;
    auto c = conf(settings, token);
    std::string err;
    c->set("event_cb", &errors, err);
    std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(c.get(), err));
    if (!p) throw std::runtime_error(err);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool let_in = false;
    while (errors.first == RdKafka::ERR_NO_ERROR && std::chrono::steady_clock::now() < deadline) {
      p->poll(50);  // serves the token refresh callback and the error events
      RdKafka::Metadata* md = nullptr;
      if (errors.first == RdKafka::ERR_NO_ERROR && p->metadata(true, nullptr, &md, 500) == RdKafka::ERR_NO_ERROR) {
        let_in = true;
        delete md;
        break;
      }
      delete md;
    }
    *text = let_in ? "let in: a Metadata request was answered" : errors.message;
    if (!let_in && errors.first == RdKafka::ERR_NO_ERROR) *text = "no error and no Metadata answer within 60 s";
    return let_in ? RdKafka::ERR_NO_ERROR : errors.first;
  }

  // A client with `settings` (and `token`) on `listener` is refused with
  // SASL_AUTHENTICATION_FAILED: librdkafka reports ERR__AUTHENTICATION with the
  // broker's {"status":"invalid_token"}, the broker counts a failed OAUTHBEARER
  // authentication and no successful one.
  void expect_refused(const std::string& what, std::map<std::string, std::string> settings, StaticToken* token) {
    SCOPED_TRACE(what);
    const double failed_before = oauth_authentications(false), ok_before = oauth_authentications(true);
    std::string text;
    const auto err = first_client_error(std::move(settings), token, &text);
    EXPECT_EQ(err, RdKafka::ERR__AUTHENTICATION) << RdKafka::err2str(err) << ": " << text << "\n" << broker_->log_tail();
    EXPECT_NE(text.find("{\"status\":\"invalid_token\"}"), std::string::npos) << text;
    if (token != nullptr) {
      EXPECT_GE(token->times_set(), 1) << "librdkafka never took the token: " << token->error();
    }
    EXPECT_TRUE(testutil::eventually([&] { return oauth_authentications(false) > failed_before; },
                                     std::chrono::seconds(30)))
        << "the broker counted no failed OAUTHBEARER authentication";
    EXPECT_EQ(oauth_authentications(true), ok_before) << "the broker let the client in";
  }

  // Records a user would notice being mangled: binary keys and values with every
  // byte value, NULs, and one value larger than a default socket buffer.
  static std::vector<std::pair<std::string, std::string>> records(const std::string& tag, int n) {
    std::vector<std::pair<std::string, std::string>> out;
    for (int i = 0; i < n; ++i) {
      std::string value = tag + " record " + std::to_string(i) + ":";
      for (int b = 0; b < 256; ++b) value.push_back(static_cast<char>((b + i) & 0xff));
      if (i == n / 2) value += std::string(300 * 1024, static_cast<char>(i));
      out.emplace_back(std::string("key\0", 4) + std::to_string(i), value);
    }
    return out;
  }

  // Produces `recs` as `settings`/`token`, then reads them back with a consumer of the same credentials.
  void expect_round_trip(const std::map<std::string, std::string>& settings, StaticToken* token,
                         const std::string& topic, const std::vector<std::pair<std::string, std::string>>& recs) {
    const auto delivered = produce(settings, token, topic, recs);
    ASSERT_EQ(delivered.size(), recs.size()) << broker_->log_tail();
    for (size_t i = 0; i < delivered.size(); ++i) {
      ASSERT_EQ(delivered[i].error, RdKafka::ERR_NO_ERROR) << i << ": " << RdKafka::err2str(delivered[i].error);
      EXPECT_EQ(delivered[i].offset, static_cast<int64_t>(i));
    }
    const auto consumed = consume(settings, token, topic, recs.size());
    ASSERT_EQ(consumed.size(), recs.size()) << broker_->log_tail();
    for (size_t i = 0; i < recs.size(); ++i) {
      EXPECT_EQ(consumed[i].offset, static_cast<int64_t>(i));
      EXPECT_EQ(consumed[i].key, recs[i].first) << i;
      EXPECT_TRUE(consumed[i].value == recs[i].second) << i << ": the value came back different";
    }
  }

  TempDir dir_;
  TestCert ca_;
  std::string ca_file_, jwks_file_;
  TestSigningKey rsa_{"RSA", "rsa-1"};
  TestSigningKey ec_{"P-256", "ec-1"};
  TestSigningKey outsider_{"RSA", "rsa-1"};  // the trusted RSA key's kid, another key
  TestSigningKey stranger_{"P-256", "ec-stranger"};  // a kid the JWKS does not have
  std::unique_ptr<RokkaProcess> broker_;
};

TEST_F(OAuthBearerTest, UnsecuredTokensProduceAndConsumeAsTheirPrincipal) {
  create_topic("alices-unsecured");
  allow("User:alice", "alices-unsecured");
  const auto recs = records("unsecured", 60);
  expect_round_trip(unsecured_client("UNSECURED", "alice"), nullptr, "alices-unsecured", recs);
  // The producer's and the consumer's connections each authenticated (at least once).
  EXPECT_GE(oauth_authentications(true), 2);
  EXPECT_EQ(oauth_authentications(false), 0);

  // bob authenticates just as well, but the ACLs name alice: the token's principal is who the authorizer sees.
  const double ok_before = oauth_authentications(true);
  const auto bob = produce(unsecured_client("UNSECURED", "bob"), nullptr, "alices-unsecured", {{"k", "from bob"}});
  ASSERT_EQ(bob.size(), 1u);
  EXPECT_EQ(bob[0].error, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED) << RdKafka::err2str(bob[0].error);
  EXPECT_GT(oauth_authentications(true), ok_before);
  EXPECT_EQ(oauth_authentications(false), 0);
}

TEST_F(OAuthBearerTest, SignedJwtsProduceAndConsumeAsTheirSubject) {
  create_topic("alices-signed");
  allow("User:alice", "alices-signed");
  StaticToken alice(rsa_.sign("RS256", claims("alice", kAudience, kIssuer)), "alice");
  const auto recs = records("signed", 60);
  expect_round_trip(client("SIGNED"), &alice, "alices-signed", recs);
  EXPECT_GE(alice.times_set(), 2) << alice.error();  // a producer and a consumer took it
  EXPECT_GE(oauth_authentications(true), 2);
  EXPECT_EQ(oauth_authentications(false), 0);

  // An ES256 token for bob, from the JWKS's other key: valid, but bob has no ACL.
  const double ok_before = oauth_authentications(true);
  StaticToken bob(ec_.sign("ES256", claims("bob", kAudience, kIssuer)), "bob");
  const auto refused = produce(client("SIGNED"), &bob, "alices-signed", {{"k", "from bob"}});
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].error, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED) << RdKafka::err2str(refused[0].error);
  EXPECT_GE(bob.times_set(), 1) << bob.error();
  EXPECT_GT(oauth_authentications(true), ok_before);
  EXPECT_EQ(oauth_authentications(false), 0);
  // Nothing of bob's reached the log: alice still reads exactly her records.
  EXPECT_EQ(testutil::high_watermarks(broker_->bootstrap(), "alices-signed", 1), std::vector<int64_t>{60});
}

TEST_F(OAuthBearerTest, ExpiredMisaddressedOrUntrustedJwtsAreRefused) {
  // The same check lets a good token in: what follows is refused for its token alone.
  {
    StaticToken good(rsa_.sign("RS256", claims("alice", kAudience, kIssuer)), "alice");
    std::string text;
    EXPECT_EQ(first_client_error(client("SIGNED"), &good, &text), RdKafka::ERR_NO_ERROR) << text;
  }
  const double ok_after_good = oauth_authentications(true);
  EXPECT_GE(ok_after_good, 1);

  // Expired an hour ago (well past the 30 s of clock skew allowed).
  StaticToken expired(rsa_.sign("RS256", claims("alice", kAudience, kIssuer, -7200, -3600)), "alice");
  expect_refused("expired", client("SIGNED"), &expired);
  StaticToken audience(rsa_.sign("RS256", claims("alice", "someone-else", kIssuer)), "alice");
  expect_refused("wrong audience", client("SIGNED"), &audience);
  StaticToken issuer(rsa_.sign("RS256", claims("alice", kAudience, "https://evil.example")), "alice");
  expect_refused("wrong issuer", client("SIGNED"), &issuer);
  StaticToken forged(outsider_.sign("RS256", claims("alice", kAudience, kIssuer)), "alice");
  expect_refused("signed by another key under a trusted kid", client("SIGNED"), &forged);
  StaticToken stranger(stranger_.sign("ES256", claims("alice", kAudience, kIssuer)), "alice");
  expect_refused("signed by a key whose kid the JWKS does not have", client("SIGNED"), &stranger);
  EXPECT_EQ(oauth_authentications(true), ok_after_good);

  // Each refusal is logged with its listener and the validator's reason (the client only learns "invalid_token").
  std::ifstream log(broker_->log_path());
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  for (const std::string reason :
       {"is on or after the Expiration Time", "Audience (aud) claim [someone-else] doesn't contain an acceptable identifier",
        "Issuer (iss) claim value (https://evil.example) doesn't match",
        "the signature does not verify with 1 fitting key(s)", "no key in the JWKS fits alg ES256 and kid 'ec-stranger'"}) {
    const std::string line = "listener=SIGNED error={\"status\":\"invalid_token\"} reason=Could not validate the access token: ";
    bool found = false;
    for (size_t at = text.find(line); at != std::string::npos && !found; at = text.find(line, at + 1))
      found = text.substr(at, text.find('\n', at) - at).find(reason) != std::string::npos;
    EXPECT_TRUE(found) << "no log line gives the reason '" << reason << "':\n" << text;
  }
}

TEST_F(OAuthBearerTest, EachListenerTakesOnlyItsOwnKindOfToken) {
  // The JWKS listener does not take librdkafka's unsecured (alg none) tokens...
  expect_refused("unsecured token on the JWKS listener", unsecured_client("SIGNED", "alice"), nullptr);
  // ...and the unsecured listener takes no signed token, however valid.
  StaticToken signed_token(rsa_.sign("RS256", claims("alice", kAudience, kIssuer)), "alice");
  expect_refused("signed token on the unsecured listener", client("UNSECURED"), &signed_token);
  // The unsecured validator still checks exp: an alg none token that expired an hour ago.
  const std::string none_header = security::base64url_encode("{\"alg\":\"none\"}");
  StaticToken expired(none_header + "." + security::base64url_encode(claims("alice", kAudience, kIssuer, -7200, -3600)) + ".",
                      "alice");
  expect_refused("expired unsecured token", client("UNSECURED"), &expired);
  EXPECT_EQ(oauth_authentications(true), 0);
}

}  // namespace
}  // namespace rokka
