// truncation_point (cluster/replicated_log.h): RocketMQ's epoch rule as a table.
#include <gtest/gtest.h>

#include <vector>

#include "cluster/replicated_log.h"

namespace rokka::cluster {
namespace {

struct Case {
  const char* name;
  std::vector<EpochStart> leader;
  int64_t leader_end;
  std::vector<EpochStart> follower;
  int64_t follower_begin;
  int64_t follower_end;
  int64_t want;
};

TEST(ReplicationTruncation, Table) {
  const std::vector<Case> cases = {
      {"identical logs", {{1, 0}, {2, 100}}, 200, {{1, 0}, {2, 100}}, 0, 200, 200},
      {"follower behind in the leader's last epoch", {{1, 0}, {2, 100}}, 200, {{1, 0}, {2, 100}}, 0, 150, 150},
      {"follower behind in an older epoch", {{1, 0}, {2, 100}}, 200, {{1, 0}}, 0, 80, 80},
      {"follower ahead within the same epoch", {{1, 0}}, 100, {{1, 0}}, 0, 150, 100},
      {"follower ahead within its last epoch, leader moved on", {{1, 0}, {3, 100}}, 300, {{1, 0}}, 0, 150, 100},
      {"follower has an epoch the leader never had", {{1, 0}, {3, 200}}, 300, {{1, 0}, {2, 150}}, 0, 180, 150},
      {"follower's epoch 2 started elsewhere on the leader", {{1, 0}, {2, 120}}, 300, {{1, 0}, {2, 150}}, 0, 180, 120},
      {"leader's epoch ends before the follower's start of the next", {{1, 0}, {2, 50}}, 300, {{1, 0}, {3, 60}}, 0,
       90, 50},
      {"no epoch in common", {{4, 0}}, 100, {{2, 0}}, 0, 70, 0},
      {"no epoch in common, follower log starts later", {{4, 0}}, 100, {{2, 40}}, 40, 70, 40},
      {"follower has no epochs and no entries", {{1, 0}, {2, 100}}, 200, {}, 0, 0, 0},
      {"follower has no epochs but entries", {{1, 0}}, 200, {}, 0, 30, 0},
      {"leader has no epochs", {}, 0, {{1, 0}}, 0, 30, 0},
      {"both empty", {}, 0, {}, 0, 0, 0},
      {"empty follower log after retention", {{1, 0}, {2, 100}}, 500, {}, 400, 400, 400},
      {"agreed end below the follower's begin", {{1, 0}, {2, 10}}, 500, {{1, 0}}, 50, 90, 50},
      {"epoch started at the leader's end (no entries yet)", {{1, 0}, {2, 100}}, 100, {{1, 0}}, 0, 100, 100},
      {"several follower epochs, only the oldest agreed", {{1, 0}, {5, 60}}, 300, {{1, 0}, {2, 70}, {3, 80}}, 0, 90,
       60},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(truncation_point(c.leader, c.leader_end, c.follower, c.follower_begin, c.follower_end), c.want) << c.name;
  }
}

}  // namespace
}  // namespace rokka::cluster
