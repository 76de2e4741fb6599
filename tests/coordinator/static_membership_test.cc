// Static membership (KIP-345): a restarted member with the same group.instance.id takes
// its old place without a rebalance; an older instance is fenced.
#include <gtest/gtest.h>

#include "coordinator/group_coordinator.h"
#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator::test {
namespace {

using H = CoordinatorHarness;

class StaticMembershipTest : public ::testing::Test {
 protected:
  JoinGroupArgs static_args(const std::string& instance, const std::string& member_id = "",
                            std::vector<Protocol> protocols = {{"range", subscription({"t"})}}, int16_t version = 5) {
    JoinGroupArgs a = h.join_args("g", member_id, std::move(protocols));
    a.group_instance_id = instance;
    a.api_version = version;
    return a;
  }

  // A Stable group: static member "i1" (the leader: it joins first) and one dynamic member.
  void form_static_and_dynamic() {
    auto s = h.join(static_args("i1"));
    auto d = h.join(h.join_args("g"));
    h.advance(6001);
    ASSERT_TRUE(*s && *d);
    static_id = (*s)->member_id;
    dynamic_id = (*d)->member_id;
    ASSERT_EQ((*s)->leader, static_id);
    auto ds = h.sync("g", 1, dynamic_id);
    h.sync("g", 1, static_id, {{static_id, "for-static"}, {dynamic_id, "for-dynamic"}}, "i1");
    h.settle();
    ASSERT_TRUE(*ds);
    ASSERT_EQ((*ds)->assignment, "for-dynamic");
  }

