// The Group state machine's transition table, and the bookkeeping Group keeps itself.
#include "coordinator/group.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace rokka::coordinator {
namespace {

using S = GroupState;

Member member(const std::string& id, std::vector<Protocol> protocols,
              std::optional<std::string> instance = std::nullopt) {
  Member m(id, std::move(instance), std::move(protocols));
  m.protocol_type = "consumer";
  return m;
}

TEST(GroupTest, OnlyKafkasTransitionsAreAllowed) {
  const S all[] = {S::kEmpty, S::kPreparingRebalance, S::kCompletingRebalance, S::kStable, S::kDead};
  auto allowed = [](S from, S to) {
    switch (to) {
      case S::kEmpty: return from == S::kPreparingRebalance;
      case S::kPreparingRebalance: return from == S::kEmpty || from == S::kStable || from == S::kCompletingRebalance;
      case S::kCompletingRebalance: return from == S::kPreparingRebalance;
      case S::kStable: return from == S::kCompletingRebalance;
      case S::kDead: return true;
    }
    return false;
  };
  for (S from : all) {
    for (S to : all) {
      Group g("g", from, 0, 1);
      EXPECT_EQ(g.can_transition_to(to), allowed(from, to))
          << group_state_name(from) << " -> " << group_state_name(to);
    }
  }
}

TEST(GroupDeathTest, InvalidTransitionAborts) {
  Group g("g", S::kEmpty, 0, 1);
  EXPECT_DEATH(
      {
        spdlog::set_default_logger(spdlog::stderr_logger_st("death"));  // the message must reach stderr
        g.transition_to(S::kStable, 5);
      },
      "invalid group transition: group=g from=Empty to=Stable");
}

TEST(GroupTest, StateNamesParseBackIgnoringCase) {
  EXPECT_EQ(parse_group_state("completingrebalance"), S::kCompletingRebalance);
  EXPECT_EQ(parse_group_state("STABLE"), S::kStable);
  EXPECT_EQ(parse_group_state("AwaitingSync"), std::nullopt);
  EXPECT_EQ(group_state_name(S::kPreparingRebalance), "PreparingRebalance");
}

TEST(GroupTest, LeaderPassesOnWhenItLeaves) {
  Group g("g", S::kEmpty, 0, 1);
  g.add(member("a", {{"range", ""}}), nullptr);
  g.add(member("b", {{"range", ""}}), nullptr);
  EXPECT_TRUE(g.is_leader("a"));
  g.remove("a");
  EXPECT_TRUE(g.is_leader("b"));
  g.remove("b");
  EXPECT_FALSE(g.leader_id());
}

TEST(GroupTest, SupportedProtocolsFollowTheMembers) {
  Group g("g", S::kEmpty, 0, 1);
  EXPECT_TRUE(g.supports_protocols("consumer", {{"anything", ""}}));
  g.add(member("a", {{"range", ""}, {"sticky", ""}}), nullptr);
  g.add(member("b", {{"sticky", ""}}), nullptr);
  EXPECT_FALSE(g.supports_protocols("consumer", {{"range", ""}}));
  EXPECT_TRUE(g.supports_protocols("consumer", {{"sticky", ""}}));
  EXPECT_FALSE(g.supports_protocols("connect", {{"sticky", ""}}));
  g.remove("b");
  EXPECT_TRUE(g.supports_protocols("consumer", {{"range", ""}}));
}

TEST(GroupTest, ParkedJoinsAreCountedExactly) {
  Group g("g", S::kEmpty, 0, 1);
  int answered = 0;
  Member& a = g.add(member("a", {{"range", ""}}), [&](JoinGroupResult) { ++answered; });
  g.add(member("b", {{"range", ""}}), nullptr);
  EXPECT_FALSE(g.has_all_members_joined());
  JoinCallback previous = g.update_member(*g.find("b"), {{"range", ""}}, 1, 1, [&](JoinGroupResult) {});
  EXPECT_FALSE(previous);
  EXPECT_TRUE(g.has_all_members_joined());
  g.add_pending_member("c", TimerQueue::kNone);
  EXPECT_FALSE(g.has_all_members_joined()) << "a member handed an id is still expected";
  g.remove("c");
  JoinCallback taken = g.take_join_callback(a);
  ASSERT_TRUE(taken);
  EXPECT_FALSE(g.has_all_members_joined());
  EXPECT_EQ(g.num_awaiting_join(), 1u);
}

TEST(GroupTest, ReplacingAStaticMemberFencesItsParkedRequestsAndKeepsItsPlace) {
  Group g("g", S::kEmpty, 0, 1);
  std::optional<JoinGroupResult> fenced;
  Member& old = g.add(member("old", {{"range", ""}}, "i1"), [&](JoinGroupResult r) { fenced = std::move(r); });
  old.assignment = "mine";
  Member& now = g.replace_static_member("i1", "old", "new");
  ASSERT_TRUE(fenced);
  EXPECT_EQ(fenced->error, GroupError::kFencedInstanceId);
  EXPECT_EQ(now.assignment, "mine");
  EXPECT_TRUE(g.is_leader("new"));
  EXPECT_EQ(g.static_member_id("i1"), "new");
  EXPECT_FALSE(g.has("old"));
  EXPECT_EQ(g.num_awaiting_join(), 0u);
}

TEST(GroupTest, ANewGenerationMakesEveryMemberOweASyncAndNoneNew) {
  Group g("g", S::kEmpty, 0, 1);
  g.add(member("a", {{"range", ""}}), [](JoinGroupResult) {});
  g.restore(member("b", {{"range", ""}}));
  EXPECT_TRUE(g.find("a")->is_new()) << "added with its JoinGroup parked";
  EXPECT_FALSE(g.find("b")->is_new()) << "restored members are not new";
  g.start_rebalance(10);
  g.init_next_generation(20);
  EXPECT_EQ(g.state(), S::kCompletingRebalance);
  EXPECT_EQ(g.generation_id(), 1);
  EXPECT_EQ(g.pending_sync_members(), (std::set<std::string>{"a", "b"}));
  EXPECT_FALSE(g.find("a")->is_new());
  g.remove_pending_sync_member("a");
  g.remove("b");
  EXPECT_TRUE(g.pending_sync_members().empty()) << "a removed member owes nothing";
  g.restore(member("c", {{"range", ""}}));
  g.start_rebalance(25);
  g.init_next_generation(26);
  EXPECT_EQ(g.pending_sync_members(), (std::set<std::string>{"a", "c"}));
  g.start_rebalance(30);
  EXPECT_TRUE(g.pending_sync_members().empty()) << "a new join phase forgets the last generation's syncs";
  EXPECT_EQ(g.state_timestamp_ms(), 30);
}

TEST(GroupTest, EveryParkedJoinBumpsTheMembersTicket) {
  Group g("g", S::kEmpty, 0, 1);
  Member& a = g.add(member("a", {{"range", ""}}), [](JoinGroupResult) {});
  const uint64_t first = a.join_ticket();
  g.update_member(a, {{"range", ""}}, 1, 1, [](JoinGroupResult) {});
  EXPECT_EQ(a.join_ticket(), first + 1);
  g.update_member(a, {{"range", ""}}, 1, 1, nullptr);
  EXPECT_EQ(a.join_ticket(), first + 1) << "nothing parked, nothing to tell apart";
  EXPECT_FALSE(a.is_awaiting_join());
}

TEST(GroupTest, AParkedSyncIsHandedBackWhenSuperseded) {
  Group g("g", S::kEmpty, 0, 1);
  Member& a = g.add(member("a", {{"range", ""}}), nullptr);
  std::vector<std::string> answered;
  EXPECT_FALSE(g.park_sync(a, [&](SyncGroupResult) { answered.push_back("first"); }));
  EXPECT_TRUE(a.is_awaiting_sync());
  SyncCallback superseded = g.park_sync(a, [&](SyncGroupResult) { answered.push_back("second"); });
  ASSERT_TRUE(superseded);
  superseded(SyncGroupResult{});
  g.take_sync_callback(a)(SyncGroupResult{});
  EXPECT_EQ(answered, (std::vector<std::string>{"first", "second"}));
  EXPECT_FALSE(a.is_awaiting_sync());
}

TEST(GroupTest, FailingAllParkedRequestsAnswersEachMemberUnderItsOwnId) {
  Group g("g", S::kEmpty, 0, 1);
  std::vector<std::string> joins;
  int syncs = 0;
  g.add(member("a", {{"range", ""}}), [&](JoinGroupResult r) { joins.push_back(r.member_id); });
  g.add(member("b", {{"range", ""}}), [&](JoinGroupResult r) { joins.push_back(r.member_id); });
  g.park_sync(*g.find("b"), [&](SyncGroupResult r) { syncs += r.error == GroupError::kCoordinatorNotAvailable; });
  g.fail_all_parked_requests(GroupError::kCoordinatorNotAvailable);
  EXPECT_EQ(joins, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(syncs, 1);
  EXPECT_EQ(g.num_awaiting_join(), 0u);
}

TEST(GroupTest, AssignGivesMembersTheLeadersBytesAndTheRestNothing) {
  Group g("g", S::kEmpty, 0, 1);
  g.restore(member("a", {{"range", ""}}));
  g.restore(member("b", {{"range", ""}}));
  g.assign({{"a", "for-a"}, {"stranger", "ignored"}});
  EXPECT_EQ(g.find("a")->assignment, "for-a");
  EXPECT_EQ(g.find("b")->assignment, "");
  EXPECT_FALSE(g.has("stranger"));
  g.assign({});
  EXPECT_EQ(g.find("a")->assignment, "");
}

TEST(GroupTest, APendingMemberHandsBackItsDeadlineOnce) {
  Group g("g", S::kEmpty, 0, 1);
  g.add_pending_member("p", 42);
  EXPECT_EQ(g.remove_pending_member("p"), std::optional<TimerQueue::Id>(42));
  EXPECT_EQ(g.remove_pending_member("p"), std::nullopt);
  g.add_pending_member("q", 7);
  g.add(member("q", {{"range", ""}}), nullptr);
  EXPECT_FALSE(g.is_pending_member("q")) << "rejoining makes it a member";
}

}  // namespace
}  // namespace rokka::coordinator
