// Membership on its own: the classic protocol's timers in a TimerQueue the test can count,
// and what the rest of the coordinator asks of a classic group (may this committer commit,
// which topics are in use, from when offsets age, how a group goes).
#include "coordinator/membership.h"

#include <gtest/gtest.h>

#include "tests/coordinator/coordinator_harness.h"
#include "tests/testutil/manual_clock.h"

namespace rokka::coordinator::test {
namespace {

class MembershipTest : public ::testing::Test {
 protected:
  static constexpr int32_t kSessionMs = 10000;

  // One dynamic member (JoinGroup v3) of group "g", Stable at generation 1 with an
  // assignment. Returns its member id.
  std::string stable_member(const std::vector<std::string>& topics = {"t"}) {
    JoinGroupArgs a;
    a.group_id = "g";
    a.protocol_type = "consumer";
    a.protocols = {{"range", subscription(topics)}};
    a.session_timeout_ms = kSessionMs;
    a.rebalance_timeout_ms = kSessionMs;
    a.api_version = 3;
    std::optional<JoinGroupResult> joined;
    membership_.join_group(a, [&](JoinGroupResult r) { joined = std::move(r); });
    advance(options_.initial_rebalance_delay_ms);
    EXPECT_TRUE(joined && joined->error == GroupError::kNone);
    const std::string id = joined ? joined->member_id : "";
    SyncGroupArgs s;
    s.group_id = "g";
    s.generation_id = 1;
    s.member_id = id;
    s.assignments = {{id, "mine"}};
    std::optional<SyncGroupResult> synced;
    membership_.sync_group(s, [&](SyncGroupResult r) { synced = std::move(r); });
    settle();
    EXPECT_TRUE(synced && synced->assignment == "mine");
    return id;
  }
  void advance(int64_t ms) {
    const int64_t target = clock_.now_ms() + ms;
    for (auto next = timers_.next_deadline(); next && *next <= target; next = timers_.next_deadline()) {
      clock_.set(std::max(clock_.now_ms(), *next));
      timers_.run_due(clock_.now_ms());
    }
    clock_.set(target);
  }
  void settle() { strand_.settle(); }
  OffsetCommitArgs commit_by(const std::string& member_id, int32_t generation) {
    OffsetCommitArgs a;
    a.group_id = "g";
    a.member_id = member_id;
    a.generation_id = generation;
    return a;
  }

