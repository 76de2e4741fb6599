// The classic group protocol, driven with a manual clock: join/sync, member ids,
// session and rebalance timeouts, leader changes, protocol choice, stale generations.
#include "coordinator/group_coordinator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator::test {
namespace {

using H = CoordinatorHarness;

TEST(GroupCoordinatorTest, JoinAndSyncHandTheLeadersAssignmentToEveryMember) {
  H h;
  auto a = h.join(h.join_args("g"));
  auto b = h.join(h.join_args("g"));
  EXPECT_FALSE(*a) << "the join phase waits for the initial rebalance delay";
  h.advance(6001);
  ASSERT_TRUE(*a && *b);
  const JoinGroupResult& ja = **a;
  const JoinGroupResult& jb = **b;
  ASSERT_EQ(ja.error, GroupError::kNone);
  ASSERT_EQ(jb.error, GroupError::kNone);
  EXPECT_EQ(ja.generation_id, 1);
  EXPECT_EQ(jb.generation_id, 1);
  EXPECT_NE(ja.member_id, jb.member_id);
  EXPECT_EQ(ja.leader, jb.leader);
  EXPECT_EQ(ja.protocol_name, "range");
  EXPECT_EQ(ja.protocol_type, "consumer");
  const JoinGroupResult& leader = ja.leader == ja.member_id ? ja : jb;
  const JoinGroupResult& follower = ja.leader == ja.member_id ? jb : ja;
  ASSERT_EQ(leader.members.size(), 2u);
  EXPECT_EQ(leader.members[0].metadata, subscription({"t"}));
  EXPECT_TRUE(follower.members.empty()) << "only the leader gets member metadata";

  auto follower_sync = h.sync("g", 1, follower.member_id);
  EXPECT_FALSE(*follower_sync) << "a follower waits for the leader's assignment";
  auto leader_sync = h.sync("g", 1, leader.member_id,
                            {{leader.member_id, "for-leader"}, {follower.member_id, "for-follower"}});
  EXPECT_FALSE(*leader_sync) << "answered only once the assignment is durable";
  EXPECT_EQ(h.meta.pending(), 1u);
  h.settle();
  ASSERT_TRUE(*leader_sync && *follower_sync);
  EXPECT_EQ((*leader_sync)->error, GroupError::kNone);
  EXPECT_EQ((*leader_sync)->assignment, "for-leader");
  EXPECT_EQ((*follower_sync)->assignment, "for-follower");
  EXPECT_EQ((*follower_sync)->protocol_name, "range");
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kStable);
  EXPECT_EQ(h.heartbeat("g", 1, follower.member_id), GroupError::kNone);
}

TEST(GroupCoordinatorTest, MembersTheLeaderLeavesOutGetAnEmptyAssignment) {
  H h;
  auto a = h.join(h.join_args("g"));
  auto b = h.join(h.join_args("g"));
  h.advance(6001);
  const std::string leader = (*a)->leader;
  const std::string other = (*a)->member_id == leader ? (*b)->member_id : (*a)->member_id;
  auto other_sync = h.sync("g", 1, other);
  h.sync("g", 1, leader, {{leader, "all"}, {"nobody", "ignored"}});
  h.settle();
  ASSERT_TRUE(*other_sync);
  EXPECT_EQ((*other_sync)->error, GroupError::kNone);
  EXPECT_EQ((*other_sync)->assignment, "");
}

TEST(GroupCoordinatorTest, FirstJoinFromV4GetsMemberIdRequiredThenJoinsWithIt) {
  H h;
  JoinGroupArgs args = h.join_args("g");
  args.api_version = 4;
  auto first = h.join(args);
  ASSERT_TRUE(*first);
  EXPECT_EQ((*first)->error, GroupError::kMemberIdRequired);
  const std::string id = (*first)->member_id;
  EXPECT_TRUE(id.starts_with("client-")) << id;
  EXPECT_EQ(h.coord().find_group("g")->size(), 0u) << "not a member until it rejoins";

  args.member_id = id;
  auto second = h.join(args);
  h.advance(3001);
  ASSERT_TRUE(*second);
  EXPECT_EQ((*second)->error, GroupError::kNone);
  EXPECT_EQ((*second)->member_id, id);
  EXPECT_EQ((*second)->leader, id);
}

