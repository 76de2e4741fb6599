// AlterUserScramCredentials (51) and DescribeUserScramCredentials (50) on the wire,
// against an in-process broker: what kafka-configs.sh --entity-type users sees,
// Kafka's error codes per user, durability across a restart, and authorization.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "security/scram_crypto.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::AlterUserScramCredentialsRequest;
using protocol::AlterUserScramCredentialsResponse;
using protocol::DescribeUserScramCredentialsRequest;
using protocol::DescribeUserScramCredentialsResponse;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int8_t kSha256 = 1;
constexpr int8_t kSha512 = 2;
constexpr rokka::protocol::ErrorCode kNone = rokka::protocol::ErrorCode::kNone;
constexpr rokka::protocol::ErrorCode kClusterAuthorizationFailed = rokka::protocol::ErrorCode::kClusterAuthorizationFailed;
constexpr rokka::protocol::ErrorCode kUnsupportedSaslMechanism = rokka::protocol::ErrorCode::kUnsupportedSaslMechanism;
constexpr rokka::protocol::ErrorCode kResourceNotFound = rokka::protocol::ErrorCode::kResourceNotFound;
constexpr rokka::protocol::ErrorCode kDuplicateResource = rokka::protocol::ErrorCode::kDuplicateResource;
constexpr rokka::protocol::ErrorCode kUnacceptableCredential = rokka::protocol::ErrorCode::kUnacceptableCredential;

protocol::Bytes bytes(const std::string& s) { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }

// An upsertion as a client builds it: salt and Hi(password, salt, iterations). The
// strings it points into live in the Upsert.
struct Upsert {
  std::string name;
  int8_t mechanism = kSha256;
  int32_t iterations = 4096;
  std::string salt = "salt-from-the-client";
  std::string salted;
  Upsert(std::string n, int8_t m, int32_t it, const std::string& password) : name(std::move(n)), mechanism(m), iterations(it) {
    const auto mech = security::scram_mechanism_from_type(m);
    const auto hash = security::scram_hash(mech.value_or(security::ScramMechanism::kSha256));
    salted = security::scram_salted_password(hash, password, salt, iterations);
  }
  AlterUserScramCredentialsRequest::ScramCredentialUpsertion wire() const {
    return {name, mechanism, iterations, bytes(salt), bytes(salted)};
  }
};

struct Result {
  std::string user;
  rokka::protocol::ErrorCode error = rokka::protocol::ErrorCode::kNone;
  std::optional<std::string> message;
};

class ScramApiClient {
 public:
  explicit ScramApiClient(uint16_t port) : c_(port) {}

  std::vector<Result> alter(const std::vector<AlterUserScramCredentialsRequest::ScramCredentialDeletion>& deletions,
                            const std::vector<Upsert>& upserts) {
    AlterUserScramCredentialsRequest req;
    req.deletions = deletions;
    for (const Upsert& u : upserts) req.upsertions.push_back(u.wire());
    c_.send(req, 0, ++cid_);
    auto resp = c_.receive<AlterUserScramCredentialsResponse>(0, cid_);
    EXPECT_TRUE(resp);
    std::vector<Result> out;
    if (resp)
      for (auto& r : resp->results) out.push_back({r.user, r.error_code, r.error_message});
    return out;
  }

  std::optional<DescribeUserScramCredentialsResponse> describe(std::optional<std::vector<std::string>> users) {
    DescribeUserScramCredentialsRequest req;
    if (users) {
      req.users.emplace();
      for (const auto& u : *users) req.users->push_back({u});
    }
    c_.send(req, 0, ++cid_);
    return c_.receive<DescribeUserScramCredentialsResponse>(0, cid_);
  }

  WireClient& wire() { return c_; }

 private:
  WireClient c_;
  int32_t cid_ = 0;
};

using Infos = std::vector<std::pair<int8_t, int32_t>>;  // (mechanism, iterations)

Infos infos(const DescribeUserScramCredentialsResponse::DescribeUserScramCredentialsResult& r) {
  Infos out;
  for (const auto& i : r.credential_infos) out.emplace_back(i.mechanism, i.iterations);
  return out;
}