  CoordinatorOptions options_ = test_options();
  testutil::ManualClock clock_;
  Clock clock_fn_ = clock_.fn();
  FakeStrand strand_;
  DurableWriter writer_{strand_.meta, strand_.post()};
  TimerQueue timers_;
  GroupMap groups_;
  Membership membership_{options_, clock_fn_, writer_, timers_, groups_};
};

TEST_F(MembershipTest, AMembersOffsetCommitRestartsItsSession) {
  const std::string id = stable_member();
  Group& group = *groups_.find("g");
  advance(kSessionMs - 1);
  EXPECT_EQ(membership_.accept_offset_commit(group, commit_by(id, 1)), GroupError::kNone);
  advance(kSessionMs - 1);
  EXPECT_TRUE(group.has(id)) << "the commit counted as a heartbeat";
  advance(2);
  EXPECT_FALSE(group.has(id)) << "and one session after it, the silent member goes";
}

TEST_F(MembershipTest, OnlyTheCurrentMembersCommitToALiveGroup) {
  const std::string id = stable_member();
  Group& group = *groups_.find("g");
  EXPECT_EQ(membership_.accept_offset_commit(group, commit_by(id, 0)), GroupError::kIllegalGeneration);
  EXPECT_EQ(membership_.accept_offset_commit(group, commit_by("someone", 1)), GroupError::kUnknownMemberId);
  EXPECT_EQ(membership_.accept_offset_commit(group, commit_by("", -1)), GroupError::kUnknownMemberId)
      << "an anonymous commit only to an empty group";
  EXPECT_EQ(membership_.check_txn_offset_commit(&group, -1, "", std::nullopt), GroupError::kNone)
      << "but an anonymous transactional one is accepted";
  EXPECT_EQ(membership_.check_txn_offset_commit(nullptr, 1, "m", std::nullopt), GroupError::kUnknownMemberId);
  Group& simple = groups_.create("simple", GroupState::kEmpty, clock_.now_ms());
  EXPECT_EQ(membership_.accept_offset_commit(simple, commit_by("", -1)), GroupError::kNone);
}

TEST_F(MembershipTest, ClassicRetentionRulesFollowTheGroupsState) {
  const std::string id = stable_member({"t"});
  const Group& stable = *groups_.find("g");
  OffsetRetention r = Membership::offset_retention(stable);
  EXPECT_EQ(r.since, OffsetRetention::Since::kCommit);
  ASSERT_TRUE(r.in_use);
  EXPECT_TRUE(r.in_use("t"));
  EXPECT_FALSE(r.in_use("other")) << "a stable consumer group's unsubscribed topics age from their commit";
  EXPECT_TRUE(Membership::topics_in_use(stable)("t"));
  EXPECT_EQ(Membership::check_offset_delete(stable), GroupError::kNone) << "a consumer group says which topics it uses";

  const Group& simple = groups_.create("simple", GroupState::kEmpty, -1);
  EXPECT_EQ(Membership::offset_retention(simple).since, OffsetRetention::Since::kCommit);
  EXPECT_FALSE(Membership::topics_in_use(simple));

  LeaveGroupArgs leave{"g", {MemberIdentity{id, std::nullopt, std::nullopt}}};
  ASSERT_EQ(membership_.leave_group(leave).members.at(0).error, GroupError::kNone);
  ASSERT_EQ(stable.state(), GroupState::kEmpty);
  r = Membership::offset_retention(stable);
  EXPECT_EQ(r.since, OffsetRetention::Since::kEmpty);
  EXPECT_EQ(r.empty_since_ms, stable.state_timestamp_ms());
}

TEST_F(MembershipTest, AGroupInTheMiddleOfARebalanceKeepsEveryOffset) {
  JoinGroupArgs a;
  a.group_id = "g";
  a.protocol_type = "connect";
  a.protocols = {{"p", ""}};
  a.session_timeout_ms = kSessionMs;
  a.api_version = 3;
  membership_.join_group(a, [](JoinGroupResult) {});
  const Group& group = *groups_.find("g");
  ASSERT_EQ(group.state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(Membership::offset_retention(group).since, OffsetRetention::Since::kNever);
  EXPECT_EQ(Membership::check_offset_delete(group), GroupError::kNonEmptyGroup)
      << "a live group whose topics are unknown keeps its offsets";
}

TEST_F(MembershipTest, RemovingAGroupCancelsEveryTimerAndWritesItsTombstone) {
  const std::string id = stable_member();
  LeaveGroupArgs leave{"g", {MemberIdentity{id, std::nullopt, std::nullopt}}};
  membership_.leave_group(leave);
  settle();
  JoinGroupArgs a;
  a.group_id = "g";
  a.protocol_type = "consumer";
  a.protocols = {{"range", ""}};
  a.session_timeout_ms = kSessionMs;
  a.api_version = 4;  // handed an id first: a pending member with its own deadline
  membership_.join_group(a, [](JoinGroupResult) {});
  Group& group = *groups_.find("g");
  ASSERT_EQ(group.pending_members().size(), 1u);
  ASSERT_NE(timers_.size(), 0u);
  OffsetBook::Mutations out;
  membership_.remove(group, out);
  EXPECT_EQ(group.state(), GroupState::kDead);
  EXPECT_EQ(timers_.size(), 0u) << "no timer of the group outlives it";
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, encode_group_key("g"));
  EXPECT_TRUE(out[0].erase);
}

}  // namespace
}  // namespace rokka::coordinator::test