TEST(GroupCoordinatorTest, MemberIdNotUsedWithinTheSessionTimeoutIsForgotten) {
  H h;
  JoinGroupArgs args = h.join_args("g");
  args.api_version = 5;
  auto first = h.join(args);
  ASSERT_EQ((*first)->error, GroupError::kMemberIdRequired);
  h.advance(H::kSessionMs + 1);
  args.member_id = (*first)->member_id;
  auto late = h.join(args);
  ASSERT_TRUE(*late);
  EXPECT_EQ((*late)->error, GroupError::kUnknownMemberId);
}

TEST(GroupCoordinatorTest, JoinPhaseWaitsForMembersThatWereHandedAnId) {
  H h;
  H::StableGroup g = h.form_group("g", 1);
  JoinGroupArgs newcomer = h.join_args("g");
  newcomer.api_version = 4;
  auto id = h.join(newcomer);
  ASSERT_EQ((*id)->error, GroupError::kMemberIdRequired);
  // The old member rejoins (say, the leader saw a metadata change): the join phase must
  // still wait for the member that was just handed an id.
  auto rejoin = h.join(h.join_args("g", g.members[0]));
  EXPECT_FALSE(*rejoin);
  newcomer.member_id = (*id)->member_id;
  auto second = h.join(newcomer);
  ASSERT_TRUE(*rejoin && *second);
  EXPECT_EQ((*rejoin)->generation_id, 2);
  EXPECT_EQ((*second)->generation_id, 2);
}

TEST(GroupCoordinatorTest, SilentMemberIsExpelledAndTheSurvivorGetsANewGeneration) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  const std::string alive = g.members[0];
  const std::string silent = g.members[1];
  for (int i = 0; i < 3; ++i) {
    h.advance(3000);
    EXPECT_EQ(h.heartbeat("g", g.generation, alive), GroupError::kNone);
  }
  h.advance(1001);  // the silent member's session (10 s) is over
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(h.heartbeat("g", g.generation, alive), GroupError::kRebalanceInProgress);
  auto rejoin = h.join(h.join_args("g", alive));
  ASSERT_TRUE(*rejoin) << "every remaining member rejoined: no need to wait";
  EXPECT_EQ((*rejoin)->error, GroupError::kNone);
  EXPECT_EQ((*rejoin)->generation_id, g.generation + 1);
  EXPECT_EQ((*rejoin)->leader, alive);
  ASSERT_EQ((*rejoin)->members.size(), 1u);
  EXPECT_EQ(h.heartbeat("g", g.generation, silent), GroupError::kUnknownMemberId);
}

// rokka_group_rebalances_total: a rebalance counts once its generation is Stable (the
// leader's assignment stored), not when it starts.
TEST(GroupCoordinatorTest, CompletedRebalancesCountEachGenerationThatBecameStable) {
  H h;
  EXPECT_EQ(h.coord().completed_rebalances(), 0u);
  H::StableGroup g = h.form_group("g", 2);
  EXPECT_EQ(h.coord().completed_rebalances(), 1u);
  const std::string alive = g.members[0];
  for (int i = 0; i < 3; ++i) {
    h.advance(3000);
    EXPECT_EQ(h.heartbeat("g", g.generation, alive), GroupError::kNone);
  }
  h.advance(1001);  // the other member's session is over: a rebalance starts
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kPreparingRebalance);
  auto rejoin = h.join(h.join_args("g", alive));
  ASSERT_TRUE(*rejoin);
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kCompletingRebalance);
  EXPECT_EQ(h.coord().completed_rebalances(), 1u) << "not complete before the assignment is stored";
  auto sync = h.sync("g", (*rejoin)->generation_id, alive, {{alive, "all"}});
  h.settle();
  ASSERT_TRUE(*sync);
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kStable);
  EXPECT_EQ(h.coord().completed_rebalances(), 2u);
}

