// SASL on a listener as a client sees it on the wire, on an in-process broker:
// what is served before authentication, SaslHandshake and SaslAuthenticate with
// Kafka's error codes and messages, the principal reaching the authorizer, the
// frame bound before authentication, and KIP-368's session lifetime.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr const char* kJaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

// PLAINTEXT first, then SASL_PLAINTEXT with PLAIN (alice and bob), an authorizer
// that denies what no ACL allows, alice a super user.
InProcessBroker::Overrides sasl_broker(InProcessBroker::Overrides more = {}) {
  InProcessBroker::Overrides o = {
      {"listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"},
      {"listener.name.sasl_plaintext.sasl.enabled.mechanisms", "PLAIN"},
      {"listener.name.sasl_plaintext.plain.sasl.jaas.config", kJaas},
      {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
      {"allow.everyone.if.no.acl.found", "false"},
      {"super.users", "User:alice"},
  };
  o.insert(o.end(), more.begin(), more.end());
  return o;
}

std::vector<std::byte> plain_message(std::string_view user, std::string_view password) {
  std::string m = std::string("\0", 1) + std::string(user) + std::string("\0", 1) + std::string(password);
  const auto* p = reinterpret_cast<const std::byte*>(m.data());
  return {p, p + m.size()};
}

class SaslTest : public ::testing::Test {
 protected:
  void start(InProcessBroker::Overrides more = {}) {
    broker_ = std::make_unique<InProcessBroker>(sasl_broker(std::move(more)));
    sasl_port_ = broker_->broker().ports().at(1);
  }

  std::optional<protocol::SaslHandshakeResponse> handshake(WireClient& c, std::string_view mechanism, int32_t cid,
                                                           int16_t version = 1) {
    protocol::SaslHandshakeRequest req;
    req.mechanism = mechanism;
    c.send(req, version, cid);
    return c.receive<protocol::SaslHandshakeResponse>(version, cid);
  }
  std::optional<protocol::SaslAuthenticateResponse> authenticate(WireClient& c, const std::vector<std::byte>& bytes,
                                                                 int32_t cid, int16_t version = 2) {
    protocol::SaslAuthenticateRequest req;
    req.auth_bytes = protocol::Bytes(bytes);
    c.send(req, version, cid);
    return c.receive<protocol::SaslAuthenticateResponse>(version, cid);
  }
  // Handshake and PLAIN exchange; true when authenticated.
  bool login(WireClient& c, std::string_view user, std::string_view password, int32_t cid = 1) {
    auto h = handshake(c, "PLAIN", cid);
    if (!h || h->error_code != ErrorCode::kNone) return false;
    auto a = authenticate(c, plain_message(user, password), cid + 1);
    return a && a->error_code == ErrorCode::kNone;
  }
  std::optional<protocol::MetadataResponse> metadata(WireClient& c, int32_t cid) {
    protocol::MetadataRequest req;
    c.send(req, 12, cid);
    return c.receive<protocol::MetadataResponse>(12, cid);
  }
  int16_t create_topic(WireClient& c, std::string_view name, int32_t cid) {
    protocol::CreateTopicsRequest req;
    req.topics.push_back({name, 1, 1, {}, {}});
    c.send(req, 7, cid);
    auto resp = c.receive<protocol::CreateTopicsResponse>(7, cid);
    if (!resp || resp->topics.size() != 1) return -100;
    return rokka::protocol::to_int(resp->topics[0].error_code);
  }

  std::unique_ptr<InProcessBroker> broker_;
  uint16_t sasl_port_ = 0;
};

TEST_F(SaslTest, BeforeAuthenticationOnlyApiVersionsAndTheSaslApisAreServed) {
  start();
  WireClient c(sasl_port_);
  protocol::ApiVersionsRequest versions;
  versions.client_software_name = "rokka-test";
  versions.client_software_version = "1";
  c.send(versions, 3, 1);
  auto v = c.receive<protocol::ApiVersionsResponse>(3, 1);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->error_code, ErrorCode::kNone);
  bool lists_authenticate = false;
  for (const auto& k : v->api_keys)
    if (k.api_key == static_cast<int16_t>(protocol::ApiKey::kSaslAuthenticate)) lists_authenticate = k.max_version == 2;
  EXPECT_TRUE(lists_authenticate);

  protocol::MetadataRequest req;
  c.send(req, 12, 2);
  EXPECT_TRUE(c.closed_by_peer()) << "Metadata before authentication must close the connection";
}

