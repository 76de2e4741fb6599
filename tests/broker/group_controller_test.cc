// The controller's next step for a replication group (broker/link/group_controller.h), from
// snapshots built out of the etcd keys as the view reads them: the spec written from the
// configuration only when etcd has none, a bootstrap only once a live member published a
// hint, an election only when the leader is gone or restarted, and nothing over a value that
// does not decode. The controller's runs against etcd are in tests/integration/.
#include "broker/link/group_controller.h"

#include <gtest/gtest.h>

namespace rokka::broker {
namespace {

using cluster::BrokerRegistration;
using cluster::GroupHint;
using cluster::GroupSpec;
using cluster::GroupState;
using cluster::KeyMap;
using cluster::KeyValue;
using Kind = GroupStep::Kind;

class GroupStepTest : public ::testing::Test {
 protected:
  // Broker `id` registered at revision `epoch`, with a hint for g1 when given.
  void broker(int32_t id, int64_t epoch, std::optional<GroupHint> hint = std::nullopt) {
    BrokerRegistration reg{{}, {}, std::to_string(id)};
    if (hint) reg.groups.emplace("g1", *hint);
    kv(keys_.broker(id), cluster::encode_broker_registration(reg), epoch, epoch);
  }
  void kv(const std::string& key, std::string value, int64_t create, int64_t mod) {
    m_[key] = KeyValue{key, std::move(value), create, mod, 1, 0};
  }
  void spec(std::vector<int32_t> members, int64_t mod = 10) {
    kv(keys_.group_spec("g1"), cluster::encode_group_spec({std::move(members)}), mod, mod);
  }
  void state(const GroupState& s, int64_t mod) { kv(keys_.group_state("g1"), cluster::encode_group_state(s), 11, mod); }
  void counter(int32_t epoch, int64_t mod) { kv(keys_.epoch_counter(), cluster::encode_epoch_counter(epoch), 11, mod); }
  GroupStep step(const GroupSpec* configured = nullptr, bool unclean = false) {
    return next_group_step(*cluster::build_snapshot(keys_, m_, 100), "g1", configured, unclean);
  }

