// A 3-member etcd: the client keeps working when a member dies, the Raft leader included,
// by moving to the next endpoint; a broker's registration survives the leader's death.
#include <gtest/gtest.h>

#include <regex>

#include "cluster/membership.h"
#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

class MultiMemberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    etcd_ = std::make_unique<testutil::EtcdCluster>(dir_.path(), 3);
    etcd_->start();
    client_ = EtcdClient::create(io_.executor(), testutil::client_options(etcd_->endpoints()));
  }
  void TearDown() override {
    if (!client_) return;
    if (membership_) io_.run(membership_->stop(false));
    io_.call([&] { client_->shutdown(); });
    io_.stop();
  }
  // The index of the member that is the Raft leader now (asked over plain HTTP).
  int leader_index() {
    for (size_t i = 0; i < etcd_->size(); ++i) {
      if (!etcd_->member(i).running()) continue;
      const std::string body = testutil::http_post(etcd_->member(i).client_port(), "/v3/maintenance/status", "{}");
      std::smatch self, leader;
      static const std::regex kSelf(R"re("member_id":"([0-9]+)")re"), kLeader(R"re("leader":"([0-9]+)")re");
      if (std::regex_search(body, self, kSelf) && std::regex_search(body, leader, kLeader) && self[1] == leader[1]) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  // Writes `key` (retrying while the cluster recovers), then reads it back; returns the tries it took.
  int write_and_read(const std::string& key, const std::string& value) {
    int tries = 0;
    const auto deadline = Clock::now() + 20s;
    while (Clock::now() < deadline) {
      ++tries;
      // A txn that writes only if the key is absent: safe to repeat after "outcome unknown".
      Txn t{{Compare::absent(key)}, {PutRequest{key, value}}, {}};
      auto r = io_.run(client_->txn(t));
      auto back = io_.run(client_->range({.key = key}));
      if (back.ok() && back->kvs.size() == 1 && back->kvs[0].value == value) return tries;
    }
    ADD_FAILURE() << "no successful write of " << key << " within 20 s";
    return tries;
  }

  testutil::TempDir dir_;
  testutil::IoThread io_;
  std::unique_ptr<testutil::EtcdCluster> etcd_;
  std::shared_ptr<EtcdClient> client_;
  std::shared_ptr<Membership> membership_;
};

TEST_F(MultiMemberTest, TheClientKeepsWorkingWhenMembersDieLeaderIncluded) {
  io_.call([&] {
    MembershipOptions o;
    o.broker_id = 1;
    o.lease_ttl = 4s;  // the member kills below cost up to an election each
    membership_ = Membership::create(client_, Keys("/mm"), o);
    membership_->start();
  });
  ASSERT_TRUE(testutil::wait_until([&] { return !membership_->fenced(); }));
  const int64_t epoch = membership_->epoch();
  EXPECT_EQ(write_and_read("/mm/k0", "v0"), 1);

  // 1. kill -9 the Raft leader.
  const int leader = leader_index();
  ASSERT_GE(leader, 0);
  etcd_->member(leader).kill9();
  const int tries = write_and_read("/mm/k1", "v1");
  std::printf("after the leader (member %d) was killed: %d tries\n", leader, tries);
  ASSERT_TRUE(testutil::wait_until([&] { return leader_index() >= 0; }));
  etcd_->member(leader).start(etcd_->member(leader).initial_cluster());
  etcd_->member(leader).wait_healthy();

  // 2. kill -9 the member the client is talking to now.
  const std::string current = io_.call([&] { return client_->current_endpoint().to_string(); });
  int used = -1;
  for (size_t i = 0; i < etcd_->size(); ++i) {
    if (etcd_->member(i).client_url() == "http://" + current) used = static_cast<int>(i);
  }
  ASSERT_GE(used, 0);
  etcd_->member(used).kill9();
  write_and_read("/mm/k2", "v2");
  EXPECT_NE(io_.call([&] { return client_->current_endpoint().to_string(); }), current);

  // Everything written is there, and the broker kept its registration (etcd extends leases
  // on a leader change) or, at worst, registered again; it is serving at the end.
  for (int i = 0; i < 3; ++i) {
    auto r = io_.run(client_->range({.key = "/mm/k" + std::to_string(i)}));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->kvs.size(), 1u);
  }
  ASSERT_TRUE(testutil::wait_until([&] { return !membership_->fenced(); }));
  std::printf("broker epoch before %lld, after %lld\n", static_cast<long long>(epoch),
              static_cast<long long>(membership_->epoch()));
  EXPECT_GE(io_.call([&] { return client_->endpoint_switches(); }), 1u);
}

}  // namespace
}  // namespace rokka::cluster
