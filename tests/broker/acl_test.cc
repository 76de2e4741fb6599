// ACL bindings, filters and the Authorizer's decisions (Kafka's rules, broker/meta/acl.h,
// broker/meta/authorizer.h), on an in-memory MetaStore.
#include <gtest/gtest.h>

#include "broker/meta/acl.h"
#include "broker/meta/authorizer.h"
#include "broker/broker.h"
#include "broker/config/config.h"
#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

using testutil::FakeMetaStore;

AclBinding binding(ResourceType type, std::string name, PatternType pattern, std::string principal,
                   AclOperation op, AclPermission permission, std::string host = "*") {
  return AclBinding{type, std::move(name), pattern, std::move(principal), std::move(host), op, permission};
}

AclBinding allow_topic(std::string name, AclOperation op, PatternType pattern = PatternType::kLiteral,
                       std::string principal = "User:ANONYMOUS") {
  return binding(ResourceType::kTopic, std::move(name), pattern, std::move(principal), op, AclPermission::kAllow);
}

AclBinding deny_topic(std::string name, AclOperation op, std::string principal = "User:ANONYMOUS") {
  return binding(ResourceType::kTopic, std::move(name), PatternType::kLiteral, std::move(principal), op,
                 AclPermission::kDeny);
}

// ---- validation

TEST(AclValidationTest, AcceptsConcreteBindings) {
  EXPECT_FALSE(validate_binding(allow_topic("orders", AclOperation::kRead)));
  EXPECT_FALSE(validate_binding(allow_topic("ord", AclOperation::kAll, PatternType::kPrefixed)));
  EXPECT_FALSE(validate_binding(binding(ResourceType::kCluster, "kafka-cluster", PatternType::kLiteral, "User:a",
                                     AclOperation::kAlter, AclPermission::kDeny)));
}

TEST(AclValidationTest, RejectsFilterOnlyAndUnknownValues) {
  AclBinding b = allow_topic("t", AclOperation::kRead);
  for (auto pattern : {PatternType::kAny, PatternType::kMatch, PatternType::kUnknown}) {
    AclBinding bad = b;
    bad.pattern_type = pattern;
    EXPECT_TRUE(validate_binding(bad)) << static_cast<int>(pattern);
  }
  for (auto type : {ResourceType::kAny, ResourceType::kUnknown}) {
    AclBinding bad = b;
    bad.resource_type = type;
    EXPECT_TRUE(validate_binding(bad));
  }
  for (auto op : {AclOperation::kAny, AclOperation::kUnknown}) {
    AclBinding bad = b;
    bad.operation = op;
    EXPECT_TRUE(validate_binding(bad));
  }
  for (auto perm : {AclPermission::kAny, AclPermission::kUnknown}) {
    AclBinding bad = b;
    bad.permission = perm;
    EXPECT_TRUE(validate_binding(bad));
  }
}

TEST(AclValidationTest, RejectsEmptyNameBadPrincipalAndOtherClusterNames) {
  EXPECT_TRUE(validate_binding(allow_topic("", AclOperation::kRead)));
  EXPECT_TRUE(validate_binding(allow_topic("t", AclOperation::kRead, PatternType::kLiteral, "ANONYMOUS")));
  EXPECT_TRUE(validate_binding(binding(ResourceType::kCluster, "my-cluster", PatternType::kLiteral, "User:a",
                                     AclOperation::kAlter, AclPermission::kAllow)));
}

TEST(AclValidationTest, OutOfRangeWireCodesReadAsUnknown) {
  EXPECT_EQ(to_resource_type(8), ResourceType::kUnknown);
  EXPECT_EQ(to_resource_type(-1), ResourceType::kUnknown);
  EXPECT_EQ(to_pattern_type(5), PatternType::kUnknown);
  EXPECT_EQ(to_acl_operation(15), AclOperation::kUnknown);
  EXPECT_EQ(to_acl_permission(4), AclPermission::kUnknown);
  EXPECT_EQ(to_acl_operation(12), AclOperation::kIdempotentWrite);
  AclFilter f;
  f.operation = to_acl_operation(99);
  EXPECT_TRUE(validate_filter(f));
  EXPECT_FALSE(validate_filter(AclFilter{}));
}

// ---- filters