  H h;
  std::string static_id;
  std::string dynamic_id;
};

TEST_F(StaticMembershipTest, RestartedMemberGetsItsAssignmentBackWithoutRebalance) {
  form_static_and_dynamic();
  auto again = h.join(static_args("i1", "", {{"range", subscription({"t"})}}, 8));
  EXPECT_FALSE(*again) << "answered once the new member id is durable";
  h.settle();
  ASSERT_TRUE(*again);
  EXPECT_EQ((*again)->error, GroupError::kNone);
  EXPECT_NE((*again)->member_id, static_id);
  EXPECT_EQ((*again)->generation_id, 1) << "no rebalance";
  EXPECT_EQ(h.coord().find_group("g")->state(), GroupState::kStable);
  EXPECT_EQ(h.heartbeat("g", 1, dynamic_id), GroupError::kNone);

  auto sync = h.sync("g", 1, (*again)->member_id, {}, "i1");
  ASSERT_TRUE(*sync);
  EXPECT_EQ((*sync)->error, GroupError::kNone);
  EXPECT_EQ((*sync)->assignment, "for-static");
}

TEST_F(StaticMembershipTest, OlderInstanceIsFenced) {
  form_static_and_dynamic();
  auto newer = h.join(static_args("i1"));
  h.settle();
  ASSERT_EQ((*newer)->error, GroupError::kNone);
  EXPECT_EQ(h.heartbeat("g", 1, static_id, "i1"), GroupError::kFencedInstanceId);
  auto sync = h.sync("g", 1, static_id, {}, "i1");
  EXPECT_EQ((*sync)->error, GroupError::kFencedInstanceId);
  OffsetCommitArgs commit;
  commit.group_id = "g";
  commit.generation_id = 1;
  commit.member_id = static_id;
  commit.group_instance_id = "i1";
  commit.topics.push_back({"t", {PartitionCommit{0, 5, -1, std::nullopt}}});
  std::optional<OffsetCommitResult> committed;
  h.coord().commit_offsets(commit, [&](OffsetCommitResult r) { committed = std::move(r); });
  ASSERT_TRUE(committed);
  EXPECT_EQ(committed->topics[0].partitions[0].error, GroupError::kFencedInstanceId);
  EXPECT_EQ(h.heartbeat("g", 1, (*newer)->member_id, "i1"), GroupError::kNone);
}

TEST_F(StaticMembershipTest, ParkedJoinOfTheOlderInstanceIsFenced) {
  form_static_and_dynamic();
  // The old instance (the leader) asks for a rebalance and waits for the dynamic member...
  auto old_join = h.join(static_args("i1", static_id));
  EXPECT_FALSE(*old_join);
  // ...when a new instance with the same id starts.
  auto new_join = h.join(static_args("i1"));
  ASSERT_TRUE(*old_join);
  EXPECT_EQ((*old_join)->error, GroupError::kFencedInstanceId);
  auto dynamic_join = h.join(h.join_args("g", dynamic_id));
  ASSERT_TRUE(*new_join && *dynamic_join);
  EXPECT_EQ((*new_join)->error, GroupError::kNone);
  EXPECT_EQ((*new_join)->generation_id, 2);
}

TEST_F(StaticMembershipTest, RejoinThatChangesTheChosenProtocolRebalances) {
  auto s = h.join(static_args("i1", "", {{"range", "r"}, {"roundrobin", "rr"}}));
  h.advance(3001);
  ASSERT_EQ((*s)->protocol_name, "range");
  h.sync("g", 1, (*s)->member_id, {{(*s)->member_id, "x"}}, "i1");
  h.settle();
  auto again = h.join(static_args("i1", "", {{"roundrobin", "rr"}, {"range", "r"}}));
  h.settle();
  ASSERT_TRUE(*again);
  EXPECT_EQ((*again)->error, GroupError::kNone);
  EXPECT_EQ((*again)->generation_id, 2);
  EXPECT_EQ((*again)->protocol_name, "roundrobin");
}

TEST_F(StaticMembershipTest, RejoiningLeaderIsToldToSkipAssignmentFromV9) {
  form_static_and_dynamic();
  auto again = h.join(static_args("i1", "", {{"range", subscription({"t"})}}, 9));
  h.settle();
  ASSERT_TRUE(*again);
  EXPECT_TRUE((*again)->skip_assignment);
  EXPECT_EQ((*again)->leader, (*again)->member_id);
  EXPECT_EQ((*again)->members.size(), 2u) << "it leads, so it watches the members' metadata";
}

TEST_F(StaticMembershipTest, RejoiningLeaderBeforeV9IsNamedByItsOldId) {
  form_static_and_dynamic();
  auto again = h.join(static_args("i1", "", {{"range", subscription({"t"})}}, 5));
  h.settle();
  ASSERT_TRUE(*again);
  EXPECT_FALSE((*again)->skip_assignment);
  EXPECT_EQ((*again)->leader, static_id) << "so it does not think it leads and reassign";
  EXPECT_TRUE((*again)->members.empty());
}

TEST_F(StaticMembershipTest, StaticMemberKeepsItsPlaceWhenItMissesARebalance) {
  form_static_and_dynamic();
  auto newcomer = h.join(h.join_args("g"));
  auto dynamic_join = h.join(h.join_args("g", dynamic_id));
  for (int t = 0; t < H::kRebalanceMs; t += 3000) {
    h.advance(3000);
    h.heartbeat("g", 1, static_id, "i1");  // alive, but it does not rejoin
  }
  h.advance(1);
  ASSERT_TRUE(*newcomer && *dynamic_join);
  EXPECT_EQ((*newcomer)->generation_id, 2);
  const JoinGroupResult& lead = (*newcomer)->leader == (*newcomer)->member_id ? **newcomer : **dynamic_join;
  ASSERT_EQ(lead.members.size(), 3u) << "the static member is still assigned partitions";
  EXPECT_TRUE(h.coord().find_group("g")->has(static_id));
}

TEST_F(StaticMembershipTest, LeaveGroupRemovesMembersByInstanceIdInABatch) {
  auto s1 = h.join(static_args("i1"));
  auto s2 = h.join(static_args("i2"));
  auto d = h.join(h.join_args("g"));
  h.advance(6001);
  LeaveGroupResult r = h.leave("g", {{"", std::string("i1"), std::string("scaling down")},
                                     {"", std::string("nope"), std::nullopt},
                                     {"someone-else", std::string("i2"), std::nullopt},
                                     {(*d)->member_id, std::nullopt, std::nullopt}});
  ASSERT_EQ(r.error, GroupError::kNone);
  ASSERT_EQ(r.members.size(), 4u);
  EXPECT_EQ(r.members[0].error, GroupError::kNone);
  EXPECT_EQ(r.members[1].error, GroupError::kUnknownMemberId);
  EXPECT_EQ(r.members[2].error, GroupError::kFencedInstanceId);
  EXPECT_EQ(r.members[3].error, GroupError::kNone);
  EXPECT_EQ(r.members[2].group_instance_id, "i2");
  const Group* g = h.coord().find_group("g");
  EXPECT_EQ(g->size(), 1u);
  EXPECT_TRUE(g->has((*s2)->member_id));
  EXPECT_FALSE(g->has((*s1)->member_id));
}

TEST_F(StaticMembershipTest, MemberAnsweredAfterASlowStoreStillHasASession) {
  form_static_and_dynamic();
  auto again = h.join(static_args("i1"));
  h.keep_alive_without_settling(H::kSessionMs + 1000, "g", 1, {dynamic_id});  // the store is slow
  h.settle();
  ASSERT_TRUE(*again);
  ASSERT_EQ((*again)->error, GroupError::kNone);
  // The restarted instance dies right after its answer: a session later it must be gone.
  h.keep_alive(H::kSessionMs + 3000, "g", 1, {dynamic_id});
  EXPECT_FALSE(h.coord().find_group("g")->has((*again)->member_id));
  EXPECT_EQ(h.heartbeat("g", 1, dynamic_id), GroupError::kRebalanceInProgress);
}

TEST_F(StaticMembershipTest, FailedStoreOfTheNewIdKeepsTheOldOne) {
  form_static_and_dynamic();
  auto again = h.join(static_args("i1"));
  h.fail_next_write();
  ASSERT_TRUE(*again);
  EXPECT_EQ((*again)->error, GroupError::kStorageError);
  EXPECT_EQ(h.heartbeat("g", 1, static_id, "i1"), GroupError::kNone);
  auto sync = h.sync("g", 1, static_id, {}, "i1");
  EXPECT_EQ((*sync)->assignment, "for-static");
}

TEST_F(StaticMembershipTest, StaticMemberResumesAfterABrokerRestart) {
  form_static_and_dynamic();
  h.restart();
  EXPECT_EQ(h.heartbeat("g", 1, dynamic_id), GroupError::kNone) << "the group was stored with its members";
  auto again = h.join(static_args("i1"));
  h.settle();
  ASSERT_TRUE(*again);
  EXPECT_EQ((*again)->error, GroupError::kNone);
  EXPECT_EQ((*again)->generation_id, 1);
  auto sync = h.sync("g", 1, (*again)->member_id, {}, "i1");
  EXPECT_EQ((*sync)->assignment, "for-static");
}

}  // namespace
}  // namespace rokka::coordinator::test
