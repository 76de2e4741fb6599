// GroupMap: groups by id, each made with a fresh incarnation.
#include "coordinator/group_map.h"

#include <gtest/gtest.h>

namespace rokka::coordinator {
namespace {

TEST(GroupMapTest, AGroupMadeAgainIsNotTheLiveOneForTheOldIncarnation) {
  GroupMap groups;
  const uint64_t first = groups.create("g", GroupState::kEmpty, 5).incarnation();
  EXPECT_EQ(groups.live("g", first), groups.find("g"));
  groups.erase("g");
  EXPECT_EQ(groups.find("g"), nullptr);
  EXPECT_EQ(groups.live("g", first), nullptr);
  Group& again = groups.create("g", GroupState::kEmpty, 6);
  EXPECT_NE(again.incarnation(), first);
  EXPECT_EQ(groups.live("g", first), nullptr) << "a timer of the deleted group must not act on its namesake";
  EXPECT_EQ(groups.live("g", again.incarnation()), &again);
  EXPECT_EQ(again.state_timestamp_ms(), 6);
}

TEST(GroupMapTest, APassOverTheSnapshotMayEraseAsItGoes) {
  GroupMap groups;
  for (const char* id : {"a", "b", "c", "d"}) groups.create(id, GroupState::kEmpty, 0);
  std::vector<std::string> seen;
  for (Group* group : groups.snapshot()) {
    const std::string id = group->group_id();
    seen.push_back(id);
    if (id != "c") groups.erase(id);
  }
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(groups.size(), 1u);
  EXPECT_NE(groups.find("c"), nullptr);
}

}  // namespace
}  // namespace rokka::coordinator