TEST(GroupCoordinatorTest, LeaderLeavingHandsLeadershipToARemainingMember) {
  H h;
  H::StableGroup g = h.form_group("g", 3);
  LeaveGroupResult left = h.leave("g", {{g.leader, std::nullopt, std::nullopt}});
  ASSERT_EQ(left.error, GroupError::kNone);
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0].error, GroupError::kNone);
  std::vector<Answer<JoinGroupResult>> rejoins;
  for (const std::string& m : g.members) {
    if (m == g.leader) continue;
    EXPECT_EQ(h.heartbeat("g", g.generation, m), GroupError::kRebalanceInProgress);
    rejoins.push_back(h.join(h.join_args("g", m)));
  }
  ASSERT_TRUE(*rejoins[0] && *rejoins[1]);
  const std::string new_leader = (*rejoins[0])->leader;
  EXPECT_NE(new_leader, g.leader);
  EXPECT_TRUE(new_leader == (*rejoins[0])->member_id || new_leader == (*rejoins[1])->member_id);
  const JoinGroupResult& lead = new_leader == (*rejoins[0])->member_id ? **rejoins[0] : **rejoins[1];
  EXPECT_EQ(lead.members.size(), 2u);
  EXPECT_EQ(h.heartbeat("g", g.generation, g.leader), GroupError::kUnknownMemberId);
}

TEST(GroupCoordinatorTest, RebalanceTimeoutExpelsMembersThatDidNotRejoin) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  auto newcomer = h.join(h.join_args("g"));
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kPreparingRebalance);
  auto rejoined = h.join(h.join_args("g", g.members[0]));
  const std::string laggard = g.members[1];
  // The laggard keeps heartbeating (so its session stays alive) but never rejoins.
  for (int waited = 0; waited < H::kRebalanceMs - 3000; waited += 3000) {
    h.advance(3000);
    EXPECT_EQ(h.heartbeat("g", g.generation, laggard), GroupError::kRebalanceInProgress);
    EXPECT_FALSE(*rejoined) << "still waiting for the laggard at +" << waited;
  }
  h.advance(3001);
  ASSERT_TRUE(*rejoined && *newcomer);
  EXPECT_EQ((*rejoined)->error, GroupError::kNone);
  EXPECT_EQ((*rejoined)->generation_id, g.generation + 1);
  const JoinGroupResult& lead = (*rejoined)->leader == (*rejoined)->member_id ? **rejoined : **newcomer;
  EXPECT_EQ(lead.members.size(), 2u);
  EXPECT_EQ(h.heartbeat("g", g.generation, laggard), GroupError::kUnknownMemberId);
}

TEST(GroupCoordinatorTest, MemberWithNoCommonProtocolIsRejected) {
  H h;
  auto a = h.join(h.join_args("g", "", {{"range", "m"}}));
  auto b = h.join(h.join_args("g", "", {{"roundrobin", "m"}}));
  ASSERT_TRUE(*b);
  EXPECT_EQ((*b)->error, GroupError::kInconsistentGroupProtocol);
  JoinGroupArgs other_type = h.join_args("g");
  other_type.protocol_type = "connect";
  auto c = h.join(other_type);
  ASSERT_TRUE(*c);
  EXPECT_EQ((*c)->error, GroupError::kInconsistentGroupProtocol);
  JoinGroupArgs no_protocols = h.join_args("h", "", {});
  auto d = h.join(no_protocols);
  ASSERT_TRUE(*d);
  EXPECT_EQ((*d)->error, GroupError::kInconsistentGroupProtocol);
  EXPECT_FALSE(*a) << "the first member is unaffected";
}

