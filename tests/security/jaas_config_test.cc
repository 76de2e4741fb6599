#include "security/jaas_config.h"

#include <gtest/gtest.h>

namespace rokka::security {
namespace {

JaasModule parse_one(std::string_view text) {
  auto modules = parse_jaas_config(text);
  EXPECT_TRUE(modules.ok()) << (modules.ok() ? "" : modules.error().message());
  if (!modules.ok() || modules->size() != 1) return {};
  return modules->front();
}

std::string error_of(std::string_view text) {
  auto modules = parse_jaas_config(text);
  return modules.ok() ? "parsed" : modules.error().message();
}

TEST(JaasConfigTest, ParsesKafkasPlainServerExample) {
  const JaasModule m = parse_one(
      R"(org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" )"
      R"(password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";)");
  EXPECT_EQ(m.login_module, kPlainLoginModule);
  EXPECT_EQ(m.control_flag, JaasControlFlag::kRequired);
  ASSERT_EQ(m.options.size(), 4u);
  EXPECT_EQ(*m.option("user_alice"), "alice-secret");
  EXPECT_EQ(*m.option("username"), "admin");
  EXPECT_EQ(m.option("user_bob"), nullptr);
}

TEST(JaasConfigTest, ControlFlagsAreCaseInsensitive) {
  EXPECT_EQ(parse_one("a.B REQUISITE;").control_flag, JaasControlFlag::kRequisite);
  EXPECT_EQ(parse_one("a.B Sufficient;").control_flag, JaasControlFlag::kSufficient);
  EXPECT_EQ(parse_one("a.B optional;").control_flag, JaasControlFlag::kOptional);
  EXPECT_EQ(error_of("a.B mandatory;"), "Invalid login module control flag 'mandatory' in JAAS config");
}

TEST(JaasConfigTest, QuotedValuesTakeJavaEscapesAndEitherQuote) {
  const JaasModule m = parse_one(R"(M required a="x\"y" b='single "q"' c="tab\there" d="\101\7" e="back\\slash" f="\q";)");
  EXPECT_EQ(*m.option("a"), "x\"y");
  EXPECT_EQ(*m.option("b"), "single \"q\"");
  EXPECT_EQ(*m.option("c"), "tab\there");
  EXPECT_EQ(*m.option("d"), std::string("A\x07"));
  EXPECT_EQ(*m.option("e"), "back\\slash");
  EXPECT_EQ(*m.option("f"), "q");
}

TEST(JaasConfigTest, UnquotedValuesAreWordsWithDotsDashesUnderscoresAndDollars) {
  const JaasModule m = parse_one("M required user_bob=bob-1.x_$y unsecuredValidatorAllowableClockSkewMs=\"30\";");
  EXPECT_EQ(*m.option("user_bob"), "bob-1.x_$y");
  EXPECT_EQ(*m.option("unsecuredValidatorAllowableClockSkewMs"), "30");
  // A number is no string value in Kafka's tokenizer.
  EXPECT_EQ(error_of("M required password=123;"), "Value not specified for key 'password' in JAAS config");
  EXPECT_EQ(error_of("M required password=p@ss;"), "Value not specified for key '@' in JAAS config");
}

TEST(JaasConfigTest, CommentsAndLineBreaksAreBlank) {
  const JaasModule m = parse_one("// leading comment\nM /* the flag: */ required\n  a=\"1\" // trailing\n  b=\"2\";");
  EXPECT_EQ(*m.option("a"), "1");
  EXPECT_EQ(*m.option("b"), "2");
}

TEST(JaasConfigTest, TheLastDuplicateOptionWins) {
  EXPECT_EQ(*parse_one("M required a=\"1\" a=\"2\";").option("a"), "2");
}

TEST(JaasConfigTest, SeveralEntriesParse) {
  auto modules = parse_jaas_config("A required x=\"1\"; B optional;");
  ASSERT_TRUE(modules.ok());
  ASSERT_EQ(modules->size(), 2u);
  EXPECT_EQ((*modules)[1].login_module, "B");
  EXPECT_TRUE((*modules)[1].options.empty());
}

TEST(JaasConfigTest, ErrorsCarryKafkasMessages) {
  EXPECT_EQ(error_of(""), "Login module not specified in JAAS config");
  EXPECT_EQ(error_of("  /* only a comment */ "), "Login module not specified in JAAS config");
  EXPECT_EQ(error_of("M"), "Login module control flag not specified in JAAS config");
  EXPECT_EQ(error_of("M ;"), "Login module control flag is not available in the JAAS config");
  EXPECT_EQ(error_of("M required a=\"1\""), "JAAS config entry not terminated by semi-colon");
  EXPECT_EQ(error_of("M required a=\"unterminated;"), "JAAS config entry not terminated by semi-colon");
  EXPECT_EQ(error_of("M required a;"), "Value not specified for key 'a' in JAAS config");
  EXPECT_EQ(error_of("M required a=;"), "Value not specified for key 'a' in JAAS config");
}

TEST(JaasConfigTest, ServerValuesHoldExactlyOneAllowedModule) {
  EXPECT_TRUE(parse_server_jaas_config("M required;").ok());
  auto two = parse_server_jaas_config("A required; B required;");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message(), "JAAS config property contains 2 login modules, should be 1 module");
  EXPECT_FALSE(parse_server_jaas_config("com.sun.security.auth.module.JndiLoginModule required;").ok());
}

}  // namespace
}  // namespace rokka::security