TEST_F(SaslTest, PlainWithTheRightPasswordAuthenticatesAndServesRequests) {
  start();
  WireClient c(sasl_port_);
  auto h = handshake(c, "PLAIN", 1);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->error_code, ErrorCode::kNone);
  EXPECT_EQ(h->mechanisms, std::vector<std::string>{"PLAIN"});
  auto a = authenticate(c, plain_message("alice", "alice-secret"), 2);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->error_code, ErrorCode::kNone);
  EXPECT_FALSE(a->error_message.has_value());
  EXPECT_EQ(a->session_lifetime_ms, 0);  // connections.max.reauth.ms not set
  auto m = metadata(c, 3);
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->brokers.size(), 1u);
  EXPECT_EQ(m->brokers[0].port, sasl_port_) << "Metadata names the listener the client came in on";
}

TEST_F(SaslTest, AWrongPasswordGetsSaslAuthenticationFailedThenTheConnectionCloses) {
  start();
  WireClient c(sasl_port_);
  ASSERT_TRUE(handshake(c, "PLAIN", 1).has_value());
  auto a = authenticate(c, plain_message("alice", "wrong"), 2);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->error_code, ErrorCode::kSaslAuthenticationFailed);
  EXPECT_EQ(a->error_message.value_or(""), "Authentication failed: Invalid username or password");
  EXPECT_TRUE(c.closed_by_peer());

  WireClient unknown(sasl_port_);
  ASSERT_TRUE(handshake(unknown, "PLAIN", 1).has_value());
  auto u = authenticate(unknown, plain_message("mallory", "x"), 2);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->error_code, ErrorCode::kSaslAuthenticationFailed);
  EXPECT_TRUE(unknown.closed_by_peer());
}

TEST_F(SaslTest, AMechanismNotEnabledGetsUnsupportedSaslMechanismWithTheEnabledList) {
  start();
  WireClient c(sasl_port_);
  auto h = handshake(c, "SCRAM-SHA-512", 1);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->error_code, ErrorCode::kUnsupportedSaslMechanism);
  EXPECT_EQ(h->mechanisms, std::vector<std::string>{"PLAIN"});
  EXPECT_TRUE(c.closed_by_peer());
}

// A raw token of a SaslHandshake v0 exchange: a 4-byte size, then the token.
std::vector<std::byte> raw_token(const std::vector<std::byte>& token) {
  std::vector<std::byte> out(4);
  const auto n = static_cast<uint32_t>(token.size());
  for (int i = 0; i < 4; ++i) out[static_cast<size_t>(i)] = static_cast<std::byte>(n >> (24 - 8 * i));
  out.insert(out.end(), token.begin(), token.end());
  return out;
}

// SaslHandshake v0 (kafka-python 2.0.2, sarama's PLAIN below Kafka 1.0), as Kafka serves it: the
// handshake answered, then the PLAIN token sent raw and answered raw (an empty token), then ordinary
// requests as the authenticated principal.
TEST_F(SaslTest, AVersionZeroHandshakeIsFollowedByRawTokensAndAuthenticates) {
  start();
  WireClient c(sasl_port_);
  auto h = handshake(c, "PLAIN", 1, 0);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->error_code, ErrorCode::kNone);
  EXPECT_EQ(h->mechanisms, std::vector<std::string>{"PLAIN"});
  c.send_raw(raw_token(plain_message("alice", "alice-secret")));
  auto answer = c.read_frame();
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->empty()) << "PLAIN's answer is an empty token";
  auto md = metadata(c, 3);
  ASSERT_TRUE(md.has_value()) << "authenticated: ordinary requests are served";
}

TEST_F(SaslTest, AWrongPasswordInARawTokenClosesTheConnectionUnanswered) {
  start();
  WireClient c(sasl_port_);
  ASSERT_TRUE(handshake(c, "PLAIN", 1, 0).has_value());
  c.send_raw(raw_token(plain_message("alice", "wrong")));
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(SaslTest, RawTokensThatAreEmptyTruncatedOrOverTheBoundCloseTheConnection) {
  start({{"listener.name.sasl_plaintext.sasl.server.max.receive.size", "4096"}});
  const std::vector<std::vector<std::byte>> sends = {
      raw_token({}),                                                         // an empty PLAIN token
      {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{20}, std::byte{0}},  // 20 bytes announced, 1 sent
      {std::byte{0}, std::byte{0}, std::byte{0x10}, std::byte{0x01}},         // 4097: over the bound, unread
      {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xfe}},   // a negative size
  };
  for (size_t i = 0; i < sends.size(); ++i) {
    WireClient c(sasl_port_);
    ASSERT_TRUE(handshake(c, "PLAIN", 1, 0).has_value());
    c.send_raw(sends[i]);
    if (i == 1) c.shutdown_send();  // the truncated token ends with the stream
    EXPECT_TRUE(c.closed_by_peer()) << "send " << i;
  }
}