TEST(GroupCoordinatorTest, ProtocolIsTheCommonOneMostMembersPrefer) {
  H h;
  // range and roundrobin are common to all; two members prefer roundrobin.
  auto a = h.join(h.join_args("g", "", {{"range", "a"}, {"roundrobin", "a"}}));
  auto b = h.join(h.join_args("g", "", {{"roundrobin", "b"}, {"range", "b"}, {"sticky", "b"}}));
  auto c = h.join(h.join_args("g", "", {{"sticky", "c"}, {"roundrobin", "c"}, {"range", "c"}}));
  h.advance(6001);
  ASSERT_TRUE(*a && *b && *c);
  EXPECT_EQ((*a)->protocol_name, "roundrobin");
  const JoinGroupResult& lead = (*a)->leader == (*a)->member_id ? **a : (*b)->leader == (*b)->member_id ? **b : **c;
  ASSERT_EQ(lead.members.size(), 3u);
  for (const JoinGroupMember& m : lead.members) {
    EXPECT_EQ(m.metadata.size(), 1u) << "each member's roundrobin metadata";
  }
}

TEST(GroupCoordinatorTest, StaleGenerationIsIllegal) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  EXPECT_EQ(h.heartbeat("g", g.generation - 1, g.members[0]), GroupError::kIllegalGeneration);
  EXPECT_EQ(h.heartbeat("g", g.generation + 1, g.members[0]), GroupError::kIllegalGeneration);
  auto sync = h.sync("g", g.generation - 1, g.members[0]);
  ASSERT_TRUE(*sync);
  EXPECT_EQ((*sync)->error, GroupError::kIllegalGeneration);
  auto commit = h.commit("g", g.generation - 1, g.members[0], "t", 0, 5);
  h.settle();
  ASSERT_TRUE(*commit);
  EXPECT_EQ((*commit)->topics[0].partitions[0].error, GroupError::kIllegalGeneration);
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1);
}

TEST(GroupCoordinatorTest, UnknownMembersAreToldSo) {
  H h;
  auto stranger = h.join(h.join_args("nowhere", "made-up-id"));
  ASSERT_TRUE(*stranger);
  EXPECT_EQ((*stranger)->error, GroupError::kUnknownMemberId);
  EXPECT_EQ(h.coord().find_group("nowhere"), nullptr) << "a stale member id creates no group";
  H::StableGroup g = h.form_group("g", 1);
  EXPECT_EQ(h.heartbeat("g", g.generation, "made-up-id"), GroupError::kUnknownMemberId);
  EXPECT_EQ(h.heartbeat("other", g.generation, g.members[0]), GroupError::kUnknownMemberId);
  LeaveGroupResult left = h.leave("g", {{"made-up-id", std::nullopt, std::nullopt}});
  EXPECT_EQ(left.members[0].error, GroupError::kUnknownMemberId);
}

TEST(GroupCoordinatorTest, HeartbeatDuringRebalanceAsksTheMemberToRejoin) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  h.join(h.join_args("g"));  // a newcomer starts a rebalance
  EXPECT_EQ(h.heartbeat("g", g.generation, g.members[0]), GroupError::kRebalanceInProgress);
  auto sync = h.sync("g", g.generation, g.members[0]);
  ASSERT_TRUE(*sync);
  EXPECT_EQ((*sync)->error, GroupError::kRebalanceInProgress);
}

TEST(GroupCoordinatorTest, InitialDelayWaitsLongerWhileMembersKeepArriving) {
  H h;
  auto a = h.join(h.join_args("g"));
  h.advance(1000);
  auto b = h.join(h.join_args("g"));
  h.advance(1999);  // t = 2999
  EXPECT_FALSE(*a);
  h.advance(1);  // t = 3000: a member arrived during the delay, so wait one more delay
  EXPECT_FALSE(*a);
  h.advance(2999);  // t = 5999
  EXPECT_FALSE(*a);
  h.advance(1);  // t = 6000
  ASSERT_TRUE(*a && *b);
  EXPECT_EQ((*a)->generation_id, 1);
  EXPECT_EQ((*b)->generation_id, 1);
}

