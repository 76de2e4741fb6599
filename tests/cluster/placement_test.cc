// cluster/placement.h: which broker leads each partition, and the coordinator shards. The
// values come from etcd, where any broker or an operator may have written them: hostile input.
#include "cluster/placement.h"

#include <gtest/gtest.h>

namespace rokka::cluster {
namespace {

TEST(PlacementTest, RoundRobinRangesGiveEachPartitionItsBroker) {
  Placement p;
  p.add_round_robin(0, {1, 2, 3}, 4);  // starts at brokers[4 % 3] = 2
  p.add_round_robin(5, {2, 3}, 0);     // partitions added later, over two brokers
  p.ranges.push_back({7, 0, {9}});     // one explicitly assigned partition
  EXPECT_EQ(p.leaders(8), (std::vector<int32_t>{2, 3, 1, 2, 3, 2, 3, 9}));
  auto back = decode_placement(encode_placement(p), 8);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, p);
  // A start that is negative after arithmetic still lands on a broker.
  Placement q;
  q.add_round_robin(0, {1, 2}, -3);
  EXPECT_EQ(q.leaders(2), (std::vector<int32_t>{2, 1}));
}

TEST(PlacementTest, HostilePlacementsAreRefused) {
  const char* bad[] = {
      "null",
      "[]",
      R"({})",
      R"({"ranges":[]})",
      R"({"ranges":[{"first":1,"start":0,"brokers":[1]}]})",                                     // not from 0
      R"({"ranges":[{"first":0,"start":0,"brokers":[1]},{"first":0,"start":0,"brokers":[2]}]})",  // not increasing
      R"({"ranges":[{"first":0,"start":0,"brokers":[1]},{"first":3,"start":0,"brokers":[2]}]})",  // past the end
      R"({"ranges":[{"first":0,"start":0,"brokers":[]}]})",
      R"({"ranges":[{"first":0,"start":0,"brokers":[-1]}]})",
      R"({"ranges":[{"first":0,"start":-1,"brokers":[1]}]})",
      R"({"ranges":[{"first":0,"start":0,"brokers":["1"]}]})",
      R"({"ranges":[{"first":0,"start":0,"brokers":[1.5]}]})",
      R"({"ranges":[{"first":0,"start":0,"brokers":[99999999999]}]})",
      R"({"ranges":[{"first":0,"start":0}]})",
      R"({"ranges":[7]})",
      R"({"ranges":[{"first":0,"start":0,"brokers":[1]},{"first":1,"start":0,"brokers":[1]},)"
      R"({"first":2,"start":0,"brokers":[1]},{"first":3,"start":0,"brokers":[1]}]})",  // more ranges than partitions
      R"({"ranges":[{"first":0,"start":0,"brokers":[1]})",                            // truncated
  };
  for (const char* text : bad) EXPECT_FALSE(decode_placement(text, 3).ok()) << text;
  EXPECT_FALSE(decode_placement(R"({"ranges":[{"first":0,"start":0,"brokers":[1]}]})", 0).ok());
  // A broker list over the cap is refused before it is kept.
  std::string many = R"({"ranges":[{"first":0,"start":0,"brokers":[)";
  for (size_t i = 0; i <= kMaxPlacementBrokers; ++i) many += (i ? ",1" : "1");
  many += "]}]}";
  EXPECT_FALSE(decode_placement(many, 1).ok());
}

TEST(PlacementTest, GroupRangesGiveEachPartitionItsGroup) {
  Placement p;
  p.group_ranges.push_back({0, 1, {"g1", "g2"}});  // starts at g2
  p.group_ranges.push_back({3, 0, {"g-3_x"}});     // partitions added later, on one group
  EXPECT_TRUE(p.replicated());
  EXPECT_EQ(p.groups(5), (std::vector<std::string>{"g2", "g1", "g2", "g-3_x", "g-3_x"}));
  EXPECT_EQ(p.leaders(5), (std::vector<int32_t>(5, -1)));  // the groups' states name them
  auto back = decode_placement(encode_placement(p), 5);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, p);
  // The form written before groups existed still decodes the same, as no group.
  auto old = decode_placement(R"({"ranges":[{"first":0,"start":0,"brokers":[1]}]})", 2);
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->replicated());
  EXPECT_EQ(old->groups(2), (std::vector<std::string>{"", ""}));
}