TEST(ScramApiTest, AlterThenDescribeShowsMechanismsAndIterations) {
  InProcessBroker b;
  ScramApiClient c(b.port());
  auto results = c.alter({}, {Upsert("alice", kSha256, 4096, "a"), Upsert("bob", kSha512, 8192, "b")});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].user, "alice");
  EXPECT_EQ(results[0].error, kNone);
  EXPECT_FALSE(results[0].message);
  EXPECT_EQ(results[1].user, "bob");
  EXPECT_EQ(results[1].error, kNone);
  // A second mechanism for alice, and a new iteration count for bob (an upsert replaces).
  results = c.alter({}, {Upsert("alice", kSha512, 10000, "a"), Upsert("bob", kSha512, 16384, "b2")});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error, kNone);
  EXPECT_EQ(results[1].error, kNone);

  auto all = c.describe(std::nullopt);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->error_code, kNone);
  ASSERT_EQ(all->results.size(), 2u);
  EXPECT_EQ(all->results[0].user, "alice");
  EXPECT_EQ(infos(all->results[0]), (Infos{{kSha256, 4096}, {kSha512, 10000}}));
  EXPECT_EQ(all->results[1].user, "bob");
  EXPECT_EQ(infos(all->results[1]), (Infos{{kSha512, 16384}}));

  // An empty list is "all users" too; a named user gets only its own result.
  auto empty = c.describe(std::vector<std::string>{});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->results.size(), 2u);
  auto one = c.describe(std::vector<std::string>{"bob"});
  ASSERT_TRUE(one);
  ASSERT_EQ(one->results.size(), 1u);
  EXPECT_EQ(one->results[0].user, "bob");
  EXPECT_EQ(one->results[0].error_code, kNone);
  EXPECT_EQ(infos(one->results[0]), (Infos{{kSha512, 16384}}));
}

TEST(ScramApiTest, CredentialsSurviveABrokerRestart) {
  testutil::TempDir dir;
  const InProcessBroker::Overrides same_dir = {{"log.dirs", dir.path().string()}};
  {
    InProcessBroker b(same_dir);
    ScramApiClient c(b.port());
    auto results = c.alter({}, {Upsert("alice", kSha512, 12000, "a"), Upsert("carol", kSha256, 4096, "c")});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].error, kNone);
    EXPECT_EQ(results[1].error, kNone);
    results = c.alter({{"carol", kSha256}}, {});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].error, kNone);
  }
  InProcessBroker restarted(same_dir);
  ScramApiClient c(restarted.port());
  auto all = c.describe(std::nullopt);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->results.size(), 1u);
  EXPECT_EQ(all->results[0].user, "alice");
  EXPECT_EQ(infos(all->results[0]), (Infos{{kSha512, 12000}}));
}

TEST(ScramApiTest, DeleteRemovesOneMechanismAndThenTheUser) {
  InProcessBroker b;
  ScramApiClient c(b.port());
  ASSERT_EQ(c.alter({}, {Upsert("alice", kSha256, 4096, "a")}).at(0).error, kNone);
  ASSERT_EQ(c.alter({}, {Upsert("alice", kSha512, 4096, "a")}).at(0).error, kNone);

  auto results = c.alter({{"alice", kSha256}}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, kNone);
  auto described = c.describe(std::vector<std::string>{"alice"});
  ASSERT_TRUE(described);
  ASSERT_EQ(described->results.size(), 1u);
  EXPECT_EQ(infos(described->results[0]), (Infos{{kSha512, 4096}}));

  ASSERT_EQ(c.alter({{"alice", kSha512}}, {}).at(0).error, kNone);
  described = c.describe(std::vector<std::string>{"alice"});
  ASSERT_TRUE(described);
  ASSERT_EQ(described->results.size(), 1u);
  EXPECT_EQ(described->results[0].error_code, kResourceNotFound);
  EXPECT_EQ(described->results[0].error_message, "Attempt to describe a user credential that does not exist");
  described = c.describe(std::nullopt);
  ASSERT_TRUE(described);
  EXPECT_TRUE(described->results.empty());

  // Deleting what no longer exists.
  results = c.alter({{"alice", kSha512}}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, kResourceNotFound);
  EXPECT_EQ(results[0].message, "Attempt to delete a user credential that does not exist");
}