TEST_F(SaslTest, ATruncatedOrNegativeLengthSaslAuthenticateClosesTheConnection) {
  start();
  // v2 (flexible): auth_bytes is a compact length; v0: an int32 length.
  const std::vector<std::vector<std::byte>> bodies = {
      {},                                                                    // nothing at all
      {std::byte{0x10}, std::byte{'a'}},                                     // v2: 15 bytes announced, 1 sent
      {std::byte{0x7f}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}},  // v0: 2 GiB announced
      {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xfe}},  // v0: length -2
  };
  const int16_t versions[] = {2, 2, 0, 0};
  for (size_t i = 0; i < bodies.size(); ++i) {
    WireClient c(sasl_port_);
    ASSERT_TRUE(handshake(c, "PLAIN", 1).has_value());
    c.send_raw(WireClient::frame(protocol::ApiKey::kSaslAuthenticate, versions[i], 2, bodies[i]));
    EXPECT_TRUE(c.closed_by_peer()) << "body " << i;
  }
}

TEST_F(SaslTest, SaslAuthenticateBeforeTheHandshakeClosesTheConnection) {
  start();
  WireClient c(sasl_port_);
  protocol::SaslAuthenticateRequest req;
  const auto bytes = plain_message("alice", "alice-secret");
  req.auth_bytes = protocol::Bytes(bytes);
  c.send(req, 2, 1);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(SaslTest, AFrameOverSaslServerMaxReceiveSizeBeforeAuthenticationIsRefusedUnread) {
  start({{"listener.name.sasl_plaintext.sasl.server.max.receive.size", "4096"}});
  WireClient c(sasl_port_);
  // Only the size prefix: the broker must close on it without waiting for (or allocating) the body.
  c.send_raw({std::byte{0}, std::byte{0}, std::byte{0x10}, std::byte{0x01}});  // 4097
  EXPECT_TRUE(c.closed_by_peer());

  // The same size after authentication is an ordinary frame.
  WireClient after(sasl_port_);
  ASSERT_TRUE(login(after, "alice", "alice-secret"));
  protocol::MetadataRequest big;
  std::vector<std::string> names;
  for (int i = 0; i < 400; ++i) names.push_back("no-such-topic-with-a-long-name-" + std::to_string(i));
  big.topics.emplace();
  for (const auto& n : names) big.topics->push_back({{}, std::string_view(n)});
  big.allow_auto_topic_creation = false;
  after.send(big, 12, 9);
  auto m = after.receive<protocol::MetadataResponse>(12, 9);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->topics.size(), names.size());
}

TEST_F(SaslTest, ThePrincipalOfTheExchangeIsWhatTheAuthorizerDecidesOn) {
  start();
  WireClient alice(sasl_port_);
  ASSERT_TRUE(login(alice, "alice", "alice-secret"));
  EXPECT_EQ(create_topic(alice, "alices-topic", 3), 0) << "alice is a super user";

  WireClient bob(sasl_port_);
  ASSERT_TRUE(login(bob, "bob", "bob-secret"));
  EXPECT_EQ(create_topic(bob, "bobs-topic", 3), protocol::to_int(ErrorCode::kTopicAuthorizationFailed))
      << "no ACL allows User:bob to create topics";

  WireClient anonymous(broker_->port());  // the PLAINTEXT listener: User:ANONYMOUS
  EXPECT_EQ(create_topic(anonymous, "anonymous-topic", 1), protocol::to_int(ErrorCode::kTopicAuthorizationFailed));
}