TEST(AclFilterTest, AnyPatternComparesNamesExactly) {
  AclFilter f;
  f.resource_name = "orders";
  EXPECT_TRUE(filter_matches(f, allow_topic("orders", AclOperation::kRead)));
  EXPECT_TRUE(filter_matches(f, allow_topic("orders", AclOperation::kRead, PatternType::kPrefixed)));
  EXPECT_FALSE(filter_matches(f, allow_topic("ord", AclOperation::kRead, PatternType::kPrefixed)));
  EXPECT_FALSE(filter_matches(f, allow_topic("*", AclOperation::kRead)));
}

TEST(AclFilterTest, MatchFindsLiteralWildcardAndPrefixBindings) {
  AclFilter f;
  f.pattern_type = PatternType::kMatch;
  f.resource_name = "orders-eu";
  EXPECT_TRUE(filter_matches(f, allow_topic("orders-eu", AclOperation::kRead)));
  EXPECT_TRUE(filter_matches(f, allow_topic("*", AclOperation::kRead)));
  EXPECT_TRUE(filter_matches(f, allow_topic("orders-", AclOperation::kRead, PatternType::kPrefixed)));
  EXPECT_FALSE(filter_matches(f, allow_topic("orders-", AclOperation::kRead)));  // literal, not a prefix
  EXPECT_FALSE(filter_matches(f, allow_topic("orders-eu-2", AclOperation::kRead, PatternType::kPrefixed)));
  EXPECT_FALSE(filter_matches(f, allow_topic("orders-eu-2", AclOperation::kRead)));
}

TEST(AclFilterTest, ConcretePatternTypeSelectsOnlyThatType) {
  AclFilter f;
  f.pattern_type = PatternType::kLiteral;
  f.resource_name = "ord";
  EXPECT_TRUE(filter_matches(f, allow_topic("ord", AclOperation::kRead)));
  EXPECT_FALSE(filter_matches(f, allow_topic("ord", AclOperation::kRead, PatternType::kPrefixed)));
}

TEST(AclFilterTest, EntryFieldsCompareUnlessAbsentOrAny) {
  const AclBinding b = allow_topic("t", AclOperation::kWrite, PatternType::kLiteral, "User:alice");
  AclFilter f;
  EXPECT_TRUE(filter_matches(f, b));
  f.principal = "User:bob";
  EXPECT_FALSE(filter_matches(f, b));
  f.principal = "User:alice";
  f.operation = AclOperation::kRead;
  EXPECT_FALSE(filter_matches(f, b));
  f.operation = AclOperation::kWrite;
  f.permission = AclPermission::kDeny;
  EXPECT_FALSE(filter_matches(f, b));
  f.permission = AclPermission::kAllow;
  f.host = "10.0.0.1";
  EXPECT_FALSE(filter_matches(f, b));
  f.host = "*";
  EXPECT_TRUE(filter_matches(f, b));
  f.resource_type = ResourceType::kGroup;
  EXPECT_FALSE(filter_matches(f, b));
}

// ---- decisions

class AuthorizerTest : public ::testing::Test {
 protected:
  AuthorizerTest() { meta_.set_auto_complete(true); }

  Authorizer make(bool allow_if_none = false, std::vector<std::string> super_users = {}) {
    return Authorizer(meta_, AuthorizerOptions{true, allow_if_none, std::move(super_users)});
  }
  static void add(Authorizer& a, std::vector<AclBinding> bindings) {
    storage::Status result = storage::Status::corruption("not called");
    a.create(std::move(bindings), [&](storage::Status s) { result = s; });
    ASSERT_TRUE(result.ok()) << result.to_string();
  }
  static bool may(const Authorizer& a, AclOperation op, std::string_view topic, std::string_view host = "127.0.0.1") {
    return a.check(Authorizer::kAnonymous, host, op, ResourceType::kTopic, topic);
  }

  FakeMetaStore meta_;
};

TEST_F(AuthorizerTest, DisabledAllowsEverything) {
  Authorizer a(meta_, AuthorizerOptions{});
  add(a, {deny_topic("t", AclOperation::kAll)});
  EXPECT_TRUE(may(a, AclOperation::kWrite, "t"));
}