TEST(ScramApiTest, DescribeErrorsPerUser) {
  InProcessBroker b;
  ScramApiClient c(b.port());
  ASSERT_EQ(c.alter({}, {Upsert("alice", kSha256, 4096, "a")}).at(0).error, kNone);
  auto d = c.describe(std::vector<std::string>{"alice", "nobody", "bob", "bob"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->error_code, kNone);
  ASSERT_EQ(d->results.size(), 3u);  // one result per user
  EXPECT_EQ(d->results[0].user, "alice");
  EXPECT_EQ(d->results[0].error_code, kNone);
  EXPECT_EQ(infos(d->results[0]), (Infos{{kSha256, 4096}}));
  EXPECT_EQ(d->results[1].user, "nobody");
  EXPECT_EQ(d->results[1].error_code, kResourceNotFound);
  EXPECT_TRUE(d->results[1].credential_infos.empty());
  EXPECT_EQ(d->results[2].user, "bob");
  EXPECT_EQ(d->results[2].error_code, kDuplicateResource);
  EXPECT_EQ(d->results[2].error_message,
            "Cannot describe SCRAM credentials for the same user twice in a single request");
}

TEST(ScramApiTest, AlterErrorsPerUserAndTheValidChangesStillApply) {
  InProcessBroker b;
  ScramApiClient c(b.port());
  ASSERT_EQ(c.alter({}, {Upsert("existing", kSha256, 4096, "e")}).at(0).error, kNone);

  Upsert short_salted("bad-length", kSha256, 4096, "x");
  short_salted.salted.resize(10);
  Upsert no_salt("no-salt", kSha256, 4096, "x");
  no_salt.salt.clear();
  auto results = c.alter({{"twice", kSha256}, {"existing", kSha256}, {"bad-mech-del", 3}, {"ghost", kSha512}},
                         {Upsert("twice", kSha512, 4096, "t"), Upsert("few", kSha256, 4095, "f"),
                          Upsert("many", kSha512, 16385, "m"), Upsert("bad-mech", 0, 4096, "x"),
                          Upsert("", kSha256, 4096, "x"), Upsert("dup", kSha256, 4096, "d"),
                          Upsert("dup", kSha512, 4096, "d"), short_salted, no_salt,
                          Upsert("good", kSha512, 16384, "g")});
  std::map<std::string, std::pair<rokka::protocol::ErrorCode, std::string>> by_user;
  for (const Result& r : results) {
    EXPECT_FALSE(by_user.contains(r.user)) << "one result per user: " << r.user;
    by_user[r.user] = {r.error, r.message.value_or("")};
  }
  using P = std::pair<rokka::protocol::ErrorCode, std::string>;
  EXPECT_EQ(by_user.size(), 12u);
  EXPECT_EQ(by_user["twice"], (P{kDuplicateResource, "A user credential cannot be altered twice in the same request"}));
  EXPECT_EQ(by_user["dup"], (P{kDuplicateResource, "A user credential cannot be altered twice in the same request"}));
  EXPECT_EQ(by_user["existing"], (P{kNone, ""}));
  EXPECT_EQ(by_user["bad-mech-del"], (P{kUnsupportedSaslMechanism, "Unknown SCRAM mechanism"}));
  EXPECT_EQ(by_user["bad-mech"], (P{kUnsupportedSaslMechanism, "Unknown SCRAM mechanism"}));
  EXPECT_EQ(by_user["ghost"], (P{kResourceNotFound, "Attempt to delete a user credential that does not exist"}));
  EXPECT_EQ(by_user["few"], (P{kUnacceptableCredential, "Too few iterations"}));
  EXPECT_EQ(by_user["many"], (P{kUnacceptableCredential, "Too many iterations"}));
  EXPECT_EQ(by_user[""], (P{kUnacceptableCredential, "Username must not be empty"}));
  EXPECT_EQ(by_user["bad-length"].first, kUnacceptableCredential);
  EXPECT_EQ(by_user["no-salt"].first, kUnacceptableCredential);
  EXPECT_EQ(by_user["good"], (P{kNone, ""}));

  // Only the valid changes happened: "existing" deleted, "good" stored.
  auto all = c.describe(std::nullopt);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->results.size(), 1u);
  EXPECT_EQ(all->results[0].user, "good");
  EXPECT_EQ(infos(all->results[0]), (Infos{{kSha512, 16384}}));
}