// The authorized-operations fields of Metadata and DescribeCluster are computed for the
// principal the client authenticated as: Kafka's bit per AclOperation code.
TEST_F(SaslTest, AuthorizedOperationsAreThoseOfTheAuthenticatedPrincipal) {
  start();
  WireClient alice(sasl_port_);
  ASSERT_TRUE(login(alice, "alice", "alice-secret"));
  ASSERT_EQ(create_topic(alice, "shared", 3), 0);
  protocol::CreateAclsRequest acl;  // ALLOW User:bob READ (3) on Topic (2) "shared", LITERAL (3)
  acl.creations.push_back({2, "shared", 3, "User:bob", "*", 3, 3});
  alice.send(acl, 3, 4);
  auto created = alice.receive<protocol::CreateAclsResponse>(3, 4);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->results.at(0).error_code, ErrorCode::kNone);

  auto topic_ops = [](WireClient& c, int32_t cid) -> std::optional<std::pair<int16_t, int32_t>> {
    protocol::MetadataRequest req;
    req.topics.emplace();
    req.topics->push_back({protocol::Uuid{}, std::string_view("shared")});
    req.include_topic_authorized_operations = true;
    c.send(req, 10, cid);
    auto r = c.receive<protocol::MetadataResponse>(10, cid);
    if (!r || r->topics.size() != 1) return std::nullopt;
    return std::pair{rokka::protocol::to_int(r->topics[0].error_code), r->topics[0].topic_authorized_operations};
  };
  auto cluster_ops = [](WireClient& c, int32_t cid) -> std::optional<int32_t> {
    protocol::DescribeClusterRequest req;
    req.include_cluster_authorized_operations = true;
    c.send(req, 0, cid);
    auto r = c.receive<protocol::DescribeClusterResponse>(0, cid);
    if (!r) return std::nullopt;
    return r->cluster_authorized_operations;
  };
  // Kafka's topic operations: READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8,
  // DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11; cluster adds CLUSTER_ACTION 9 and IDEMPOTENT_WRITE 12.
  constexpr int32_t kAllTopic = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);
  EXPECT_EQ(topic_ops(alice, 5), (std::pair<int16_t, int32_t>{0, kAllTopic})) << "alice is a super user";
  const auto alice_cluster = cluster_ops(alice, 6);
  ASSERT_TRUE(alice_cluster);
  EXPECT_EQ(*alice_cluster & ((1 << 7) | (1 << 8) | (1 << 9)), (1 << 7) | (1 << 8) | (1 << 9));

  WireClient bob(sasl_port_);
  ASSERT_TRUE(login(bob, "bob", "bob-secret"));
  // READ, and DESCRIBE which READ implies; nothing on the cluster.
  EXPECT_EQ(topic_ops(bob, 3), (std::pair<int16_t, int32_t>{0, (1 << 3) | (1 << 8)}));
  EXPECT_EQ(cluster_ops(bob, 4), 0);

  WireClient anonymous(broker_->port());  // User:ANONYMOUS may not even see the topic
  const auto anon = topic_ops(anonymous, 1);
  ASSERT_TRUE(anon);
  EXPECT_EQ(anon->first, protocol::to_int(ErrorCode::kTopicAuthorizationFailed));
}

TEST_F(SaslTest, SaslHandshakeOnAListenerWithoutSaslIsAnIllegalSaslState) {
  start();
  WireClient c(broker_->port());
  auto h = handshake(c, "PLAIN", 1);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->error_code, ErrorCode::kIllegalSaslState);
}

TEST_F(SaslTest, ASessionPastItsLifetimeIsClosedUnlessTheClientReauthenticates) {
  start({{"listener.name.sasl_plaintext.connections.max.reauth.ms", "1500"}});
  WireClient c(sasl_port_);
  ASSERT_TRUE(handshake(c, "PLAIN", 1).has_value());
  auto a = authenticate(c, plain_message("bob", "bob-secret"), 2);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->error_code, ErrorCode::kNone);
  EXPECT_EQ(a->session_lifetime_ms, 1500);

  // Re-authentication on the live connection starts a new session.
  auto start_again = std::chrono::steady_clock::now();
  ASSERT_TRUE(login(c, "bob", "bob-secret", 3));
  ASSERT_TRUE(metadata(c, 5).has_value());

  // Changing the principal on re-authentication is refused with Kafka's message.
  WireClient other(sasl_port_);
  ASSERT_TRUE(login(other, "bob", "bob-secret"));
  ASSERT_TRUE(handshake(other, "PLAIN", 3).has_value());
  auto changed = authenticate(other, plain_message("alice", "alice-secret"), 4);
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(changed->error_code, ErrorCode::kSaslAuthenticationFailed);
  EXPECT_NE(changed->error_message.value_or("").find("principal"), std::string::npos) << *changed->error_message;
  EXPECT_TRUE(other.closed_by_peer());

  // Past the new session's end, any request but a re-authentication closes the connection.
  std::this_thread::sleep_until(start_again + std::chrono::milliseconds(1600));
  protocol::MetadataRequest req;
  c.send(req, 12, 6);
  EXPECT_TRUE(c.closed_by_peer());
}

}  // namespace
}  // namespace rokka
