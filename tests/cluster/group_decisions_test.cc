// The replication groups' pure decisions (bootstrap, elect, shrink, expand) and their guarded
// txns; then against a real etcd, two elections decided on the same revisions racing: exactly
// one applies, and the epoch counter moves once.
#include "cluster/group_decisions.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <algorithm>
#include <limits>
#include <random>
#include <set>

#include "cluster/cluster_view.h"
#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

const GroupSpec kSpec{{1, 2, 3}};

// Broker `id` registered with broker epoch `epoch`, with or without a hint for the group.
LiveMember member(int64_t epoch, std::optional<GroupHint> hint = std::nullopt) { return {epoch, hint}; }

GroupState elected(const Result<std::optional<GroupState>>& r) {
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  if (!r->has_value()) throw std::runtime_error("no change decided");
  return **r;
}

TEST(GroupDecisionsTest, BootstrapPicksTheMostAdvancedPublishedStoreAndStartsTheSSSWithItAlone) {
  // Equal hints: the first in spec order.
  LiveMembers live{{1, member(100, GroupHint{-1, 0})}, {2, member(101, GroupHint{-1, 0})}, {3, member(102, GroupHint{-1, 0})}};
  auto first = bootstrap(GroupSpec{{3, 1, 2}}, live, std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ(*first, (GroupState{3, 102, 1, {3}, 0}));

  // The longest log wins; a member that published nothing for the group is no candidate,
  // however early in the spec.
  live = {{1, member(100)}, {2, member(101, GroupHint{4, 500})}, {3, member(102, GroupHint{4, 900})}};
  auto longest = bootstrap(kSpec, live, 12);
  ASSERT_TRUE(longest.ok());
  EXPECT_EQ(longest->leader, 3);
  EXPECT_EQ(longest->leader_broker_epoch, 102);
  EXPECT_EQ(longest->sss, std::vector<int32_t>{3});
  EXPECT_EQ(longest->epoch, 13);  // above the counter

  // A newer last epoch beats a longer log of an older one (the longer tail would be cut), and
  // the new epoch is above every epoch a member's log already has.
  live = {{1, member(100, GroupHint{9, 10})}, {2, member(101, GroupHint{8, 5000})}};
  auto newer = bootstrap(kSpec, live, 3);
  ASSERT_TRUE(newer.ok());
  EXPECT_EQ(newer->leader, 1);
  EXPECT_EQ(newer->epoch, 10);

  // Members not in the spec do not count; nobody left: kNotFound.
  live = {{4, member(100, GroupHint{1, 10})}, {1, member(101)}};
  EXPECT_EQ(bootstrap(kSpec, live, 3).status().code(), StatusCode::kNotFound);
}

TEST(GroupDecisionsTest, ALiveLeaderStaysAndADeadOneIsReplacedByTheNextSSSMember) {
  const GroupState state{1, 100, 7, {1, 2, 3}, 4};
  LiveMembers live{{1, member(100)}, {2, member(101)}, {3, member(102)}};
  auto same = elect(kSpec, state, live, false, 7);
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->has_value());

  live.erase(1);  // its registration is gone (lease ended)
  const GroupState next = elected(elect(kSpec, state, live, false, 7));
  EXPECT_EQ(next.leader, 2);
  EXPECT_EQ(next.leader_broker_epoch, 101);
  EXPECT_EQ(next.epoch, 8);
  EXPECT_EQ(next.sss, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(next.sss_version, 5);

  // The counter, not the group's own epoch, is the floor: another group took epochs meanwhile.
  EXPECT_EQ(elected(elect(kSpec, state, live, false, 30)).epoch, 31);
  // Spec order, not SSS order; members outside the SSS never lead cleanly, live or not.
  const GroupState unordered{1, 100, 7, {1, 3, 2}, 4};
  EXPECT_EQ(elected(elect(kSpec, unordered, live, false, 7)).leader, 2);
  const GroupState narrow{1, 100, 7, {1, 3}, 4};
  const GroupState to3 = elected(elect(kSpec, narrow, live, false, 7));
  EXPECT_EQ(to3.leader, 3);
  EXPECT_EQ(to3.sss, std::vector<int32_t>{3});

  // SSS members that are not registered leave the SSS with the failed leader.
  live.erase(3);
  const GroupState alone = elected(elect(kSpec, state, live, false, 7));
  EXPECT_EQ(alone.leader, 2);
  EXPECT_EQ(alone.sss, std::vector<int32_t>{2});
}

TEST(GroupDecisionsTest, ARestartedLeaderIsNotTheOneNamedAndLeadsAgainOnlyIfNoOtherSSSMemberLives) {
  const GroupState state{1, 100, 7, {1, 2, 3}, 4};
  // Broker 1 restarted before its old lease ended: registered, with a new broker epoch.
  LiveMembers live{{1, member(150)}, {2, member(101)}, {3, member(102)}};
  EXPECT_FALSE(leader_alive(state, live));
  const GroupState next = elected(elect(kSpec, state, live, false, 7));
  EXPECT_EQ(next.leader, 2);
  EXPECT_EQ(next.sss, (std::vector<int32_t>{2, 3}));  // it rejoins the SSS once caught up (expand)
  EXPECT_EQ(next.epoch, 8);

  // The only SSS member alive is the restarted leader: it leads, under its new broker epoch
  // and a new group epoch (never the epoch it led before its restart).
  const GroupState only{1, 100, 7, {1}, 4};
  const GroupState again = elected(elect(kSpec, only, live, false, 7));
  EXPECT_EQ(again.leader, 1);
  EXPECT_EQ(again.leader_broker_epoch, 150);
  EXPECT_EQ(again.epoch, 8);
  EXPECT_EQ(again.sss, std::vector<int32_t>{1});
  EXPECT_EQ(again.sss_version, 4);  // the SSS did not change
}

TEST(GroupDecisionsTest, WithNoLiveSSSMemberTheGroupGoesOfflineUnlessUncleanElectionIsAllowed) {
  const GroupState state{1, 100, 7, {1, 2}, 4};
  // 3 is alive and ahead of everyone by its hint, but not in the SSS.
  const LiveMembers live{{3, member(102, GroupHint{7, 99999})}};

  const GroupState offline = elected(elect(kSpec, state, live, false, 7));
  EXPECT_EQ(offline.leader, kNoLeader);
  EXPECT_EQ(offline.leader_broker_epoch, 0);
  EXPECT_EQ(offline.epoch, 8);  // the old leader's followers refuse its epoch from now on
  EXPECT_EQ(offline.sss, (std::vector<int32_t>{1, 2}));  // kept: the first to come back leads
  EXPECT_EQ(offline.sss_version, 4);
  // Offline stays offline without another write while nobody of the SSS is back.
  auto still = elect(kSpec, offline, live, false, 8);
  ASSERT_TRUE(still.ok());
  EXPECT_FALSE(still->has_value());
  // 2 comes back (any incarnation): it leads, cleanly.
  LiveMembers back = live;
  back.emplace(2, member(200));
  const GroupState led = elected(elect(kSpec, offline, back, false, 8));
  EXPECT_EQ(led.leader, 2);
  EXPECT_EQ(led.leader_broker_epoch, 200);
  EXPECT_EQ(led.epoch, 9);
  EXPECT_EQ(led.sss, std::vector<int32_t>{2});

  // Unclean allowed: the most advanced live member, alone in the SSS.
  const GroupState unclean = elected(elect(kSpec, state, live, true, 7));
  EXPECT_EQ(unclean.leader, 3);
  EXPECT_EQ(unclean.sss, std::vector<int32_t>{3});
  EXPECT_EQ(unclean.sss_version, 5);
  EXPECT_EQ(unclean.epoch, 8);
  // ... from the offline state too.
  EXPECT_EQ(elected(elect(kSpec, offline, live, true, 8)).leader, 3);
  // A live member that published no hint for the group is no candidate even then.
  const LiveMembers hintless{{3, member(102)}};
  EXPECT_EQ(elected(elect(kSpec, state, hintless, true, 7)).leader, kNoLeader);
}

TEST(GroupDecisionsTest, EpochsStrictlyIncreaseOverManyFailures) {
  // Random registrations and restarts of three members, each decision applied as its txn
  // would (the counter takes the new epoch): every change takes an epoch above all before it,
  // the leader is always in its SSS, and only SSS members (or, after being offline, a
  // returning SSS member) lead.
  std::mt19937 rng(24);
  GroupState state = *bootstrap(kSpec, {{1, member(1, GroupHint{-1, 0})}}, std::nullopt);
  int32_t counter = state.epoch;
  int64_t next_broker_epoch = 10;
  LiveMembers live{{1, member(1)}};
  std::set<int32_t> used{state.epoch};
  int changes = 0;
  for (int round = 0; round < 2000; ++round) {
    const int32_t id = 1 + static_cast<int32_t>(rng() % 3);
    switch (rng() % 3) {
      case 0: live.erase(id); break;                                              // dies
      case 1: live[id] = member(next_broker_epoch++); break;                      // (re)starts
      default:  // a live leader takes the live members back into its SSS
        if (leader_alive(state, live)) {
          for (const auto& entry : live) {
            if (auto e = expand(state, entry.first); e.ok()) state = *e;
          }
        }
    }
    const GroupState before = state;
    auto r = elect(kSpec, state, live, /*unclean_allowed=*/false, counter);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    if (!r->has_value()) {
      EXPECT_TRUE(leader_alive(state, live) || state.leader == kNoLeader);
      continue;
    }
    state = **r;
    ++changes;
    EXPECT_GT(state.epoch, counter);
    EXPECT_TRUE(used.insert(state.epoch).second);
    counter = state.epoch;
    if (state.leader != kNoLeader) {
      EXPECT_TRUE(std::find(before.sss.begin(), before.sss.end(), state.leader) != before.sss.end());
      EXPECT_TRUE(std::find(state.sss.begin(), state.sss.end(), state.leader) != state.sss.end());
      EXPECT_TRUE(leader_alive(state, live));
    } else {
      EXPECT_EQ(state.sss, before.sss);
    }
  }
  EXPECT_GT(changes, 100);  // the run exercised elections, not only quiet rounds
  EXPECT_EQ(next_epoch(std::numeric_limits<int32_t>::max(), 0, {}).status().code(), StatusCode::kOutOfRange);
}

AskedElection asked(const Result<AskedElection>& r) {
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return *r;
}

// ElectLeaders PREFERRED on a group: the spec's first member, when in the SSS and registered.
TEST(GroupDecisionsTest, APreferredElectionMovesTheLeadToTheSpecsFirstMemberWhenItIsInSyncAndAlive) {
  using Kind = AskedElection::Kind;
  LiveMembers live{{1, member(100)}, {2, member(101)}, {3, member(102)}};
  // Broker 2 leads, 1 is in the SSS: 1 leads at a new epoch, the SSS unchanged.
  const GroupState by2{2, 101, 7, {2, 3, 1}, 4};
  const AskedElection moved = asked(preferred_election(kSpec, by2, live, 9));
  ASSERT_EQ(moved.kind, Kind::kElect) << moved.why;
  EXPECT_EQ(moved.next, (GroupState{1, 100, 10, {2, 3, 1}, 4}));
  // It leads already.
  EXPECT_EQ(asked(preferred_election(kSpec, moved.next, live, 10)).kind, Kind::kNotNeeded);
  // Not in the SSS (it came back and has not caught up), or not registered: not available.
  EXPECT_EQ(asked(preferred_election(kSpec, GroupState{2, 101, 7, {2, 3}, 5}, live, 9)).kind, Kind::kNotAvailable);
  LiveMembers without1 = live;
  without1.erase(1);
  EXPECT_EQ(asked(preferred_election(kSpec, by2, without1, 9)).kind, Kind::kNotAvailable);
  // The leader failed: the clean election's answer, which is the preferred member when it lives
  // in the SSS (the failed leader leaves the SSS)...
  LiveMembers without2 = live;
  without2.erase(2);
  const AskedElection after_failure = asked(preferred_election(kSpec, by2, without2, 9));
  ASSERT_EQ(after_failure.kind, Kind::kElect);
  EXPECT_EQ(after_failure.next, (GroupState{1, 100, 10, {3, 1}, 5}));
  // ...but not the failed leader's own new incarnation while another SSS member lives.
  LiveMembers restarted = live;
  restarted[1] = member(200);
  const GroupState by1{1, 100, 7, {1, 2, 3}, 4};
  EXPECT_EQ(asked(preferred_election(kSpec, by1, restarted, 9)).kind, Kind::kNotAvailable);
}

// ElectLeaders UNCLEAN on a group: nothing while a leader lives; a live SSS member first; a
// member outside the SSS only with unclean.leader.election.enable.
TEST(GroupDecisionsTest, AnUncleanElectionLeavesALiveLeaderAndGoesOutsideTheSSSOnlyWhenAllowed) {
  using Kind = AskedElection::Kind;
  LiveMembers live{{1, member(100)}, {2, member(101)}, {3, member(102, GroupHint{7, 900})}};
  const GroupState by1{1, 100, 7, {1, 2}, 4};
  EXPECT_EQ(asked(unclean_election(kSpec, by1, live, true, 7)).kind, Kind::kNotNeeded);
  // The leader is gone, 2 (in the SSS) lives: it leads, allowed or not.
  live.erase(1);
  const AskedElection clean = asked(unclean_election(kSpec, by1, live, false, 7));
  ASSERT_EQ(clean.kind, Kind::kElect);
  EXPECT_EQ(clean.next.leader, 2);
  EXPECT_EQ(clean.next.epoch, 8);
  // Offline, with only 3 (outside the SSS) alive: refused unless allowed.
  live.erase(2);
  const GroupState offline{kNoLeader, 0, 8, {1, 2}, 4};
  EXPECT_EQ(asked(unclean_election(kSpec, offline, live, false, 8)).kind, Kind::kNotAvailable);
  const AskedElection unclean = asked(unclean_election(kSpec, offline, live, true, 8));
  ASSERT_EQ(unclean.kind, Kind::kElect);
  EXPECT_EQ(unclean.next.leader, 3);
  EXPECT_EQ(unclean.next.sss, std::vector<int32_t>{3});
  EXPECT_EQ(unclean.next.epoch, 9);
}

TEST(GroupDecisionsTest, ShrinkAndExpandChangeOnlyTheSSSAndItsVersion) {
  const GroupState state{1, 100, 7, {1, 2, 3}, 4};
  auto shrunk = shrink(state, 2);
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(*shrunk, (GroupState{1, 100, 7, {1, 3}, 5}));
  auto grown = expand(*shrunk, 2);
  ASSERT_TRUE(grown.ok());
  EXPECT_EQ(*grown, (GroupState{1, 100, 7, {1, 3, 2}, 6}));
  EXPECT_EQ(shrink(state, 1).status().code(), StatusCode::kInvalidArgument);  // the leader stays
  EXPECT_EQ(shrink(*shrunk, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(expand(state, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(expand(state, -1).status().code(), StatusCode::kInvalidArgument);
  const GroupState offline{kNoLeader, 0, 8, {1, 2}, 4};
  EXPECT_EQ(shrink(offline, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(expand(offline, 3).status().code(), StatusCode::kInvalidArgument);
}

TEST(GroupDecisionsTest, TheTxnsCompareWhatTheDecisionWasMadeOn) {
  const Keys keys("/r");
  const GroupState next{2, 101, 8, {2, 3}, 5};
  const Txn e = election_txn(keys, 55, "g1", next, {.state = 40, .counter = 41});
  ASSERT_EQ(e.compare.size(), 3u);
  EXPECT_EQ(e.compare[0].key, "/r/controller");  // the controller guard
  EXPECT_EQ(e.compare[0].target, Compare::Target::kCreate);
  EXPECT_EQ(e.compare[0].number, 55);
  EXPECT_EQ(e.compare[1].key, "/r/groups/g1/state");
  EXPECT_EQ(e.compare[1].target, Compare::Target::kMod);
  EXPECT_EQ(e.compare[1].number, 40);
  EXPECT_EQ(e.compare[2].key, "/r/epoch");
  EXPECT_EQ(e.compare[2].target, Compare::Target::kMod);
  EXPECT_EQ(e.compare[2].number, 41);
  ASSERT_EQ(e.success.size(), 2u);
  EXPECT_EQ(*decode_group_state(std::get<PutRequest>(e.success[0]).value), next);
  EXPECT_EQ(*decode_epoch_counter(std::get<PutRequest>(e.success[1]).value), 8);
  // Nothing seen: both must be absent (a bootstrap of the cluster's first group).
  const Txn first = election_txn(keys, 55, "g1", next, {});
  EXPECT_EQ(first.compare[1].target, Compare::Target::kCreate);
  EXPECT_EQ(first.compare[1].number, 0);
  EXPECT_EQ(first.compare[2].target, Compare::Target::kCreate);
  EXPECT_EQ(first.compare[2].number, 0);

  auto s = sss_change_txn(keys, "g1", next, 40);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->compare.size(), 2u);
  EXPECT_EQ(s->compare[0].key, "/r/brokers/2");  // the leader's registration, as named
  EXPECT_EQ(s->compare[0].target, Compare::Target::kCreate);
  EXPECT_EQ(s->compare[0].number, 101);
  EXPECT_EQ(s->compare[1].number, 40);
  ASSERT_EQ(s->success.size(), 1u);
  EXPECT_FALSE(sss_change_txn(keys, "g1", GroupState{kNoLeader, 0, 8, {2}, 5}, 40).ok());
  EXPECT_FALSE(sss_change_txn(keys, "g1", GroupState{2, 0, 8, {2}, 5}, 40).ok());
}

TEST(GroupDecisionsTest, LiveMembersComeFromTheSnapshotsRegistrations) {
  const Keys keys("/r");
  BrokerRegistration with_hint{{}, {}, "1"};
  with_hint.groups = {{"g1", {3, 77}}, {"g2", {1, 5}}};
  KeyMap m;
  m.emplace(keys.broker(1), KeyValue{keys.broker(1), encode_broker_registration(with_hint), 30, 30, 1, 9});
  m.emplace(keys.broker(2), KeyValue{keys.broker(2), encode_broker_registration({{}, {}, "2"}), 31, 31, 1, 9});
  const LiveMembers live = live_members(*build_snapshot(keys, m, 40), "g1");
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live.at(1).broker_epoch, 30);
  EXPECT_EQ(live.at(1).hint, (GroupHint{3, 77}));
  EXPECT_EQ(live.at(2).broker_epoch, 31);
  EXPECT_FALSE(live.at(2).hint.has_value());
}

// ---- against etcd ----

class GroupElectionEtcdTest : public testutil::EtcdTest {
 protected:
  int64_t put(const std::string& key, const std::string& value) {
    auto r = io_.run(client_->put({.key = key, .value = value}));
    if (!r.ok()) throw std::runtime_error(r.status().to_string());
    return r->header.revision;
  }
  std::shared_ptr<const ClusterSnapshot> read() { return testutil::read_snapshot(io_, *client_, keys_); }
  // Sends both txns at once, each on its own client (two controllers' processes).
  std::pair<Result<TxnResult>, Result<TxnResult>> race(Txn a, Txn b) {
    auto ca = io_.call([&] { return EtcdClient::create(io_.executor(), testutil::client_options(etcd_->client_url())); });
    auto cb = io_.call([&] { return EtcdClient::create(io_.executor(), testutil::client_options(etcd_->client_url())); });
    auto fa = boost::asio::co_spawn(io_.executor(), send(ca, std::move(a)), boost::asio::use_future);
    auto fb = boost::asio::co_spawn(io_.executor(), send(cb, std::move(b)), boost::asio::use_future);
    auto ra = fa.get();
    auto rb = fb.get();
    io_.call([&] {
      ca->shutdown();
      cb->shutdown();
    });
    return {std::move(*ra), std::move(*rb)};
  }
  static boost::asio::awaitable<std::optional<Result<TxnResult>>> send(std::shared_ptr<EtcdClient> c, Txn txn) {
    co_return co_await c->txn(std::move(txn));
  }

  Keys keys_{"/groups-test"};
};

TEST_F(GroupElectionEtcdTest, TwoElectionsOnTheSameRevisionsRaceAndExactlyOneApplies) {
  const int64_t controller_epoch = put(keys_.controller(), encode_controller(1));
  for (const int32_t id : kSpec.members) {
    BrokerRegistration reg{{}, {}, std::to_string(id)};
    reg.groups = {{"g1", {-1, 0}}};
    put(keys_.broker(id), encode_broker_registration(reg));
  }
  put(keys_.group_spec("g1"), encode_group_spec(kSpec));

  // Two controllers bootstrap the group at once: one state, one epoch.
  auto snap = read();
  auto boot = bootstrap(kSpec, live_members(*snap, "g1"), snap->epoch_counter);
  ASSERT_TRUE(boot.ok()) << boot.status().to_string();
  EXPECT_EQ(boot->leader, 1);
  auto [b1, b2] = race(election_txn(keys_, controller_epoch, "g1", *boot, {}),
                       election_txn(keys_, controller_epoch, "g1", *boot, {}));
  ASSERT_TRUE(b1.ok() && b2.ok()) << b1.status().to_string() << " " << b2.status().to_string();
  EXPECT_NE(b1->succeeded, b2->succeeded);
  snap = read();
  ASSERT_NE(snap->group("g1"), nullptr);
  EXPECT_EQ(snap->group("g1")->state, *boot);
  EXPECT_EQ(snap->epoch_counter, boot->epoch);

  // The leader takes 2 and 3 into its SSS, one change at a time.
  for (const int32_t id : {2, 3}) {
    auto now = read();
    const GroupInfo* g = now->group("g1");
    auto grown = expand(*g->state, id);
    ASSERT_TRUE(grown.ok());
    auto r = io_.run(client_->txn(*sss_change_txn(keys_, "g1", *grown, g->state_mod_revision)));
    ASSERT_TRUE(r.ok() && r->succeeded);
  }

  // Leader 1 dies. Two controllers decide on the same revisions; the second's view has also
  // lost 2 (say, briefly unregistered), so it elects 3. Both txns race: exactly one applies,
  // and the counter moves once.
  auto del = io_.run(client_->delete_range({.key = keys_.broker(1)}));
  ASSERT_TRUE(del.ok());
  snap = read();
  const GroupInfo* g1 = snap->group("g1");
  ASSERT_TRUE(g1 != nullptr && g1->state.has_value());
  EXPECT_EQ(g1->state->sss, (std::vector<int32_t>{1, 2, 3}));
  const SeenRevisions revs{g1->state_mod_revision, snap->epoch_counter_mod_revision};
  LiveMembers live = live_members(*snap, "g1");
  const GroupState to2 = elected(elect(kSpec, *g1->state, live, false, snap->epoch_counter));
  live.erase(2);
  const GroupState to3 = elected(elect(kSpec, *g1->state, live, false, snap->epoch_counter));
  ASSERT_EQ(to2.leader, 2);
  ASSERT_EQ(to3.leader, 3);
  auto [e1, e2] = race(election_txn(keys_, controller_epoch, "g1", to2, revs),
                       election_txn(keys_, controller_epoch, "g1", to3, revs));
  ASSERT_TRUE(e1.ok() && e2.ok()) << e1.status().to_string() << " " << e2.status().to_string();
  EXPECT_NE(e1->succeeded, e2->succeeded);
  auto after = read();
  const GroupState& won = e1->succeeded ? to2 : to3;
  EXPECT_EQ(after->group("g1")->state, won);
  EXPECT_EQ(after->epoch_counter, *snap->epoch_counter + 1);

  // A third decision on those revisions is stale now; so is a write under another controller
  // epoch, even on fresh revisions.
  auto stale = io_.run(client_->txn(election_txn(keys_, controller_epoch, "g1", to3, revs)));
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  const SeenRevisions fresh{after->group("g1")->state_mod_revision, after->epoch_counter_mod_revision};
  auto other_controller = io_.run(client_->txn(election_txn(keys_, controller_epoch + 1000, "g1", to3, fresh)));
  ASSERT_TRUE(other_controller.ok());
  EXPECT_FALSE(other_controller->succeeded);
  EXPECT_EQ(read()->group("g1")->state, won);
}

TEST_F(GroupElectionEtcdTest, AnSSSChangeAppliesOnlyWhileTheNamedLeaderRegistrationLives) {
  const int64_t broker2 = put(keys_.broker(2), encode_broker_registration({{}, {}, "x"}));
  put(keys_.group_state("g1"), encode_group_state({2, broker2, 5, {2, 3}, 0}));
  auto first = read();
  const GroupInfo* g1 = first->group("g1");
  ASSERT_TRUE(g1 != nullptr && g1->state.has_value());
  auto shrunk = shrink(*g1->state, 3);
  ASSERT_TRUE(shrunk.ok());
  auto ok = io_.run(client_->txn(*sss_change_txn(keys_, "g1", *shrunk, g1->state_mod_revision)));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->succeeded);
  auto shrunk_snap = read();
  EXPECT_EQ(shrunk_snap->group("g1")->state->sss, std::vector<int32_t>{2});

  // Broker 2 restarts (its key deleted and created again: a new broker epoch). A change its
  // old incarnation decided is refused, though the state is as it saw it.
  auto del = io_.run(client_->delete_range({.key = keys_.broker(2)}));
  ASSERT_TRUE(del.ok());
  put(keys_.broker(2), encode_broker_registration({{}, {}, "y"}));
  auto snap = read();
  const GroupInfo* now = snap->group("g1");
  auto grown = expand(*now->state, 3);
  ASSERT_TRUE(grown.ok());
  auto late = io_.run(client_->txn(*sss_change_txn(keys_, "g1", *grown, now->state_mod_revision)));
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->succeeded);
  // And the new incarnation's own change, on a state revision older than the last change, too.
  GroupState renamed = *grown;
  renamed.leader_broker_epoch = snap->broker(2)->epoch;
  auto stale = io_.run(client_->txn(*sss_change_txn(keys_, "g1", renamed, g1->state_mod_revision)));
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  EXPECT_EQ(read()->group("g1")->state->sss, std::vector<int32_t>{2});
}

}  // namespace
}  // namespace rokka::cluster
