#include "security/sasl_listener.h"

#include <gtest/gtest.h>

#include "tests/security/scram_test_client.h"

namespace rokka::security {
namespace {

using namespace std::string_literals;

ConfigMap sasl_ssl_settings() {
  // As an operator writes them for listener SASL_SSL; listener_config() strips the prefix.
  return listener_config(
      {{"listener.name.sasl_ssl.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512, OAUTHBEARER"},
       {"listener.name.sasl_ssl.plain.sasl.jaas.config",
        std::string(kPlainLoginModule) + R"( required username="admin" password="a" user_alice="alice-secret";)"},
       {"listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class",
        std::string(kOAuthBearerUnsecuredValidatorClass)},
       {"listener.name.sasl_ssl.oauthbearer.connections.max.reauth.ms", "60000"},
       {"connections.max.reauth.ms", "3600000"},
       {"sasl.enabled.mechanisms", "GSSAPI"}},  // the broker-wide value the listener's overrides
      "SASL_SSL");
}

TEST(SaslListenerTest, BuildsEachEnabledMechanismFromKafkasKeys) {
  auto l = SaslListener::from_config(sasl_ssl_settings());
  ASSERT_TRUE(l.ok()) << l.error().message();
  EXPECT_EQ(l->enabled_mechanisms(), (std::vector<std::string>{"PLAIN", "SCRAM-SHA-512", "OAUTHBEARER"}));
  EXPECT_EQ(l->max_reauth_ms("OAUTHBEARER"), 60000);
  EXPECT_EQ(l->max_reauth_ms("PLAIN"), 3600000);
  EXPECT_EQ(l->create("SCRAM-SHA-256", {}), nullptr);

  auto plain = l->create("PLAIN", {});
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->evaluate("\0alice\0alice-secret"s).kind, SaslStep::Kind::kComplete);

  const ScramCredential cred = generate_scram_credential(ScramMechanism::kSha512, "bob-secret", 4096).value();
  auto scram = l->create("SCRAM-SHA-512", [&](std::string_view user, ScramMechanism m) -> std::optional<ScramCredential> {
    if (user == "bob" && m == ScramMechanism::kSha512) return cred;
    return std::nullopt;
  });
  ASSERT_NE(scram, nullptr);
  testing::ScramTestClient client(ScramHash::kSha512, "bob", "bob-secret", "nonce");
  const SaslStep first = scram->evaluate(client.first());
  EXPECT_EQ(scram->evaluate(client.final(first.data)).kind, SaslStep::Kind::kComplete);
  EXPECT_EQ(scram->authorization_id(), "bob");

  EXPECT_NE(l->create("OAUTHBEARER", {}), nullptr);
}

TEST(SaslListenerTest, ConfigErrorsNameTheKey) {
  const auto error = [](ConfigMap c) {
    auto l = SaslListener::from_config(c);
    return l.ok() ? std::string("ok") : l.error().message();
  };
  EXPECT_TRUE(error({}).starts_with("sasl.enabled.mechanisms: not set"));
  EXPECT_TRUE(error({{"sasl.enabled.mechanisms", "GSSAPI"}}).starts_with("sasl.enabled.mechanisms: 'GSSAPI'"));
  EXPECT_TRUE(error({{"sasl.enabled.mechanisms", "PLAIN"}}).starts_with("plain.sasl.jaas.config: PLAIN needs"));
  EXPECT_EQ(error({{"sasl.enabled.mechanisms", "PLAIN"}, {"plain.sasl.jaas.config", "x required"}}),
            "plain.sasl.jaas.config: JAAS config entry not terminated by semi-colon");
  EXPECT_EQ(error({{"sasl.enabled.mechanisms", "SCRAM-SHA-256"}}), "ok");
  EXPECT_TRUE(error({{"sasl.enabled.mechanisms", "OAUTHBEARER"}}).starts_with("sasl.oauthbearer.jwks.endpoint.url"));
  EXPECT_TRUE(error({{"sasl.enabled.mechanisms", "SCRAM-SHA-256"}, {"connections.max.reauth.ms", "soon"}})
                  .starts_with("connections.max.reauth.ms"));
}

TEST(SaslSessionTest, LifetimeIsTheSoonerOfTheCredentialAndTheReauthLimit) {
  EXPECT_EQ(session_lifetime_ms(std::nullopt, 0, 1000), 0);
  EXPECT_EQ(session_lifetime_ms(std::nullopt, 5000, 1000), 5000);
  EXPECT_EQ(session_lifetime_ms(61000, 0, 1000), 60000);
  EXPECT_EQ(session_lifetime_ms(61000, 5000, 1000), 5000);
  EXPECT_EQ(session_lifetime_ms(3000, 5000, 1000), 2000);
  EXPECT_EQ(session_lifetime_ms(500, 5000, 1000), 0);  // already expired
}

TEST(SaslSessionTest, ReauthenticationKeepsThePrincipalAndTheMechanism) {
  EXPECT_FALSE(reauthentication_principal_error(KafkaPrincipal::user("a"), KafkaPrincipal::user("a")));
  EXPECT_EQ(reauthentication_principal_error(KafkaPrincipal::user("a"), KafkaPrincipal::user("b")),
            "Cannot change principals during re-authentication from User.a: User.b");
  EXPECT_FALSE(reauthentication_mechanism_error("PLAIN", "PLAIN"));
  EXPECT_EQ(reauthentication_mechanism_error("PLAIN", "SCRAM-SHA-256"),
            "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for re-authentication of mechanism 'PLAIN'");
}

TEST(ConfigMapTest, ListenerOverridesWinAndListsAreTrimmed) {
  const ConfigMap c = listener_config({{"ssl.client.auth", "none"}, {"listener.name.internal.ssl.client.auth", "required"},
                                       {"listener.name.other.x", "1"}},
                                      "INTERNAL");
  EXPECT_EQ(config_value(c, "ssl.client.auth"), "required");
  EXPECT_EQ(config_value(c, "listener.name.other.x"), "1");
  EXPECT_EQ(config_list(" a, ,b ,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(mechanism_value({{"plain.k", "1"}, {"k", "2"}}, "PLAIN", "k"), "1");
  EXPECT_EQ(mechanism_value({{"k", "2"}}, "PLAIN", "k"), "2");
}

}  // namespace
}  // namespace rokka::security