TEST_F(AuthorizerTest, NoAclOnTheResourceFollowsAllowEveryoneIfNoAclFound) {
  Authorizer strict = make(false);
  Authorizer open = make(true);
  EXPECT_FALSE(may(strict, AclOperation::kRead, "t"));
  EXPECT_TRUE(may(open, AclOperation::kRead, "t"));
  // An ACL for someone else still counts as "an ACL on the resource".
  add(open, {allow_topic("t", AclOperation::kRead, PatternType::kLiteral, "User:alice")});
  EXPECT_FALSE(may(open, AclOperation::kRead, "t"));
  EXPECT_TRUE(may(open, AclOperation::kRead, "other"));
}

TEST_F(AuthorizerTest, DenyWinsOverAllow) {
  Authorizer a = make(true);
  add(a, {allow_topic("t", AclOperation::kAll), deny_topic("t", AclOperation::kWrite)});
  EXPECT_FALSE(may(a, AclOperation::kWrite, "t"));
  EXPECT_TRUE(may(a, AclOperation::kRead, "t"));
}

TEST_F(AuthorizerTest, DenyAllDeniesEveryOperation) {
  Authorizer a = make(true);
  add(a, {allow_topic("t", AclOperation::kAll), deny_topic("t", AclOperation::kAll)});
  for (auto op : {AclOperation::kRead, AclOperation::kWrite, AclOperation::kDescribe, AclOperation::kDelete})
    EXPECT_FALSE(may(a, op, "t"));
}

TEST_F(AuthorizerTest, DescribeIsImpliedByReadWriteDeleteAlter) {
  for (auto granted : {AclOperation::kRead, AclOperation::kWrite, AclOperation::kDelete, AclOperation::kAlter}) {
    FakeMetaStore meta;
    meta.set_auto_complete(true);
    Authorizer a(meta, AuthorizerOptions{true, false, {}});
    add(a, {allow_topic("t", granted)});
    EXPECT_TRUE(may(a, AclOperation::kDescribe, "t")) << static_cast<int>(granted);
    EXPECT_FALSE(may(a, AclOperation::kDescribeConfigs, "t"));
  }
  Authorizer a = make();
  add(a, {allow_topic("t", AclOperation::kAlterConfigs)});
  EXPECT_TRUE(may(a, AclOperation::kDescribeConfigs, "t"));
  EXPECT_FALSE(may(a, AclOperation::kDescribe, "t"));
  // An implication never runs the other way, and a DENY READ does not deny DESCRIBE.
  Authorizer b = make();
  add(b, {allow_topic("u", AclOperation::kDescribe)});
  EXPECT_FALSE(may(b, AclOperation::kRead, "u"));
  add(b, {allow_topic("u", AclOperation::kWrite), deny_topic("u", AclOperation::kRead)});
  EXPECT_TRUE(may(b, AclOperation::kDescribe, "u"));
}

TEST_F(AuthorizerTest, WildcardNamesPrefixesPrincipalsAndHostsApply) {
  Authorizer a = make();
  add(a, {allow_topic("*", AclOperation::kRead),
          allow_topic("logs-", AclOperation::kWrite, PatternType::kPrefixed, "User:*"),
          binding(ResourceType::kTopic, "audit", PatternType::kLiteral, "User:ANONYMOUS", AclOperation::kWrite,
                  AclPermission::kAllow, "10.1.1.1")});
  EXPECT_TRUE(may(a, AclOperation::kRead, "anything"));
  EXPECT_TRUE(may(a, AclOperation::kWrite, "logs-app"));
  EXPECT_FALSE(may(a, AclOperation::kWrite, "log"));
  EXPECT_FALSE(may(a, AclOperation::kWrite, "audit", "127.0.0.1"));
  EXPECT_TRUE(may(a, AclOperation::kWrite, "audit", "10.1.1.1"));
  // Other resource types are untouched by topic bindings.
  EXPECT_FALSE(a.check(Authorizer::kAnonymous, "127.0.0.1", AclOperation::kRead, ResourceType::kGroup, "anything"));
}

TEST_F(AuthorizerTest, SuperUsersAreAllowedEverything) {
  Authorizer a = make(false, parse_super_users(" User:admin ; User:ANONYMOUS;"));
  add(a, {deny_topic("t", AclOperation::kAll)});
  EXPECT_TRUE(may(a, AclOperation::kWrite, "t"));
  EXPECT_EQ(parse_super_users("User:a;;User:b"), (std::vector<std::string>{"User:a", "User:b"}));
}