TEST(PlacementTest, HostileGroupPlacementsAreRefused) {
  const char* bad[] = {
      R"({"group_ranges":[]})",
      R"({"group_ranges":7})",
      R"({"group_ranges":[7]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":["g1"]}],"ranges":[{"first":0,"start":0,"brokers":[1]}]})",
      R"({"group_ranges":[{"first":1,"start":0,"groups":["g1"]}]})",                                   // not from 0
      R"({"group_ranges":[{"first":0,"start":0,"groups":["g1"]},{"first":0,"start":0,"groups":["g2"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":["g1"]},{"first":3,"start":0,"groups":["g2"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":[]}]})",
      R"({"group_ranges":[{"first":0,"start":-1,"groups":["g1"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":[""]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":["G1"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":["g/1"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":["a23456789012345678901234567890123"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":[1]}]})",
      R"({"group_ranges":[{"first":0,"start":0}]})",
      R"({"group_ranges":[{"first":0,"groups":["g1"]}]})",
      R"({"group_ranges":[{"first":0,"start":0,"groups":["g1"]},{"first":1,"start":0,"groups":["g1"]},)"
      R"({"first":2,"start":0,"groups":["g1"]},{"first":3,"start":0,"groups":["g1"]}]})",  // more ranges than partitions
      R"({"group_ranges":[{"first":0,"start":0,"groups":["g1"]})",                         // truncated
  };
  for (const char* text : bad) EXPECT_FALSE(decode_placement(text, 3).ok()) << text;
  std::string many = R"({"group_ranges":[{"first":0,"start":0,"groups":[)";
  for (size_t i = 0; i <= kMaxPlacementGroups; ++i) many += (i ? ",\"g\"" : "\"g\"");
  many += "]}]}";
  EXPECT_FALSE(decode_placement(many, 1).ok());
  // The coordinator shards are placed on brokers only.
  EXPECT_FALSE(decode_coordinators(R"({"shards":2,"placement":{"group_ranges":[{"first":0,"start":0,"groups":["g1"]}]}})").ok());
}

TEST(PlacementTest, CoordinatorsRecordRoundTripsAndIsChecked) {
  CoordinatorsRecord rec;
  rec.shards = 50;
  rec.placement.add_round_robin(0, {1, 2, 3}, 0);
  auto back = decode_coordinators(encode_coordinators(rec));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shards, 50);
  EXPECT_EQ(back->placement, rec.placement);
  EXPECT_FALSE(decode_coordinators(R"({"shards":0,"placement":{"ranges":[{"first":0,"start":0,"brokers":[1]}]}})").ok());
  EXPECT_FALSE(decode_coordinators(R"({"shards":5000,"placement":{"ranges":[{"first":0,"start":0,"brokers":[1]}]}})").ok());
  EXPECT_FALSE(decode_coordinators(R"({"shards":50})").ok());
  EXPECT_FALSE(decode_coordinators(R"({"shards":2,"placement":{"ranges":[{"first":5,"start":0,"brokers":[1]}]}})").ok());
}

TEST(PlacementTest, CoordinatorsOnGroupsRoundTripAndHostileRecordsAreRefused) {
  CoordinatorsRecord rec;
  rec.shards = 50;
  rec.groups = {"g1", "g2"};
  auto back = decode_coordinators(encode_coordinators(rec));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(back->on_groups());
  EXPECT_EQ(back->groups, rec.groups);
  EXPECT_EQ(back->group_of(0), "g1");
  EXPECT_EQ(back->group_of(49), "g2");
  const char* bad[] = {
      R"({"shards":50,"groups":[]})",                                   // no group
      R"({"shards":50,"groups":"g1"})",                                 // not a list
      R"({"shards":50,"groups":["G1"]})",                               // not a group name
      R"({"shards":50,"groups":[""]})",                                 // empty name
      R"({"shards":50,"groups":["g1",7]})",                             // not a string
      R"({"shards":50,"groups":["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]})", // 33 characters
      R"({"shards":1,"groups":["g1","g2"]})",                           // more groups than shards
      R"({"shards":50,"groups":["g1"],"placement":{"ranges":[{"first":0,"start":0,"brokers":[1]}]}})",  // both
      R"({"shards":50,"groups":["g1"])",                                // truncated
      R"({"shards":-1,"groups":["g1"]})",                               // shards
  };
  for (const char* text : bad) EXPECT_FALSE(decode_coordinators(text).ok()) << text;
  std::string many = R"({"shards":1000,"groups":[)";
  for (size_t i = 0; i <= kMaxPlacementGroups; ++i) many += (i ? ",\"g\"" : "\"g\"");
  many += "]}";
  EXPECT_FALSE(decode_coordinators(many).ok());
}

// Kafka's partitionFor: Utils.abs(key.hashCode()) % 50. The hashes are Java's String.hashCode
// (s[0]*31^(n-1) + ... + s[n-1], 32-bit), worked out by hand for these ASCII keys.
TEST(PlacementTest, CoordinatorShardIsKafkasPartitionForAGroup) {
  EXPECT_EQ(coordinator_shard("g", 50), 103 % 50);
  EXPECT_EQ(coordinator_shard("my-group", 50), 1906497762 % 50);  // hashCode -1906497762
  EXPECT_EQ(coordinator_shard("test-group", 50), 627841412 % 50);
  // "polygenelubricants".hashCode() is Integer.MIN_VALUE, which Kafka's Utils.abs maps to 0.
  EXPECT_EQ(coordinator_shard("polygenelubricants", 50), 0);
  EXPECT_EQ(coordinator_shard("", 50), 0);
}

}  // namespace
}  // namespace rokka::cluster