TEST(GroupCoordinatorTest, InitialDelayIsBoundedByTheRebalanceTimeout) {
  CoordinatorOptions o = test_options();
  o.initial_rebalance_delay_ms = 4000;
  H h(o);
  JoinGroupArgs args = h.join_args("g");
  args.rebalance_timeout_ms = 10000;
  auto first = h.join(args);
  // A newcomer every 3 s would extend the delay forever; the rebalance timeout stops it.
  int64_t answered_at = -1;
  for (int64_t t = 1000; t <= 20000 && answered_at < 0; t += 1000) {
    h.advance(1000);
    if (*first) answered_at = t;
    if (t % 3000 == 0) h.join(args);
  }
  EXPECT_EQ(answered_at, 10000);
}

TEST(GroupCoordinatorTest, JoinPhaseOfAnEstablishedGroupIsNotDelayed) {
  H h;
  H::StableGroup g = h.form_group("g", 1);
  auto rejoin = h.join(h.join_args("g", g.members[0]));  // the leader asks for a new assignment
  ASSERT_TRUE(*rejoin);
  EXPECT_EQ((*rejoin)->generation_id, g.generation + 1);
}

TEST(GroupCoordinatorTest, FollowerRejoiningWithSameMetadataGetsTheCurrentGeneration) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  const std::string follower = g.members[0] == g.leader ? g.members[1] : g.members[0];
  auto again = h.join(h.join_args("g", follower));
  ASSERT_TRUE(*again) << "no rebalance for a follower that changed nothing";
  EXPECT_EQ((*again)->generation_id, g.generation);
  EXPECT_EQ((*again)->leader, g.leader);
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kStable);
}

TEST(GroupCoordinatorTest, RejoinWithNewMetadataRunsAnotherRebalance) {
  // Cooperative rebalancing: after giving up partitions, members rejoin at once with new
  // metadata (their owned partitions), and the group runs a second rebalance.
  H h;
  H::StableGroup g = h.form_group("g", 2);
  const std::string follower = g.members[0] == g.leader ? g.members[1] : g.members[0];
  auto follower_join = h.join(h.join_args("g", follower, {{"cooperative-sticky", "owned: none"}, {"range", subscription({"t"})}}));
  EXPECT_FALSE(*follower_join);
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kPreparingRebalance);
  auto leader_join = h.join(h.join_args("g", g.leader));
  ASSERT_TRUE(*follower_join && *leader_join);
  EXPECT_EQ((*follower_join)->generation_id, g.generation + 1);
  EXPECT_EQ((*leader_join)->protocol_name, "range") << "the leader does not offer cooperative-sticky";
  ASSERT_EQ((*leader_join)->members.size(), 2u);
}

TEST(GroupCoordinatorTest, SessionTimeoutOutsideTheBrokersRangeIsInvalid) {
  H h;
  JoinGroupArgs low = h.join_args("g");
  low.session_timeout_ms = 999;
  JoinGroupArgs high = h.join_args("g");
  high.session_timeout_ms = 60001;
  auto a = h.join(low);
  auto b = h.join(high);
  ASSERT_TRUE(*a && *b);
  EXPECT_EQ((*a)->error, GroupError::kInvalidSessionTimeout);
  EXPECT_EQ((*b)->error, GroupError::kInvalidSessionTimeout);
}

TEST(GroupCoordinatorTest, EmptyGroupIdIsInvalidForMembership) {
  H h;
  auto j = h.join(h.join_args(""));
  ASSERT_TRUE(*j);
  EXPECT_EQ((*j)->error, GroupError::kInvalidGroupId);
  EXPECT_EQ(h.heartbeat("", 1, "m"), GroupError::kInvalidGroupId);
}

TEST(GroupCoordinatorTest, GroupMaxSizeTurnsAwayExtraMembers) {
  CoordinatorOptions o = test_options();
  o.max_group_size = 2;
  H h(o);
  H::StableGroup g = h.form_group("g", 2);
  auto third = h.join(h.join_args("g"));
  ASSERT_TRUE(*third);
  EXPECT_EQ((*third)->error, GroupError::kGroupMaxSizeReached);
  EXPECT_EQ(h.heartbeat("g", g.generation, g.members[0]), GroupError::kNone) << "no rebalance for it";
}