TEST(ScramApiTest, WithoutClusterAclsBothApisAnswerClusterAuthorizationFailed) {
  InProcessBroker b({{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                     {"allow.everyone.if.no.acl.found", "false"}});
  ScramApiClient c(b.port());
  auto results = c.alter({{"zed", kSha256}}, {Upsert("alice", kSha256, 4096, "a")});
  ASSERT_EQ(results.size(), 2u);  // every user, sorted
  EXPECT_EQ(results[0].user, "alice");
  EXPECT_EQ(results[0].error, kClusterAuthorizationFailed);
  EXPECT_EQ(results[1].user, "zed");
  EXPECT_EQ(results[1].error, kClusterAuthorizationFailed);
  auto d = c.describe(std::nullopt);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->error_code, kClusterAuthorizationFailed);
  EXPECT_TRUE(d->results.empty());
  d = c.describe(std::vector<std::string>{"alice"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->error_code, kClusterAuthorizationFailed);
  EXPECT_EQ(d->error_message, "Cluster authorization failed.");
  ASSERT_EQ(d->results.size(), 1u);
  EXPECT_EQ(d->results[0].user, "alice");
  EXPECT_EQ(d->results[0].error_code, kClusterAuthorizationFailed);
}

TEST(ScramApiTest, ClusterAclsDecideDescribeAndAlterSeparately) {
  InProcessBroker b({{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                     {"allow.everyone.if.no.acl.found", "true"}});
  ScramApiClient c(b.port());
  ASSERT_EQ(c.alter({}, {Upsert("alice", kSha256, 4096, "a")}).at(0).error, kNone);  // no ACLs yet: allowed
  // Cluster (4) "kafka-cluster", literal (3): ALLOW DESCRIBE (8), DENY ALTER (4) for User:ANONYMOUS.
  protocol::CreateAclsRequest acls;
  acls.creations = {{4, "kafka-cluster", 3, "User:ANONYMOUS", "*", 8, 3}, {4, "kafka-cluster", 3, "User:ANONYMOUS", "*", 4, 2}};
  c.wire().send(acls, 1, 100);
  auto created = c.wire().receive<protocol::CreateAclsResponse>(1, 100);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->results.size(), 2u);
  ASSERT_EQ(created->results[0].error_code, kNone);
  ASSERT_EQ(created->results[1].error_code, kNone);

  auto d = c.describe(std::nullopt);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->error_code, kNone);
  ASSERT_EQ(d->results.size(), 1u);
  EXPECT_EQ(d->results[0].user, "alice");
  auto results = c.alter({{"alice", kSha256}}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, kClusterAuthorizationFailed);
  EXPECT_EQ(results[0].message, "Cluster authorization failed.");
  d = c.describe(std::vector<std::string>{"alice"});  // the denied deletion changed nothing
  ASSERT_TRUE(d);
  ASSERT_EQ(d->results.size(), 1u);
  EXPECT_EQ(d->results[0].error_code, kNone);
}

TEST(ScramApiTest, AHugeArrayCountIsRefusedAndTheConnectionClosed) {
  InProcessBroker b;
  // Flexible v0: a compact deletions count of uvarint(2^31 - 1) with no elements behind it.
  const std::vector<std::byte> huge = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff},
                                       std::byte{0x07}};
  {
    WireClient w(b.port());
    w.send_raw(WireClient::frame(protocol::ApiKey::kAlterUserScramCredentials, 0, 1, huge));
    EXPECT_TRUE(w.closed_by_peer());
  }
  {
    WireClient w(b.port());
    w.send_raw(WireClient::frame(protocol::ApiKey::kDescribeUserScramCredentials, 0, 1, huge));
    EXPECT_TRUE(w.closed_by_peer());
  }
  // Every strict prefix of a valid AlterUserScramCredentials body is malformed.
  Upsert u("alice", kSha256, 4096, "a");
  AlterUserScramCredentialsRequest req;
  req.deletions = {{"bob", kSha256}};
  req.upsertions = {u.wire()};
  const std::vector<std::byte> body = protocol::encode_to_bytes(req, 0);
  for (size_t cut = 0; cut < body.size(); ++cut) {
    WireClient w(b.port());
    w.send_raw(WireClient::frame(protocol::ApiKey::kAlterUserScramCredentials, 0, 1, {body.begin(), body.begin() + cut}));
    EXPECT_TRUE(w.closed_by_peer()) << "cut at " << cut;
  }
  // The broker still serves, and nothing was stored.
  ScramApiClient c(b.port());
  auto all = c.describe(std::nullopt);
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->results.empty());
}

}  // namespace
}  // namespace rokka
