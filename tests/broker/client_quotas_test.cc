// ClientQuotas and QuotaManager on their own: Kafka's validation of an alteration and a
// filter, its precedence of user and client-id quotas, durability through the meta
// journal, and its throttle formula.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "broker/meta/client_quotas.h"
#include "broker/net/quota_manager.h"
#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;
using Name = std::optional<std::string>;

QuotaEntity user(Name u) { return {{"user", std::move(u)}}; }
QuotaEntity client(Name c) { return {{"client-id", std::move(c)}}; }
QuotaEntity user_client(Name u, Name c) { return {{"user", std::move(u)}, {"client-id", std::move(c)}}; }

QuotaError check(QuotaEntity e, std::string key, std::optional<double> value) {
  return validate_alteration({std::move(e), {{std::move(key), value}}});
}

TEST(ClientQuotasTest, ValidationFollowsKafkasController) {
  EXPECT_TRUE(check(user("alice"), "producer_byte_rate", 1024).ok());
  EXPECT_TRUE(check(client(std::nullopt), "request_percentage", 12.5).ok());
  EXPECT_TRUE(check({{"ip", "10.0.0.1"}}, "connection_creation_rate", 10).ok());
  EXPECT_TRUE(check({{"ip", std::nullopt}}, "connection_creation_rate", 10).ok());

  auto refused = [](QuotaError e, std::string message) {
    EXPECT_EQ(e.code, ErrorCode::kInvalidRequest);
    EXPECT_EQ(e.message, message);
  };
  refused(check({}, "producer_byte_rate", 1), "Invalid empty client quota entity");
  refused(check({{"group", "g"}}, "producer_byte_rate", 1), "Unhandled client quota entity type: group");
  refused(check(user(""), "producer_byte_rate", 1), "Empty user not supported");
  refused(check(user("alice"), "producer_byte_rate", 0), "Quota producer_byte_rate must be greater than 0");
  refused(check(user("alice"), "producer_byte_rate", 10.5), "producer_byte_rate cannot be a fractional value.");
  refused(check(user("alice"), "connection_creation_rate", 5), "Invalid configuration key connection_creation_rate");
  refused(check({{"ip", "10.0.0.1"}}, "producer_byte_rate", 5), "Invalid configuration key producer_byte_rate");
  refused(check({{"ip", "not an address"}}, "connection_creation_rate", 5),
          "not an address is not a valid IP or resolvable host.");
  refused(check({{"ip", "10.0.0.1"}, {"user", "alice"}}, "connection_creation_rate", 5),
          "Invalid quota entity combination, IP entity should not be combined with User or ClientId");
  refused(check({{"ip", "10.0.0.1"}}, "connection_creation_rate", 3e9),
          "Proposed value for connection_creation_rate is too large for an INT.");
  refused(validate_alteration({user("alice"), {{"producer_byte_rate", 1.0}, {"producer_byte_rate", 2.0}}}),
          "Duplicate quota key producer_byte_rate not updating quota for this entity");
  // Removing a key is always allowed, known or not.
  EXPECT_TRUE(check(user("alice"), "no_such_key", std::nullopt).ok());
}

TEST(ClientQuotasTest, FilterValidationAndMatching) {
  using M = QuotaFilterComponent::Match;
  EXPECT_TRUE(validate_filter({{"user", M::kExact, "alice"}, {"client-id", M::kSpecified, {}}}).ok());
  EXPECT_EQ(validate_filter({{"user", M::kExact, {}}}).message,
            "Request specified MATCH_TYPE_EXACT, but set match string to null.");
  EXPECT_EQ(validate_filter({{"user", M::kDefault, "alice"}}).message,
            "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
  EXPECT_EQ(validate_filter({{"user", M::kSpecified, {}}, {"user", M::kSpecified, {}}}).message,
            "Entity type user cannot appear more than once in the filter.");
  EXPECT_EQ(validate_filter({{"topic", M::kSpecified, {}}}).code, ErrorCode::kUnsupportedVersion);
  EXPECT_EQ(validate_filter({{"ip", M::kSpecified, {}}, {"user", M::kSpecified, {}}}).code,
            ErrorCode::kInvalidRequest);

  const QuotaEntity alice_c1 = user_client("alice", "c1");
  EXPECT_TRUE(filter_matches(alice_c1, {{"user", M::kExact, "alice"}}, false));
  EXPECT_FALSE(filter_matches(alice_c1, {{"user", M::kExact, "alice"}}, true));  // strict: client-id not named
  EXPECT_TRUE(filter_matches(alice_c1, {{"user", M::kExact, "alice"}, {"client-id", M::kSpecified, {}}}, true));
  EXPECT_FALSE(filter_matches(alice_c1, {{"user", M::kDefault, {}}}, false));
  EXPECT_TRUE(filter_matches(user(std::nullopt), {{"user", M::kDefault, {}}}, true));
  EXPECT_FALSE(filter_matches(user(std::nullopt), {{"client-id", M::kSpecified, {}}}, false));
  EXPECT_TRUE(filter_matches(alice_c1, {}, false));  // no components: everything
}

void alter(ClientQuotas& q, std::vector<QuotaAlteration> a) {
  std::optional<storage::Status> result;
  q.alter(std::move(a), [&](storage::Status s) { result = s; });
  ASSERT_TRUE(result);
  ASSERT_TRUE(result->ok()) << result->to_string();
}

// Kafka's eight levels, most specific first; each removal uncovers the next.
TEST(ClientQuotasTest, UserAndClientIdPrecedence) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  ClientQuotas q(meta);
  const std::string k(kProducerByteRate);
  const std::vector<QuotaEntity> levels = {user_client("alice", "c1"), user_client("alice", std::nullopt),
                                           user("alice"),              user_client(std::nullopt, "c1"),
                                           user_client(std::nullopt, std::nullopt), user(std::nullopt),
                                           client("c1"),               client(std::nullopt)};
  for (size_t i = 0; i < levels.size(); ++i) alter(q, {{levels[i], {{k, 1000.0 * static_cast<double>(i + 1)}}}});
  for (size_t i = 0; i < levels.size(); ++i) {
    QuotaEntity matched;
    auto b = q.bound(k, "alice", "c1", &matched);
    ASSERT_TRUE(b) << "level " << i;
    EXPECT_EQ(*b, 1000.0 * static_cast<double>(i + 1)) << "level " << i;
    // The clients sharing the rate: a user-level quota is the user's, whatever the client id.
    const bool user_level = i == 2 || i == 5;
    const bool client_level = i >= 6;
    EXPECT_EQ(matched, user_level ? user("alice") : client_level ? client("c1") : user_client("alice", "c1"))
        << "level " << i;
    alter(q, {{levels[i], {{k, std::nullopt}}}});
  }
  EXPECT_FALSE(q.bound(k, "alice", "c1"));
  EXPECT_FALSE(q.any(kProducerByteRate));
  EXPECT_TRUE(q.describe().empty());
}