TEST(GroupCoordinatorTest, RebalanceDuringSyncAnswersParkedSyncsWithRebalanceInProgress) {
  H h;
  auto a = h.join(h.join_args("g"));
  auto b = h.join(h.join_args("g"));
  h.advance(6001);
  const std::string follower = (*a)->leader == (*a)->member_id ? (*b)->member_id : (*a)->member_id;
  auto parked = h.sync("g", 1, follower);
  EXPECT_FALSE(*parked);
  h.join(h.join_args("g"));  // a newcomer while the leader is still assigning
  ASSERT_TRUE(*parked);
  EXPECT_EQ((*parked)->error, GroupError::kRebalanceInProgress);
}

TEST(GroupCoordinatorTest, FailedAssignmentWriteSendsMembersBackToJoin) {
  H h;
  auto a = h.join(h.join_args("g"));
  h.advance(3001);
  auto sync = h.sync("g", 1, (*a)->member_id, {{(*a)->member_id, "x"}});
  h.fail_next_write();
  ASSERT_TRUE(*sync);
  EXPECT_EQ((*sync)->error, GroupError::kStorageError);
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kPreparingRebalance);
}

TEST(GroupCoordinatorTest, MemberThatNeverSyncsIsRemovedAfterTheRebalanceTimeout) {
  H h;
  auto a = h.join(h.join_args("g"));
  auto b = h.join(h.join_args("g"));
  h.advance(6001);
  const std::string leader = (*a)->leader;
  const std::string mute = (*a)->member_id == leader ? (*b)->member_id : (*a)->member_id;
  auto leader_sync = h.sync("g", 1, leader, {{leader, "l"}, {mute, "m"}});
  h.settle();
  ASSERT_TRUE(*leader_sync);
  // Both stay alive by heartbeat; the mute one never sends SyncGroup.
  for (int t = 3000; t < H::kRebalanceMs; t += 3000) {
    h.advance(3000);
    ASSERT_EQ(h.heartbeat("g", 1, leader), GroupError::kNone) << t;
    ASSERT_EQ(h.heartbeat("g", 1, mute), GroupError::kNone) << t;
  }
  h.advance(3001);
  EXPECT_EQ(h.heartbeat("g", 1, mute), GroupError::kUnknownMemberId);
  EXPECT_EQ(h.heartbeat("g", 1, leader), GroupError::kRebalanceInProgress);
}

TEST(GroupCoordinatorTest, ResentJoinGroupAnswersTheEarlierOne) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  auto first = h.join(h.join_args("g", g.leader));
  EXPECT_FALSE(*first);
  auto again = h.join(h.join_args("g", g.leader));
  ASSERT_TRUE(*first) << "the superseded request must not hang its connection";
  EXPECT_EQ((*first)->error, GroupError::kRebalanceInProgress);
  EXPECT_FALSE(*again);
}

TEST(GroupCoordinatorTest, LastMemberLeavingEmptiesTheGroup) {
  H h;
  H::StableGroup g = h.form_group("g", 1);
  h.leave("g", {{g.members[0], std::nullopt, std::nullopt}});
  const Group* group = h.coord().find_group("g");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->state(), GroupState::kEmpty);
  EXPECT_EQ(group->generation_id(), g.generation + 1);
}