  cluster::Keys keys_{"/r"};
  KeyMap m_;
};

TEST_F(GroupStepTest, AConfiguredGroupWithoutASpecGetsOneAndEtcdsSpecWins) {
  const GroupSpec configured{{1, 2, 3}};
  GroupStep s = step(&configured);
  EXPECT_EQ(s.kind, Kind::kWriteSpec);
  EXPECT_EQ(s.spec, configured);
  EXPECT_EQ(step(nullptr).kind, Kind::kNothing);  // not configured here, not in etcd: not a group

  // etcd holds another spec: it is the one used (a bootstrap over its members), and the
  // mismatch is said.
  spec({3, 2});
  broker(2, 20, GroupHint{-1, 0});
  s = step(&configured);
  EXPECT_EQ(s.kind, Kind::kBootstrap);
  EXPECT_EQ(s.state.leader, 2);
  EXPECT_NE(s.note.find("differs"), std::string::npos) << s.note;
}

TEST_F(GroupStepTest, BootstrapWaitsForAMemberWithAHintThenPicksTheMostAdvanced) {
  spec({1, 2, 3});
  broker(1, 20);
  broker(2, 21);
  GroupStep s = step();
  EXPECT_EQ(s.kind, Kind::kNothing);  // registered, but no group store opened yet
  EXPECT_FALSE(s.note.empty());

  broker(1, 20, GroupHint{-1, 0});
  broker(2, 21, GroupHint{-1, 500});
  broker(4, 22, GroupHint{9, 900});  // not a member: no candidate, though its hint counts for the epoch
  s = step();
  ASSERT_EQ(s.kind, Kind::kBootstrap);
  EXPECT_EQ(s.state, (GroupState{2, 21, 10, {2}, 0}));
  EXPECT_EQ(s.seen.state, 0);    // the txn compares the state absent
  EXPECT_EQ(s.seen.counter, 0);  // and the counter absent
}

TEST_F(GroupStepTest, ALiveLeaderIsLeftAloneADeadOrRestartedOneIsReplacedFromTheSss) {
  spec({1, 2, 3});
  broker(1, 20);
  broker(2, 21);
  broker(3, 22);
  state({1, 20, 4, {1, 2, 3}, 2}, 30);
  counter(4, 30);
  EXPECT_EQ(step().kind, Kind::kNothing);

  broker(1, 40);  // restarted: another broker epoch
  GroupStep s = step();
  ASSERT_EQ(s.kind, Kind::kElect);
  EXPECT_EQ(s.state, (GroupState{2, 21, 5, {2, 3}, 3}));
  EXPECT_EQ(s.seen.state, 30);
  EXPECT_EQ(s.seen.counter, 30);

  m_.erase(keys_.broker(1));
  m_.erase(keys_.broker(2));  // the next in spec order is gone too
  s = step();
  ASSERT_EQ(s.kind, Kind::kElect);
  EXPECT_EQ(s.state, (GroupState{3, 22, 5, {3}, 3}));
}

TEST_F(GroupStepTest, NoLiveSssMemberTakesTheGroupOfflineUnlessUncleanIsAllowed) {
  spec({1, 2, 3});
  broker(3, 22, GroupHint{4, 10});
  state({1, 20, 4, {1, 2}, 2}, 30);
  counter(4, 30);
  GroupStep s = step();
  ASSERT_EQ(s.kind, Kind::kElect);
  EXPECT_EQ(s.state, (GroupState{cluster::kNoLeader, 0, 5, {1, 2}, 2}));
  s = step(nullptr, /*unclean=*/true);
  ASSERT_EQ(s.kind, Kind::kElect);
  EXPECT_EQ(s.state, (GroupState{3, 22, 5, {3}, 3}));

  state({cluster::kNoLeader, 0, 5, {1, 2}, 2}, 31);  // offline already: nothing to write, said once
  counter(5, 31);
  s = step();
  EXPECT_EQ(s.kind, Kind::kNothing);
  EXPECT_NE(s.note.find("offline"), std::string::npos) << s.note;
  broker(2, 50);  // an SSS member is back: it leads
  s = step();
  ASSERT_EQ(s.kind, Kind::kElect);
  EXPECT_EQ(s.state, (GroupState{2, 50, 6, {2}, 3}));
}

TEST_F(GroupStepTest, ValuesThatDoNotDecodeAreLeftAlone) {
  const GroupSpec configured{{1, 2, 3}};
  broker(1, 20, GroupHint{-1, 0});
  kv(keys_.group_spec("g1"), "{\"members\":\"x\"}", 10, 10);
  GroupStep s = step(&configured);
  EXPECT_EQ(s.kind, Kind::kNothing);  // the spec exists: not overwritten
  EXPECT_FALSE(s.note.empty());

  spec({1, 2, 3});
  kv(keys_.group_state("g1"), "{\"leader\":", 11, 11);
  s = step(&configured);
  EXPECT_EQ(s.kind, Kind::kNothing);  // no bootstrap over a state it cannot read
  EXPECT_FALSE(s.note.empty());

  state({2, 21, 4, {2}, 0}, 30);  // dead leader, but the counter does not decode
  kv(keys_.epoch_counter(), "\"many\"", 11, 12);
  s = step(&configured);
  EXPECT_EQ(s.kind, Kind::kNothing);
  EXPECT_FALSE(s.note.empty());
  counter(4, 12);
  s = step(&configured);
  ASSERT_EQ(s.kind, Kind::kElect);
  EXPECT_EQ(s.state, (GroupState{cluster::kNoLeader, 0, 5, {2}, 0}));  // 1 lives, but outside the SSS
}

}  // namespace
}  // namespace rokka::broker