TEST_F(AuthorizerTest, BindingsSurviveARestartAndDuplicatesAreOne) {
  {
    Authorizer a = make();
    add(a, {allow_topic("t", AclOperation::kRead), allow_topic("t", AclOperation::kRead),
            allow_topic("p-", AclOperation::kWrite, PatternType::kPrefixed)});
    EXPECT_EQ(a.size(), 2u);
  }
  Authorizer reloaded = make();
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.size(), 2u);
  EXPECT_TRUE(may(reloaded, AclOperation::kRead, "t"));
  EXPECT_TRUE(may(reloaded, AclOperation::kWrite, "p-1"));
}

TEST_F(AuthorizerTest, RemoveReportsMatchesPerFilterAndIsDurable) {
  Authorizer a = make();
  add(a, {allow_topic("t", AclOperation::kRead), allow_topic("t", AclOperation::kWrite),
          allow_topic("t-", AclOperation::kRead, PatternType::kPrefixed), allow_topic("u", AclOperation::kRead)});
  AclFilter reads;
  reads.operation = AclOperation::kRead;
  reads.pattern_type = PatternType::kMatch;
  reads.resource_name = "t-1";
  AclFilter nothing;
  nothing.principal = "User:nobody";
  std::optional<storage::Result<std::vector<std::vector<AclBinding>>>> got;
  a.remove({reads, nothing}, [&](auto r) { got = std::move(r); });
  ASSERT_TRUE(got && got->ok());
  ASSERT_EQ(got->value().size(), 2u);
  EXPECT_EQ(got->value()[0], (std::vector<AclBinding>{allow_topic("t-", AclOperation::kRead, PatternType::kPrefixed)}));
  EXPECT_TRUE(got->value()[1].empty());

  Authorizer reloaded = make();
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.size(), 3u);
  EXPECT_EQ(reloaded.describe(AclFilter{}), a.describe(AclFilter{}));
}

TEST_F(AuthorizerTest, AFailedWriteChangesNothing) {
  meta_.set_auto_complete(false);
  Authorizer a = make();
  std::optional<storage::Status> result;
  a.create({allow_topic("t", AclOperation::kRead)}, [&](storage::Status s) { result = s; });
  meta_.fail_next();
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->ok());
  EXPECT_EQ(a.size(), 0u);
}

TEST_F(AuthorizerTest, KeysRoundTripAndGarbageIsRejected) {
  const AclBinding b = binding(ResourceType::kTransactionalId, "tx:1/2", PatternType::kPrefixed, "User:a:b",
                               AclOperation::kWrite, AclPermission::kDeny, "::1");
  ASSERT_TRUE(Authorizer::decode_key(Authorizer::encode_key(b)).has_value());
  EXPECT_TRUE(*Authorizer::decode_key(Authorizer::encode_key(b)) == b);
  std::string key = Authorizer::encode_key(b);
  EXPECT_FALSE(Authorizer::decode_key(key.substr(0, key.size() - 1)).has_value());
  EXPECT_FALSE(Authorizer::decode_key(key + "x").has_value());
  EXPECT_FALSE(Authorizer::decode_key("a/").has_value());
}

// ---- configuration

TEST(AuthorizerConfigTest, KafkasAuthorizerClassesTurnItOnAndOthersStopStartup) {
  auto none = load_config("", {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(Broker::authorizer_options(*none).enabled);
  EXPECT_FALSE(Broker::authorizer_options(*none).allow_everyone_if_no_acl_found);

  for (const char* cls : {"org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                          "kafka.security.authorizer.AclAuthorizer"}) {
    auto on = load_config("authorizer.class.name=" + std::string(cls) + "\nsuper.users=User:admin;User:ops\n",
                          {{"allow.everyone.if.no.acl.found", "true"}});
    ASSERT_TRUE(on.ok()) << on.status().to_string();
    const AuthorizerOptions o = Broker::authorizer_options(*on);
    EXPECT_TRUE(o.enabled);
    EXPECT_TRUE(o.allow_everyone_if_no_acl_found);
    EXPECT_EQ(o.super_users, (std::vector<std::string>{"User:admin", "User:ops"}));
  }
  EXPECT_FALSE(load_config("", {{"authorizer.class.name", "com.example.MyAuthorizer"}}).ok());
}

}  // namespace
}  // namespace rokka::broker