TEST(GroupCoordinatorTest, UntilLoadedGroupApisAnswerLoadInProgress) {
  H h(test_options(), /*load=*/false);
  auto j = h.join(h.join_args("g"));
  ASSERT_TRUE(*j);
  EXPECT_EQ((*j)->error, GroupError::kCoordinatorLoadInProgress);
  EXPECT_EQ(h.heartbeat("g", 1, "m"), GroupError::kNone) << "Kafka answers heartbeats blindly while loading";
  auto s = h.sync("g", 1, "m");
  EXPECT_EQ((*s)->error, GroupError::kRebalanceInProgress) << "back to JoinGroup, as Kafka does";
  auto c = h.commit("g", -1, "", "t", 0, 1);
  EXPECT_EQ((*c)->topics[0].partitions[0].error, GroupError::kCoordinatorLoadInProgress);
  EXPECT_EQ(h.fetch("g", "t", 0).error, GroupError::kCoordinatorLoadInProgress);
  EXPECT_EQ(h.coord().describe_group("g").error, GroupError::kCoordinatorLoadInProgress);
  EXPECT_EQ(h.leave("g", {{"m", std::nullopt, std::nullopt}}).error, GroupError::kCoordinatorLoadInProgress);
  EXPECT_EQ(h.coord().list_groups({}).error, GroupError::kCoordinatorLoadInProgress);

  h.coord().install(load_coordinator_state(h.meta));
  auto after = h.join(h.join_args("g"));
  h.advance(3001);
  ASSERT_TRUE(*after);
  EXPECT_EQ((*after)->error, GroupError::kNone);
}

TEST(GroupCoordinatorTest, ShutdownAnswersParkedRequests) {
  H h;
  auto parked = h.join(h.join_args("g"));
  EXPECT_FALSE(*parked);
  h.coord().shutdown();
  ASSERT_TRUE(*parked);
  EXPECT_EQ((*parked)->error, GroupError::kCoordinatorNotAvailable);
  auto later = h.join(h.join_args("g"));
  EXPECT_EQ((*later)->error, GroupError::kCoordinatorNotAvailable);
}

TEST(GroupCoordinatorTest, DescribeShowsMembersAndAssignmentsOfAStableGroup) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  DescribedGroup d = h.coord().describe_group("g");
  EXPECT_EQ(d.error, GroupError::kNone);
  EXPECT_EQ(d.state, "Stable");
  EXPECT_EQ(d.protocol_type, "consumer");
  EXPECT_EQ(d.protocol_data, "range");
  ASSERT_EQ(d.members.size(), 2u);
  for (const DescribedMember& m : d.members) {
    EXPECT_EQ(m.assignment, "assignment-" + m.member_id);
    EXPECT_EQ(m.metadata, subscription({"t"}));
    EXPECT_EQ(m.client_id, "client");
    EXPECT_EQ(m.client_host, "/127.0.0.1");
  }
  DescribedGroup unknown = h.coord().describe_group("nope");
  EXPECT_EQ(unknown.error, GroupError::kNone);
  EXPECT_EQ(unknown.state, "Dead");
  EXPECT_TRUE(unknown.members.empty());

  h.join(h.join_args("g"));  // rebalancing: no metadata or assignments shown
  DescribedGroup busy = h.coord().describe_group("g");
  EXPECT_EQ(busy.state, "PreparingRebalance");
  EXPECT_EQ(busy.protocol_data, "");
  EXPECT_EQ(busy.members[0].assignment, "");
}

TEST(GroupCoordinatorTest, ListGroupsFiltersByStateIgnoringCase) {
  H h;
  h.form_group("stable", 1);
  h.join(h.join_args("preparing"));
  h.commit("simple", -1, "", "t", 0, 1);
  h.settle();
  ListGroupsResult all = h.coord().list_groups({});
  ASSERT_EQ(all.groups.size(), 3u);
  EXPECT_EQ(all.groups[0].group_id, "preparing");
  EXPECT_EQ(all.groups[0].state, "PreparingRebalance");
  EXPECT_EQ(all.groups[1].group_id, "simple");
  EXPECT_EQ(all.groups[1].protocol_type, "");
  EXPECT_EQ(all.groups[1].state, "Empty");
  EXPECT_EQ(all.groups[2].protocol_type, "consumer");
  ListGroupsResult some = h.coord().list_groups({{"stable", "EMPTY"}});
  ASSERT_EQ(some.groups.size(), 2u);
  EXPECT_EQ(some.groups[0].group_id, "simple");
  EXPECT_EQ(some.groups[1].group_id, "stable");
  EXPECT_TRUE(h.coord().list_groups({{"Dead"}}).groups.empty());
}

}  // namespace
}  // namespace rokka::coordinator::test