TEST(ClientQuotasTest, QuotasSurviveAReload) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  {
    ClientQuotas q(meta);
    alter(q, {{user("alice"), {{"producer_byte_rate", 2048.0}, {"request_percentage", 50.0}}},
              {{{"ip", std::nullopt}}, {{"connection_creation_rate", 3.0}}}});
    alter(q, {{user("alice"), {{"request_percentage", std::nullopt}}}});
  }
  ClientQuotas reloaded(meta);
  ASSERT_TRUE(reloaded.load().ok());
  const auto all = reloaded.describe();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(reloaded.bound(kProducerByteRate, "alice", "any"), 2048.0);
  EXPECT_FALSE(reloaded.bound(kRequestPercentage, "alice", "any"));
  EXPECT_EQ(reloaded.ip_bound("192.0.2.7"), 3.0);
  EXPECT_TRUE(reloaded.any(kConnectionCreationRate));
}

// Kafka's formula: a rate over samples - 1 whole windows at least; over the bound, the
// throttle is the time the rate needs to fall back to it.
TEST(QuotaManagerTest, ThrottleIsTheTimeToFallBackWithinTheBound) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  ClientQuotas q(meta);
  alter(q, {{client("c1"), {{"producer_byte_rate", 1000.0}}}});
  QuotaManager m(q, QuotaWindow{11, 1000});
  // 5,000 bytes over 10 windows is 500 B/s: within 1,000 B/s.
  EXPECT_EQ(m.record_produce("ANONYMOUS", "c1", 5000), 0);
  // 20,000 in all is 2,000 B/s: (2000 - 1000) / 1000 * 10 s = 10 s.
  const int32_t throttle = m.record_produce("ANONYMOUS", "c1", 15000);
  EXPECT_GE(throttle, 9900);
  EXPECT_LE(throttle, 10100);
  // Another client has no quota; one without a bound is never counted.
  EXPECT_EQ(m.record_produce("ANONYMOUS", "c2", 1 << 30), 0);
  EXPECT_EQ(m.rates(), 1u);
}

TEST(QuotaManagerTest, FetchOverTheQuotaIsNotCountedAndIsCapped) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  ClientQuotas q(meta);
  alter(q, {{user("bob"), {{"consumer_byte_rate", 1000.0}}}});
  QuotaManager m(q, QuotaWindow{11, 1000});
  EXPECT_EQ(m.fetch_max_bytes("bob", "x"), 10000);  // 1,000 B/s over 10 windows
  EXPECT_FALSE(m.fetch_max_bytes("carol", "x"));
  EXPECT_EQ(m.record_fetch("bob", "x", 9000), 0);
  EXPECT_GT(m.record_fetch("bob", "x", 9000), 0);  // 18,000 is over: taken back out
  EXPECT_EQ(m.record_fetch("bob", "x", 1000), 0);  // 10,000: within again
}

TEST(QuotaManagerTest, RequestPercentageIsCappedAtOneWindow) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  ClientQuotas q(meta);
  alter(q, {{user(std::nullopt), {{"request_percentage", 1.0}}}});
  QuotaManager m(q, QuotaWindow{11, 1000});
  EXPECT_TRUE(m.request_quota_set());
  // 5 s of handling is 50% over 10 s, far over 1%: throttled by one window at most.
  EXPECT_EQ(m.record_request_time("dave", "c", std::chrono::seconds(5)), 1000);
}

TEST(QuotaManagerTest, ConnectionRateCountsOnlyAcceptedConnections) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  ClientQuotas q(meta);
  alter(q, {{{{"ip", "10.1.1.1"}}, {{"connection_creation_rate", 1.0}}}});
  QuotaManager m(q, QuotaWindow{11, 1000});
  // 1/s over at least 10 s: ten connections are within it, the eleventh is not.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(m.record_connection("10.1.1.1"), 0) << i;
  EXPECT_GT(m.record_connection("10.1.1.1"), 0);
  EXPECT_GT(m.record_connection("10.1.1.1"), 0);  // still over: refused ones were not counted, but 10 were
  EXPECT_EQ(m.record_connection("10.2.2.2"), 0);   // no quota for another address
}

}  // namespace
}  // namespace rokka::broker
