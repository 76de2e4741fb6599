// The broker's own SASL client (inter-broker connections) against the broker's SASL servers:
// it logs in with the right password, fails with a wrong one, and refuses a server that does
// not know the credential (a forged signature) or does not extend its nonce.
#include "security/sasl_client.h"

#include <gtest/gtest.h>

#include "security/plain_server.h"
#include "security/scram_crypto.h"
#include "security/scram_messages.h"
#include "security/scram_server.h"

namespace rokka::security {
namespace {

ScramCredentialLookup one_user(ScramMechanism m, const std::string& user, const std::string& password) {
  auto credential = generate_scram_credential(m, password, 4096);
  EXPECT_TRUE(credential.ok());
  return [=, c = *credential](std::string_view u, ScramMechanism asked) -> std::optional<ScramCredential> {
    if (u != user || asked != m) return std::nullopt;
    return c;
  };
}

// Runs the exchange: true when both sides complete.
bool log_in(SaslClient& client, SaslServer& server, std::string* client_error = nullptr) {
  std::string to_server = client.initial();
  for (int round = 0; round < 4; ++round) {
    const SaslStep step = server.evaluate(to_server);
    if (step.kind == SaslStep::Kind::kFailed) return false;
    auto next = client.respond(step.data);
    if (!next.ok()) {
      if (client_error) *client_error = next.error().message();
      return false;
    }
    if (step.kind == SaslStep::Kind::kComplete) return client.complete() && !*next;
    if (!*next) return false;
    to_server = **next;
  }
  return false;
}

TEST(SaslClientTest, ScramLogsInWithTheRightPasswordOnly) {
  for (ScramMechanism m : {ScramMechanism::kSha256, ScramMechanism::kSha512}) {
    SCOPED_TRACE(std::string(scram_mechanism_name(m)));
    const auto users = one_user(m, "admin", "admin-secret");
    ScramServer server(m, users);
    auto client = SaslClient::create(scram_mechanism_name(m), "admin", "admin-secret");
    ASSERT_TRUE(client.ok());
    EXPECT_TRUE(log_in(*client, server));
    EXPECT_EQ(server.authorization_id(), "admin");

    ScramServer refusing(m, users);
    auto wrong = SaslClient::create(scram_mechanism_name(m), "admin", "not-the-secret");
    ASSERT_TRUE(wrong.ok());
    EXPECT_FALSE(log_in(*wrong, refusing));
    EXPECT_FALSE(wrong->complete());
  }
}

TEST(SaslClientTest, ScramRefusesAServerThatDoesNotKnowTheCredential) {
  // The server-final signature is computed from the credential: one made from another
  // password (an impostor that let the proof through) is refused by the client.
  const ScramMechanism m = ScramMechanism::kSha256;
  auto client = SaslClient::create("SCRAM-SHA-256", "admin", "admin-secret", "clientnonce");
  ASSERT_TRUE(client.ok());
  const std::string first = client->initial();
  EXPECT_EQ(first, "n,,n=admin,r=clientnonce");
  const std::string server_first = ServerFirstMessage::format("clientnonceSERVER", "salt-bytes", 4096);
  auto final_message = client->respond(server_first);
  ASSERT_TRUE(final_message.ok());
  ASSERT_TRUE(*final_message);
  EXPECT_TRUE(final_message->value().starts_with("c=biws,r=clientnonceSERVER,p="));
  const std::string impostor = scram_server_key(scram_hash(m), scram_salted_password(scram_hash(m), "x", "s", 4096));
  auto last = client->respond(ServerFinalMessage::format_signature(scram_hmac(scram_hash(m), impostor, "anything")));
  EXPECT_FALSE(last.ok());
  EXPECT_FALSE(client->complete());

  auto server_error = SaslClient::create("SCRAM-SHA-256", "admin", "admin-secret", "n1");
  server_error->initial();
  ASSERT_TRUE(server_error->respond(ServerFirstMessage::format("n1S", "salt", 4096)).ok());
  auto refused = server_error->respond(ServerFinalMessage::format_error("invalid-proof"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("invalid-proof"), std::string::npos);
}

TEST(SaslClientTest, ScramRefusesANonceItDidNotStartOrTooFewIterations) {
  auto client = SaslClient::create("SCRAM-SHA-512", "admin", "pw", "abc");
  client->initial();
  EXPECT_FALSE(client->respond(ServerFirstMessage::format("xyzabc", "salt", 4096)).ok());
  auto same = SaslClient::create("SCRAM-SHA-512", "admin", "pw", "abc");
  same->initial();
  EXPECT_FALSE(same->respond(ServerFirstMessage::format("abc", "salt", 4096)).ok()) << "no server share";
  auto few = SaslClient::create("SCRAM-SHA-512", "admin", "pw", "abc");
  few->initial();
  EXPECT_FALSE(few->respond(ServerFirstMessage::format("abcS", "salt", 1)).ok());
  auto garbage = SaslClient::create("SCRAM-SHA-512", "admin", "pw", "abc");
  garbage->initial();
  EXPECT_FALSE(garbage->respond("r=abcS,s=!!!,i=4096").ok());
  EXPECT_FALSE(garbage->respond("anything").ok()) << "a failed exchange stays failed";
}

TEST(SaslClientTest, PlainSendsItsTokenOnceAndTheBrokerAcceptsIt) {
  auto users = parse_server_jaas_config(
      "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";");
  ASSERT_TRUE(users.ok());
  auto plain = PlainUsers::from_jaas(*users);
  ASSERT_TRUE(plain.ok());
  auto client = SaslClient::create("PLAIN", "admin", "admin-secret");
  ASSERT_TRUE(client.ok());
  PlainServer server(std::make_shared<PlainUsers>(*plain));
  EXPECT_TRUE(log_in(*client, server));
  EXPECT_EQ(server.authorization_id(), "admin");
  auto wrong = SaslClient::create("PLAIN", "admin", "guess");
  PlainServer refusing(std::make_shared<PlainUsers>(*plain));
  EXPECT_FALSE(log_in(*wrong, refusing));
}

TEST(SaslClientTest, OtherMechanismsAndNoUserAreRefused) {
  EXPECT_FALSE(SaslClient::create("GSSAPI", "admin", "pw").ok());
  EXPECT_FALSE(SaslClient::create("OAUTHBEARER", "admin", "pw").ok());
  EXPECT_FALSE(SaslClient::create("PLAIN", "", "pw").ok());
}

}  // namespace
}  // namespace rokka::security
