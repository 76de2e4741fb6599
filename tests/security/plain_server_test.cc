#include "security/plain_server.h"

#include <gtest/gtest.h>

namespace rokka::security {
namespace {

using namespace std::string_literals;

std::shared_ptr<const PlainUsers> users() {
  auto module = parse_server_jaas_config(
      R"(org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" )"
      R"(user_admin="admin-secret" user_alice="alice-secret";)");
  EXPECT_TRUE(module.ok());
  auto parsed = PlainUsers::from_jaas(*module);
  EXPECT_TRUE(parsed.ok());
  return std::make_shared<const PlainUsers>(std::move(parsed).value());
}

SaslStep run(std::string_view message) {
  PlainServer server(users());
  return server.evaluate(message);
}

TEST(PlainServerTest, AcceptsAJaasUserAndNamesThePrincipal) {
  PlainServer server(users());
  const SaslStep step = server.evaluate("\0alice\0alice-secret"s);
  EXPECT_EQ(step.kind, SaslStep::Kind::kComplete);
  EXPECT_TRUE(step.data.empty());
  EXPECT_TRUE(server.complete());
  EXPECT_EQ(server.authorization_id(), "alice");
  EXPECT_FALSE(server.credential_expiry_ms());
}

TEST(PlainServerTest, AcceptsAnAuthzidEqualToTheUser) {
  EXPECT_EQ(run("alice\0alice\0alice-secret"s).kind, SaslStep::Kind::kComplete);
}

TEST(PlainServerTest, RefusesWithKafkasMessages) {
  const auto message = [](std::string_view m) { return run(m).client_message.value_or("(none)"); };
  EXPECT_EQ(message("\0alice\0wrong"s), "Authentication failed: Invalid username or password");
  EXPECT_EQ(message("\0mallory\0alice-secret"s), "Authentication failed: Invalid username or password");
  // username="admin" is the broker's own login, not a user: only user_admin counts.
  EXPECT_EQ(run("\0admin\0admin-secret"s).kind, SaslStep::Kind::kComplete);
  EXPECT_EQ(message("\0\0alice-secret"s), "Authentication failed: username not specified");
  EXPECT_EQ(message("\0alice\0"s), "Authentication failed: password not specified");
  EXPECT_EQ(message("admin\0alice\0alice-secret"s),
            "Authentication failed: Client requested an authorization id that is different from username");
  EXPECT_EQ(message("alice-secret"), "Invalid SASL/PLAIN response: expected 3 tokens, got 1");
  EXPECT_EQ(message("\0alice"s), "Invalid SASL/PLAIN response: expected 3 tokens, got 2");
  EXPECT_EQ(message("\0alice\0a\0b\0c"s), "Invalid SASL/PLAIN response: expected 3 tokens, got 4");
  EXPECT_EQ(message(""), "Invalid SASL/PLAIN response: expected 3 tokens, got 1");
}

TEST(PlainServerTest, APasswordPrefixOrExtensionIsWrong) {
  EXPECT_EQ(run("\0alice\0alice-secre"s).kind, SaslStep::Kind::kFailed);
  EXPECT_EQ(run("\0alice\0alice-secret!"s).kind, SaslStep::Kind::kFailed);
  EXPECT_EQ(run("\0alice\0alice-secret\0"s).kind, SaslStep::Kind::kFailed);
}

TEST(PlainServerTest, RefusesAnOversizedMessageBeforeSplittingIt) {
  const std::string big = "\0alice\0"s + std::string(kMaxPlainMessageBytes, 'x');
  const SaslStep step = run(big);
  EXPECT_EQ(step.kind, SaslStep::Kind::kFailed);
  EXPECT_NE(step.client_message->find("at most 65536"), std::string::npos);
}

TEST(PlainServerTest, ASecondMessageFailsEvenAfterSuccess) {
  PlainServer server(users());
  ASSERT_EQ(server.evaluate("\0alice\0alice-secret"s).kind, SaslStep::Kind::kComplete);
  EXPECT_EQ(server.evaluate("\0alice\0alice-secret"s).kind, SaslStep::Kind::kFailed);
}

TEST(PlainServerTest, UsersComeOnlyFromPlainLoginModule) {
  auto module = parse_server_jaas_config(R"(org.example.Other required user_alice="x";)");
  ASSERT_TRUE(module.ok());
  EXPECT_FALSE(PlainUsers::from_jaas(*module).ok());
}

TEST(SaslFailureMessageTest, GenericUnlessTheMechanismSaysOtherwise) {
  EXPECT_EQ(failure_message(SaslStep::failed("no such user"), "SCRAM-SHA-256", false),
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256");
  EXPECT_EQ(failure_message(SaslStep::failed("x"), "PLAIN", true),
            "Authentication failed during re-authentication due to invalid credentials with SASL mechanism PLAIN");
  EXPECT_EQ(failure_message(SaslStep::rejected("Authentication failed: x"), "PLAIN", false),
            "Authentication failed: x");
}

}  // namespace
}  // namespace rokka::security
