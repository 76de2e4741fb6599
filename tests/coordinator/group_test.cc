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
  Member m;
  m.member_id = id;
  m.group_instance_id = std::move(instance);
  m.protocol_type = "consumer";
  m.protocols = std::move(protocols);
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

}  // namespace
}  // namespace rokka::coordinator
