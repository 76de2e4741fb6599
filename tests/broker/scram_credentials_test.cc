// ScramCredentials (broker/meta/scram_credentials.h) on an in-memory MetaStore: what a
// lookup gives a ScramServer, durability before the callback, and reloading.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "broker/meta/scram_credentials.h"
#include "security/scram_crypto.h"
#include "security/scram_server.h"
#include "tests/security/scram_test_client.h"
#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

using security::SaslStep;
using security::ScramCredentialRecord;
using security::ScramHash;
using security::ScramMechanism;
using testutil::FakeMetaStore;

// The record AlterUserScramCredentials would carry for `password`: the client salts it.
ScramCredentialRecord record_for(const std::string& user, ScramMechanism m, const std::string& password,
                                 int32_t iterations = 4096, const std::string& salt = "client-salt") {
  const std::string salted = security::scram_salted_password(security::scram_hash(m), password, salt, iterations);
  auto c = security::scram_credential_from_salted_password(m, salt, salted, iterations);
  EXPECT_TRUE(c.ok());
  return {user, m, std::move(c).value()};
}

storage::Status upsert(ScramCredentials& s, ScramCredentialRecord r) {
  std::optional<storage::Status> got;
  s.upsert(std::move(r), [&](storage::Status st) { got = st; });
  EXPECT_TRUE(got.has_value()) << "auto-completing store: the callback runs inside upsert";
  return got.value_or(storage::Status::io_error("no callback"));
}

// One whole SCRAM exchange against a ScramServer fed by the store's lookup.
SaslStep::Kind authenticate(const ScramCredentials& s, ScramMechanism m, const std::string& user,
                            const std::string& password) {
  security::ScramServer server(m, s.lookup_function(), [] { return std::string("server-nonce"); });
  security::testing::ScramTestClient client(security::scram_hash(m), user, password, "client-nonce");
  const SaslStep first = server.evaluate(client.first());
  if (first.kind != SaslStep::Kind::kChallenge) return first.kind;
  const SaslStep last = server.evaluate(client.final(first.data));
  if (last.kind == SaslStep::Kind::kComplete) {
    EXPECT_TRUE(client.verify(last.data));
  }
  return last.kind;
}

TEST(ScramCredentialsTest, AStoredCredentialAuthenticatesTheRightPasswordOnly) {
  FakeMetaStore meta;
  meta.set_auto_complete(true);
  ScramCredentials s(meta);
  ASSERT_TRUE(upsert(s, record_for("alice", ScramMechanism::kSha512, "alice-secret", 8192)).ok());
  ASSERT_TRUE(upsert(s, record_for("bob", ScramMechanism::kSha256, "bob-secret")).ok());

  EXPECT_EQ(authenticate(s, ScramMechanism::kSha512, "alice", "alice-secret"), SaslStep::Kind::kComplete);
  EXPECT_EQ(authenticate(s, ScramMechanism::kSha256, "bob", "bob-secret"), SaslStep::Kind::kComplete);
  EXPECT_EQ(authenticate(s, ScramMechanism::kSha512, "alice", "wrong"), SaslStep::Kind::kFailed);
  // A credential is per mechanism: alice has none for SHA-256.
  EXPECT_EQ(authenticate(s, ScramMechanism::kSha256, "alice", "alice-secret"), SaslStep::Kind::kFailed);
  EXPECT_EQ(authenticate(s, ScramMechanism::kSha256, "nobody", "x"), SaslStep::Kind::kFailed);

  auto looked_up = s.lookup("alice", ScramMechanism::kSha512);
  ASSERT_TRUE(looked_up);
  EXPECT_EQ(looked_up->iterations, 8192);
  EXPECT_EQ(looked_up->salt, "client-salt");
}

TEST(ScramCredentialsTest, NothingIsVisibleBeforeTheWriteIsDurable) {
  FakeMetaStore meta;
  ScramCredentials s(meta);
  std::optional<storage::Status> got;
  s.upsert(record_for("alice", ScramMechanism::kSha256, "pw"), [&](storage::Status st) { got = st; });
  EXPECT_FALSE(got);
  EXPECT_FALSE(s.lookup("alice", ScramMechanism::kSha256));
  ASSERT_TRUE(meta.complete_next());
  ASSERT_TRUE(got && got->ok());
  EXPECT_TRUE(s.lookup("alice", ScramMechanism::kSha256));

  // A failed write changes nothing.
  got.reset();
  s.remove("alice", ScramMechanism::kSha256, [&](storage::Status st) { got = st; });
  ASSERT_TRUE(meta.fail_next());
  ASSERT_TRUE(got);
  EXPECT_FALSE(got->ok());
  EXPECT_TRUE(s.lookup("alice", ScramMechanism::kSha256));
}

TEST(ScramCredentialsTest, CredentialsSurviveAReloadAndRemovalIsDurable) {
  FakeMetaStore meta;
  meta.set_auto_complete(true);
  {
    ScramCredentials s(meta);
    ASSERT_TRUE(upsert(s, record_for("alice", ScramMechanism::kSha256, "a256")).ok());
    ASSERT_TRUE(upsert(s, record_for("alice", ScramMechanism::kSha512, "a512", 5000)).ok());
    ASSERT_TRUE(upsert(s, record_for("carol", ScramMechanism::kSha512, "c512")).ok());
    std::optional<storage::Status> removed;
    s.remove("carol", ScramMechanism::kSha512, [&](storage::Status st) { removed = st; });
    ASSERT_TRUE(removed && removed->ok());
  }
  EXPECT_TRUE(meta.contains(ScramCredentials::encode_key("alice", ScramMechanism::kSha512)));
  EXPECT_FALSE(meta.contains(ScramCredentials::encode_key("carol", ScramMechanism::kSha512)));
  ScramCredentials reloaded(meta);
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.size(), 2u);
  EXPECT_EQ(authenticate(reloaded, ScramMechanism::kSha512, "alice", "a512"), SaslStep::Kind::kComplete);
  EXPECT_EQ(reloaded.describe("alice"), (std::vector<ScramCredentials::Info>{{ScramMechanism::kSha256, 4096},
                                                                              {ScramMechanism::kSha512, 5000}}));
  EXPECT_TRUE(reloaded.describe("carol").empty());
  const auto all = reloaded.describe_all();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].first, "alice");
}

TEST(ScramCredentialsTest, ACorruptRecordFailsTheLoad) {
  FakeMetaStore meta;
  meta.put(ScramCredentials::encode_key("alice", ScramMechanism::kSha256), "not a record");
  ScramCredentials s(meta);
  EXPECT_EQ(s.load().code(), storage::StatusCode::kCorruption);

  // A valid record under another user's key is corrupt too.
  FakeMetaStore moved;
  moved.set_auto_complete(true);
  {
    ScramCredentials w(moved);
    ASSERT_TRUE(upsert(w, record_for("alice", ScramMechanism::kSha256, "pw")).ok());
  }
  auto scanned = moved.scan(storage::meta_prefix::kScramCredentials);
  ASSERT_EQ(scanned.size(), 1u);
  FakeMetaStore other;
  other.put(ScramCredentials::encode_key("mallory", ScramMechanism::kSha256), scanned[0].second);
  ScramCredentials r(other);
  EXPECT_EQ(r.load().code(), storage::StatusCode::kCorruption);
}

}  // namespace
}  // namespace rokka::broker
