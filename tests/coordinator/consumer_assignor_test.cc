// The server-side assignors (KIP-848) on their own: what a group of members gets,
// what moves when one joins or leaves, and the invariants on random groups (every
// partition of a subscribed topic owned exactly once, by a subscriber; uniform
// balanced within one among those who could take it; range within one per topic).
#include "coordinator/consumer_assignor.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace rokka::coordinator {
namespace {

AssignorMember member(std::string id, std::vector<std::string> topics, TopicPartitionsMap current = {}) {
  return {std::move(id), std::nullopt, std::move(topics), std::move(current)};
}

size_t total(const TopicPartitionsMap& m) {
  size_t n = 0;
  for (const auto& [t, ps] : m) n += ps.size();
  return n;
}

// Members as the next epoch's input: each with what it got as its current assignment.
std::vector<AssignorMember> carried(std::vector<AssignorMember> members, const GroupAssignment& a) {
  for (AssignorMember& m : members) m.current = a.at(m.member_id);
  return members;
}

// Partitions that changed owner between two assignments (a member gone counts its all).
size_t moved(const GroupAssignment& before, const GroupAssignment& after) {
  std::map<std::pair<std::string, int32_t>, std::string> owner;
  for (const auto& [m, tps] : before)
    for (const auto& [t, ps] : tps)
      for (int32_t p : ps) owner[{t, p}] = m;
  size_t n = 0;
  for (const auto& [m, tps] : after)
    for (const auto& [t, ps] : tps)
      for (int32_t p : ps) {
        auto it = owner.find({t, p});
        if (it != owner.end() && it->second != m) ++n;
      }
  return n;
}

// Every partition of every topic someone subscribes to is owned once, by a subscriber.
void expect_complete_and_exclusive(const std::vector<AssignorMember>& members, const TopicPartitionCounts& topics,
                                   const GroupAssignment& a) {
  ASSERT_EQ(a.size(), members.size());
  std::map<std::pair<std::string, int32_t>, int> owners;
  for (const AssignorMember& m : members) {
    const std::set<std::string> subscribed(m.subscribed_topics.begin(), m.subscribed_topics.end());
    for (const auto& [t, ps] : a.at(m.member_id)) {
      EXPECT_TRUE(subscribed.contains(t)) << m.member_id << " got " << t;
      EXPECT_TRUE(std::is_sorted(ps.begin(), ps.end()));
      for (int32_t p : ps) ++owners[{t, p}];
    }
  }
  std::set<std::string> wanted;
  for (const AssignorMember& m : members) wanted.insert(m.subscribed_topics.begin(), m.subscribed_topics.end());
  size_t expected = 0;
  for (const std::string& t : wanted) {
    auto it = topics.find(t);
    if (it == topics.end()) continue;
    expected += static_cast<size_t>(it->second);
    for (int32_t p = 0; p < it->second; ++p) EXPECT_EQ((owners[{t, p}]), 1) << t << "-" << p;
  }
  EXPECT_EQ(owners.size(), expected);
}

TEST(ConsumerAssignorTest, UniformSplitsTwelvePartitionsOverThreeMembersFourEach) {
  const TopicPartitionCounts topics{{"orders", 8}, {"payments", 4}};
  const std::vector<AssignorMember> members{member("c", {"orders", "payments"}), member("a", {"orders", "payments"}),
                                            member("b", {"payments", "orders"})};
  const GroupAssignment a = assign_uniform(members, topics);
  expect_complete_and_exclusive(members, topics, a);
  for (const auto& [id, tps] : a) EXPECT_EQ(total(tps), 4u) << id;
}

TEST(ConsumerAssignorTest, UniformMovesOnlyTheLeaversPartitionsAndTheFewestOnAJoin) {
  const TopicPartitionCounts topics{{"t", 12}};
  std::vector<AssignorMember> members{member("a", {"t"}), member("b", {"t"}), member("c", {"t"})};
  const GroupAssignment first = assign_uniform(members, topics);

  // c leaves: a and b keep all they had and share c's four.
  std::vector<AssignorMember> two = carried({members[0], members[1]}, first);
  const GroupAssignment after_leave = assign_uniform(two, topics);
  expect_complete_and_exclusive(two, topics, after_leave);
  for (const char* id : {"a", "b"}) {
    const auto& had = first.at(id).at("t");
    const auto& has = after_leave.at(id).at("t");
    EXPECT_TRUE(std::includes(has.begin(), has.end(), had.begin(), had.end())) << id;
    EXPECT_EQ(has.size(), 6u);
  }

  // d joins three members with four each: three partitions move, one from each.
  std::vector<AssignorMember> four = carried(members, first);
  four.push_back(member("d", {"t"}));
  const GroupAssignment after_join = assign_uniform(four, topics);
  expect_complete_and_exclusive(four, topics, after_join);
  EXPECT_EQ(moved(first, after_join), 3u);
  for (const auto& [id, tps] : after_join) EXPECT_EQ(total(tps), 3u) << id;
}

// Members joining one at a time: each time the members over their share give up their
// highest partitions and keep their lowest, as Kafka's uniform assignor does when all
// subscribe to the same topics (librdkafka 2.14.2's 0113 x_incremental_rebalances
// checks exactly these assignments).
TEST(ConsumerAssignorTest, UniformKeepsTheLowestPartitionsWhenMembersJoinOneByOne) {
  const TopicPartitionCounts topics{{"t", 6}};
  using Ps = std::vector<int32_t>;
  std::vector<AssignorMember> members{member("c0", {"t"})};
  GroupAssignment a = assign_uniform(members, topics);
  EXPECT_EQ(a.at("c0").at("t"), (Ps{0, 1, 2, 3, 4, 5}));

  members = carried(members, a);
  members.push_back(member("c1", {"t"}));
  a = assign_uniform(members, topics);
  EXPECT_EQ(a.at("c0").at("t"), (Ps{0, 1, 2}));
  EXPECT_EQ(a.at("c1").at("t"), (Ps{3, 4, 5}));

  members = carried(members, a);
  members.push_back(member("c2", {"t"}));
  a = assign_uniform(members, topics);
  EXPECT_EQ(a.at("c0").at("t"), (Ps{0, 1}));
  EXPECT_EQ(a.at("c1").at("t"), (Ps{3, 4}));
  EXPECT_EQ(a.at("c2").at("t"), (Ps{2, 5}));
}

TEST(ConsumerAssignorTest, UniformBalancesDifferentSubscriptionsAmongThoseWhoCanTakeThem) {
  // a reads only t1; b reads t1 and t2: the balance gives a all of t1, b all of t2.
  const TopicPartitionCounts topics{{"t1", 6}, {"t2", 6}};
  const std::vector<AssignorMember> members{member("a", {"t1"}), member("b", {"t1", "t2"})};
  const GroupAssignment a = assign_uniform(members, topics);
  expect_complete_and_exclusive(members, topics, a);
  EXPECT_EQ(a.at("a").at("t1").size(), 6u);
  EXPECT_EQ(a.at("b").at("t2").size(), 6u);
  EXPECT_FALSE(a.at("b").contains("t1"));
}

TEST(ConsumerAssignorTest, StaleClaimsAreDroppedAndADoubleClaimHasOneOwner) {
  // a claims t-0..t-3 and a partition that no longer exists; b claims t-0 too and a
  // topic it no longer subscribes to.
  const TopicPartitionCounts topics{{"t", 4}, {"old", 2}};
  const std::vector<AssignorMember> members{member("a", {"t"}, {{"t", {0, 1, 2, 3, 9}}}),
                                            member("b", {"t"}, {{"t", {0}}, {"old", {0, 1}}})};
  for (AssignorFunction assign : {&assign_uniform, &assign_range}) {
    const GroupAssignment a = assign(members, topics, {});
    expect_complete_and_exclusive(members, topics, a);
    EXPECT_EQ(total(a.at("a")), 2u);
    EXPECT_EQ(total(a.at("b")), 2u);
    EXPECT_FALSE(a.at("b").contains("old"));
  }
}

TEST(ConsumerAssignorTest, RangeGivesTheSamePartitionNumbersOfCoPartitionedTopicsToOneMember) {
  const TopicPartitionCounts topics{{"clicks", 5}, {"views", 5}};
  const std::vector<AssignorMember> members{member("m2", {"views", "clicks"}), member("m1", {"clicks", "views"})};
  const GroupAssignment a = assign_range(members, topics);
  expect_complete_and_exclusive(members, topics, a);
  // Sorted by id, the first member gets the extra partition: m1 0-2, m2 3-4, in both topics.
  const std::vector<int32_t> first{0, 1, 2}, second{3, 4};
  EXPECT_EQ(a.at("m1").at("clicks"), first);
  EXPECT_EQ(a.at("m1").at("views"), first);
  EXPECT_EQ(a.at("m2").at("clicks"), second);
  EXPECT_EQ(a.at("m2").at("views"), second);
}

TEST(ConsumerAssignorTest, RangeKeepsWhatEachMemberOwnsWithinItsCount) {
  const TopicPartitionCounts topics{{"t", 6}};
  const std::vector<AssignorMember> members{member("a", {"t"}), member("b", {"t"}), member("c", {"t"})};
  const GroupAssignment first = assign_range(members, topics);
  // b leaves: a and c keep their two and take b's.
  const std::vector<AssignorMember> two = carried({members[0], members[2]}, first);
  const GroupAssignment after = assign_range(two, topics);
  expect_complete_and_exclusive(two, topics, after);
  for (const char* id : {"a", "c"}) {
    const auto& had = first.at(id).at("t");
    const auto& has = after.at(id).at("t");
    EXPECT_TRUE(std::includes(has.begin(), has.end(), had.begin(), had.end())) << id;
    EXPECT_EQ(has.size(), 3u);
  }
}

TEST(ConsumerAssignorTest, MembersWithNothingToReadStillGetAnEntry) {
  const TopicPartitionCounts topics{{"t", 1}};
  const std::vector<AssignorMember> members{member("a", {"t"}), member("b", {"t"}), member("c", {"missing"})};
  for (AssignorFunction assign : {&assign_uniform, &assign_range}) {
    const GroupAssignment a = assign(members, topics, {});
    expect_complete_and_exclusive(members, topics, a);
    EXPECT_EQ(total(a.at("a")) + total(a.at("b")), 1u);
    EXPECT_TRUE(a.at("c").empty());
  }
  EXPECT_TRUE(assign_uniform({}, topics).empty());
}

TEST(ConsumerAssignorTest, AssignorsByKafkasNames) {
  EXPECT_EQ(find_assignor("uniform"), &assign_uniform);
  EXPECT_EQ(find_assignor("range"), &assign_range);
  EXPECT_EQ(find_assignor("sticky"), nullptr);
  EXPECT_EQ(find_assignor(""), nullptr);
}

AssignorMember racked(std::string id, std::optional<std::string> rack, std::vector<std::string> topics,
                      TopicPartitionsMap current = {}) {
  return {std::move(id), std::move(rack), std::move(topics), std::move(current)};
}

// How many partitions are on a member of one of their racks.
size_t rack_local(const std::vector<AssignorMember>& members, const PartitionRacks& racks, const GroupAssignment& a) {
  size_t n = 0;
  for (const AssignorMember& m : members) {
    if (!m.rack_id) continue;
    for (const auto& [t, ps] : a.at(m.member_id)) {
      auto it = racks.find(t);
      if (it == racks.end()) continue;
      for (int32_t p : ps)
        if (static_cast<size_t>(p) < it->second.size() &&
            std::find(it->second[p].begin(), it->second[p].end(), *m.rack_id) != it->second[p].end())
          ++n;
    }
  }
  return n;
}

TEST(ConsumerAssignorTest, UniformGivesEachMemberThePartitionsOnItsRack) {
  const TopicPartitionCounts topics{{"t", 4}};
  const PartitionRacks racks{{"t", {{"r1"}, {"r1"}, {"r2"}, {"r2"}}}};
  std::vector<AssignorMember> members{racked("a", "r1", {"t"}), racked("b", "r2", {"t"})};
  const GroupAssignment plain = assign_uniform(members, topics);
  EXPECT_EQ(rack_local(members, racks, plain), 2u) << "without racks: every other partition";
  const GroupAssignment a = assign_uniform(members, topics, racks);
  EXPECT_EQ(a.at("a"), (TopicPartitionsMap{{"t", {0, 1}}}));
  EXPECT_EQ(a.at("b"), (TopicPartitionsMap{{"t", {2, 3}}}));
  // Balance before racks: with three on r1's partitions, r1's member still gets its two.
  const PartitionRacks skewed{{"t", {{"r1"}, {"r1"}, {"r1"}, {"r2"}}}};
  const GroupAssignment s = assign_uniform(members, topics, skewed);
  EXPECT_EQ(total(s.at("a")), 2u);
  EXPECT_EQ(total(s.at("b")), 2u);
  EXPECT_TRUE(s.at("b").at("t") == std::vector<int32_t>({0, 3}) || s.at("b").at("t") == std::vector<int32_t>({1, 3}) ||
              s.at("b").at("t") == std::vector<int32_t>({2, 3}));
  // Racks win over stickiness: owning the other rack's partitions, they swap.
  const GroupAssignment again = assign_uniform(carried(members, plain), topics, racks);
  EXPECT_EQ(again, a);
  // And once aligned, nothing moves.
  EXPECT_EQ(assign_uniform(carried(members, a), topics, racks), a);
}

TEST(ConsumerAssignorTest, WithoutRacksOnBothSidesTheAssignmentIsTheOneWithoutRacks) {
  const TopicPartitionCounts topics{{"t", 6}, {"u", 3}};
  const std::vector<AssignorMember> plain_members{member("a", {"t", "u"}), member("b", {"t"}), member("c", {"t", "u"})};
  std::vector<AssignorMember> racked_members{racked("a", "r1", {"t", "u"}), racked("b", "r2", {"t"}),
                                             racked("c", "r3", {"t", "u"})};
  const PartitionRacks racks{{"t", {{"r1"}, {"r2"}, {"r3"}, {"r1"}, {"r2"}, {"r3"}}}, {"u", {{"r2"}, {"r2"}, {"r1"}}}};
  const PartitionRacks one_rack{{"t", std::vector<std::vector<std::string>>(6, {"r1", "r2", "r3"})},
                                {"u", std::vector<std::vector<std::string>>(3, {"r1", "r2", "r3"})}};
  for (AssignorFunction assign : {&assign_uniform, &assign_range}) {
    const GroupAssignment expected = assign(plain_members, topics, {});
    EXPECT_EQ(assign(plain_members, topics, racks), expected) << "members without racks";
    EXPECT_EQ(assign(racked_members, topics, {}), expected) << "partitions without racks";
    EXPECT_EQ(assign(racked_members, topics, one_rack), expected) << "every partition on every rack";
  }
}

TEST(ConsumerAssignorTest, RangeMovesCoPartitionedPartitionsToTheirRackTogether) {
  const TopicPartitionCounts topics{{"a", 4}, {"b", 4}};
  const std::vector<std::vector<std::string>> placed{{"r2"}, {"r2"}, {"r1"}, {"r1"}};
  const PartitionRacks racks{{"a", placed}, {"b", placed}};
  const std::vector<AssignorMember> members{racked("m1", "r1", {"a", "b"}), racked("m2", "r2", {"a", "b"})};
  const GroupAssignment plain = assign_range(members, topics);
  EXPECT_EQ(plain.at("m1"), (TopicPartitionsMap{{"a", {0, 1}}, {"b", {0, 1}}}));
  const GroupAssignment a = assign_range(members, topics, racks);
  EXPECT_EQ(a.at("m1"), (TopicPartitionsMap{{"a", {2, 3}}, {"b", {2, 3}}}));
  EXPECT_EQ(a.at("m2"), (TopicPartitionsMap{{"a", {0, 1}}, {"b", {0, 1}}}));
  // Co-partitioning first: where a's and b's partition 1 are on different racks, nobody
  // matches that partition number, and the pair still goes to one member.
  PartitionRacks split = racks;
  split["b"][1] = {"r1"};
  const GroupAssignment c = assign_range(members, topics, split);
  for (const std::string m : {"m1", "m2"}) EXPECT_EQ(c.at(m).at("a"), c.at(m).at("b")) << m;
  EXPECT_EQ(c.at("m1").at("a").size(), 2u);
}

// Random groups over several epochs: the invariants hold each time, and uniform
// leaves no member able to take a partition from one holding two more.
TEST(ConsumerAssignorTest, RandomGroupsKeepTheInvariantsOverEpochs) {
  std::mt19937 rng(20261203);
  for (int round = 0; round < 200; ++round) {
    TopicPartitionCounts topics;
    const int ntopics = 1 + static_cast<int>(rng() % 5);
    for (int t = 0; t < ntopics; ++t) topics["t" + std::to_string(t)] = static_cast<int32_t>(rng() % 20);
    std::vector<AssignorMember> members;
    const int nmembers = 1 + static_cast<int>(rng() % 8);
    for (int m = 0; m < nmembers; ++m) {
      std::vector<std::string> subs;
      for (int t = 0; t < ntopics + 1; ++t)  // t<ntopics> does not exist
        if (rng() % 2) subs.push_back("t" + std::to_string(t));
      members.push_back(member("m" + std::to_string(rng() % 1000) + "-" + std::to_string(m), subs));
    }
    for (AssignorFunction assign : {&assign_uniform, &assign_range}) {
      std::vector<AssignorMember> epoch = members;
      for (int e = 0; e < 3; ++e) {
        const GroupAssignment a = assign(epoch, topics, {});
        expect_complete_and_exclusive(epoch, topics, a);
        if (assign == &assign_uniform) {
          for (const AssignorMember& from : epoch)
            for (const auto& [t, ps] : a.at(from.member_id))
              for (const AssignorMember& to : epoch) {
                const bool could =
                    std::find(to.subscribed_topics.begin(), to.subscribed_topics.end(), t) != to.subscribed_topics.end();
                if (could && !ps.empty()) {
                  EXPECT_LT(total(a.at(from.member_id)), total(a.at(to.member_id)) + 2)
                      << from.member_id << " -> " << to.member_id << " round " << round;
                }
              }
        } else {
          for (const auto& [t, n] : topics) {
            std::vector<size_t> counts;
            for (const AssignorMember& m : epoch)
              if (std::find(m.subscribed_topics.begin(), m.subscribed_topics.end(), t) != m.subscribed_topics.end())
                counts.push_back(a.at(m.member_id).contains(t) ? a.at(m.member_id).at(t).size() : 0);
            if (!counts.empty()) {
              EXPECT_LE(*std::max_element(counts.begin(), counts.end()) - *std::min_element(counts.begin(), counts.end()),
                        1u);
            }
          }
        }
        epoch = carried(epoch, a);
        if (epoch.size() > 1 && rng() % 2) epoch.erase(epoch.begin() + static_cast<long>(rng() % epoch.size()));
      }
    }
  }
}

// Random groups with random racks: the same counts as without racks (uniform: per member;
// range: per member and topic), every partition owned once by a subscriber, and never
// fewer partitions on their member's rack than without racks.
TEST(ConsumerAssignorTest, RacksNeverChangeTheBalanceOnRandomGroups) {
  std::mt19937 rng(20261206);
  const std::vector<std::string> rack_names{"r1", "r2", "r3"};
  for (int round = 0; round < 300; ++round) {
    TopicPartitionCounts topics;
    PartitionRacks racks;
    const int ntopics = 1 + static_cast<int>(rng() % 4);
    for (int t = 0; t < ntopics; ++t) {
      const std::string name = "t" + std::to_string(t);
      topics[name] = static_cast<int32_t>(rng() % 16);
      for (int32_t p = 0; p < topics[name]; ++p) {
        std::vector<std::string> r;
        for (const std::string& rack : rack_names)
          if (rng() % 3 == 0) r.push_back(rack);
        racks[name].push_back(std::move(r));
      }
    }
    std::vector<AssignorMember> members;
    const int nmembers = 1 + static_cast<int>(rng() % 7);
    for (int m = 0; m < nmembers; ++m) {
      std::vector<std::string> subs;
      for (int t = 0; t < ntopics; ++t)
        if (rng() % 3 != 0) subs.push_back("t" + std::to_string(t));
      std::optional<std::string> rack;
      if (rng() % 4 != 0) rack = rack_names[rng() % rack_names.size()];
      members.push_back(racked("m" + std::to_string(m), rack, subs));
    }
    for (AssignorFunction assign : {&assign_uniform, &assign_range}) {
      std::vector<AssignorMember> epoch = members;
      for (int e = 0; e < 2; ++e) {
        const GroupAssignment plain = assign(epoch, topics, {});
        const GroupAssignment a = assign(epoch, topics, racks);
        expect_complete_and_exclusive(epoch, topics, a);
        EXPECT_GE(rack_local(epoch, racks, a), rack_local(epoch, racks, plain)) << "round " << round;
        for (const AssignorMember& m : epoch) {
          if (assign == &assign_uniform) {
            EXPECT_EQ(total(a.at(m.member_id)), total(plain.at(m.member_id))) << "round " << round;
          } else {
            for (const auto& [t, n] : topics) {
              const auto& got = a.at(m.member_id);
              const auto& want = plain.at(m.member_id);
              EXPECT_EQ(got.contains(t) ? got.at(t).size() : 0, want.contains(t) ? want.at(t).size() : 0)
                  << "round " << round;
            }
          }
        }
        epoch = carried(epoch, a);
      }
    }
  }
}

}  // namespace
}  // namespace rokka::coordinator
