// 1,000 groups x 10 members on one coordinator: heartbeats move timers, nothing fires
// and nothing is scanned while nobody expires. Counts work, never time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/group_coordinator.h"
#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator::test {
namespace {

using H = CoordinatorHarness;

TEST(ScaleTest, ThousandGroupsOfTenCostNoTimerWorkWhileAllHeartbeat) {
  constexpr int kGroups = 1000;
  constexpr int kMembers = 10;
  CoordinatorOptions o = test_options();
  o.offsets_retention_check_interval_ms = 24 * 3600 * 1000;  // keep the daily expiry pass out of the window
  H h(o);

  // Everyone joins at once; all groups finish their (extended) initial delay together.
  std::vector<std::vector<Answer<JoinGroupResult>>> joins(kGroups);
  for (int g = 0; g < kGroups; ++g) {
    for (int m = 0; m < kMembers; ++m) joins[g].push_back(h.join(h.join_args("group-" + std::to_string(g))));
  }
  h.advance(6001);
  std::vector<std::vector<std::string>> members(kGroups);
  for (int g = 0; g < kGroups; ++g) {
    const std::string id = "group-" + std::to_string(g);
    std::string leader;
    for (auto& j : joins[g]) {
      ASSERT_TRUE(*j);
      ASSERT_EQ((*j)->error, GroupError::kNone);
      members[g].push_back((*j)->member_id);
      leader = (*j)->leader;
    }
    for (const std::string& m : members[g]) h.sync(id, 1, m, m == leader ? std::vector<SyncGroupAssignment>{{m, "a"}} : std::vector<SyncGroupAssignment>{});
  }
  h.settle();
  ASSERT_EQ(h.coord().list_groups({{"Stable"}}).groups.size(), static_cast<size_t>(kGroups));

  // One timer per member plus the expiry pass: nothing else is left running.
  const size_t live_timers = h.coord().timers().size();
  EXPECT_EQ(live_timers, static_cast<size_t>(kGroups * kMembers) + 1);
  const uint64_t fired_before = h.coord().timers().fired_total();

  // Ten heartbeat rounds, 3 s apart (session: 10 s).
  for (int round = 0; round < 10; ++round) {
    h.clock.advance(3000);
    EXPECT_EQ(h.coord().run_due_timers(), 0u) << "round " << round;
    for (int g = 0; g < kGroups; ++g) {
      for (const std::string& m : members[g]) {
        ASSERT_EQ(h.heartbeat("group-" + std::to_string(g), 1, m), GroupError::kNone);
      }
    }
    // The one system timer an owner would arm is at least a session away: no wake-ups.
    ASSERT_TRUE(h.coord().next_deadline());
    EXPECT_GE(*h.coord().next_deadline(), h.clock.now_ms() + H::kSessionMs - 3000);
  }
  EXPECT_EQ(h.coord().timers().fired_total(), fired_before) << "no timer fired while everyone heartbeat";
  EXPECT_EQ(h.coord().timers().size(), live_timers) << "heartbeats move timers, they do not add any";

  // One member goes silent: exactly its timer fires, and only its group rebalances.
  const std::string silent = members[500][3];
  for (int waited = 0; waited <= H::kSessionMs; waited += 3000) {
    h.clock.advance(3000);
    h.coord().run_due_timers();
    for (int g = 0; g < kGroups; ++g) {
      for (const std::string& m : members[g]) {
        if (m != silent) h.heartbeat("group-" + std::to_string(g), 1, m);
      }
    }
  }
  EXPECT_EQ(h.coord().timers().fired_total(), fired_before + 1);
  EXPECT_EQ(h.coord().list_groups({{"PreparingRebalance"}}).groups.size(), 1u);
  EXPECT_EQ(h.coord().find_group("group-500")->size(), static_cast<size_t>(kMembers - 1));
}

}  // namespace
}  // namespace rokka::coordinator::test
