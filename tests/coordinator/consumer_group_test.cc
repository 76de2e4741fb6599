// ConsumerGroup (KIP-848) on its own: epochs, revocation before assignment, fencing,
// joins and leaves, and a random run of honest clients in which no partition is ever
// owned by two consumers at once and every group settles with all partitions owned.
#include "coordinator/consumer_group.h"
#include "tests/coordinator/partition_count.h"

#include <gtest/gtest.h>

#include <random>

namespace rokka::coordinator {
namespace {

using test::count;

using State = ConsumerMember::State;

// A consumer as librdkafka is one: it owns what it was last told, says so in each
// heartbeat, and joins with an empty TopicPartitions.
struct Client {
  std::string id;
  int32_t epoch = 0;
  std::vector<std::string> topics;
  TopicPartitionsMap owned;
  bool joined = false;
  std::optional<std::string> rack;

  ConsumerHeartbeat next() const {
    ConsumerHeartbeat hb;
    hb.member_id = id;
    hb.member_epoch = epoch;
    hb.rack_id = rack;
    if (!joined) {
      hb.subscribed_topics = topics;
      hb.rebalance_timeout_ms = 30000;
    }
    hb.owned = owned;
    return hb;
  }
  ConsumerHeartbeatResult beat(ConsumerGroup& g, const TopicPartitionCounts& counts) {
    ConsumerHeartbeatResult r = g.heartbeat(next(), counts, [] { return std::string("generated"); });
    if (r.error == GroupError::kNone) {
      id = r.member_id;
      epoch = r.member_epoch;
      joined = true;
      if (r.assignment) owned = *r.assignment;
    }
    return r;
  }
};

AssignorFunction uniform() { return &assign_uniform; }

TEST(ConsumerGroupTest, ThreeMembersSplitTwelvePartitionsWithNoOverlapAndNoGap) {
  const TopicPartitionCounts counts{{"t", 12}};
  ConsumerGroup g("g", uniform(), 100);
  std::vector<Client> clients{{"a", 0, {"t"}}, {"b", 0, {"t"}}, {"c", 0, {"t"}}};
  for (Client& c : clients) ASSERT_EQ(c.beat(g, counts).error, GroupError::kNone);
  for (int round = 0; round < 4; ++round)
    for (Client& c : clients) ASSERT_EQ(c.beat(g, counts).error, GroupError::kNone);
  EXPECT_EQ(g.state(), ConsumerGroup::State::kStable);
  std::set<int32_t> seen;
  for (const Client& c : clients) {
    EXPECT_EQ(count(c.owned), 4u) << c.id;
    EXPECT_EQ(c.epoch, g.group_epoch());
    for (int32_t p : c.owned.at("t")) EXPECT_TRUE(seen.insert(p).second) << p;
  }
  EXPECT_EQ(seen.size(), 12u);
}

TEST(ConsumerGroupTest, MembersGetThePartitionsOnTheirRackWhenTheBrokerKnowsWhereTheyAre) {
  // ConsumerGroupHeartbeat's RackId and the brokers' broker.rack reach the assignor: each
  // member reads from its own rack (both assignors), and with no partition racks the split
  // is the rack-blind one.
  const TopicPartitionCounts counts{{"t", 4}};
  for (const AssignorFunction assignor : {&assign_uniform, &assign_range}) {
    for (const bool known : {true, false}) {
      ConsumerGroup g("g", assignor, 100);
      if (known) {
        g.set_partition_racks([](const std::string& topic) {
          return topic == "t" ? std::vector<std::vector<std::string>>{{"east"}, {"west"}, {"east"}, {"west"}}
                              : std::vector<std::vector<std::string>>{};
        });
      }
      Client a{"a", 0, {"t"}}, b{"b", 0, {"t"}};
      a.rack = "west";
      b.rack = "east";
      for (int round = 0; round < 5; ++round)
        for (Client* c : {&a, &b}) ASSERT_EQ(c->beat(g, counts).error, GroupError::kNone);
      EXPECT_EQ(g.state(), ConsumerGroup::State::kStable);
      EXPECT_EQ(g.members().at("a").rack_id, "west");
      if (known) {
        EXPECT_EQ(a.owned, (TopicPartitionsMap{{"t", {1, 3}}})) << "west's partitions";
        EXPECT_EQ(b.owned, (TopicPartitionsMap{{"t", {0, 2}}})) << "east's partitions";
      } else {
        EXPECT_EQ(count(a.owned) + count(b.owned), 4u);
        EXPECT_NE(a.owned, (TopicPartitionsMap{{"t", {1, 3}}})) << "the rack-blind split differs here";
      }
    }
  }
}

TEST(ConsumerGroupTest, APartitionMovesOnlyAfterItsOwnerRevokedIt) {
  const TopicPartitionCounts counts{{"t", 4}};
  ConsumerGroup g("g", uniform(), 100);
  Client a{"a", 0, {"t"}}, b{"b", 0, {"t"}};
  ASSERT_EQ(a.beat(g, counts).error, GroupError::kNone);
  EXPECT_EQ(a.epoch, 1);
  EXPECT_EQ(count(a.owned), 4u);

  // b joins at epoch 2; a still owns everything, so b gets the epoch and nothing yet.
  auto r = b.beat(g, counts);
  ASSERT_EQ(r.error, GroupError::kNone);
  EXPECT_EQ(b.epoch, 2);
  EXPECT_EQ(count(b.owned), 0u);
  EXPECT_EQ(g.members().at("b").state, State::kUnreleasedPartitions);
  // a is told to give up two: its assignment shrinks, its epoch stays.
  const ConsumerHeartbeat still_owning_all = a.next();
  r = a.beat(g, counts);
  EXPECT_EQ(a.epoch, 1);
  ASSERT_TRUE(r.assignment);
  EXPECT_EQ(count(*r.assignment), 2u);
  EXPECT_EQ(g.members().at("a").state, State::kUnrevokedPartitions);
  // Until a says it let them go, b gets nothing (a heartbeat still listing all four).
  r = g.heartbeat(still_owning_all, counts, [] { return std::string(); });
  EXPECT_EQ(r.member_epoch, 1);
  b.beat(g, counts);
  EXPECT_EQ(count(b.owned), 0u);
  // a reports the two it kept: it moves to epoch 2; then b takes the two released.
  a.beat(g, counts);
  EXPECT_EQ(a.epoch, 2);
  b.beat(g, counts);
  EXPECT_EQ(count(b.owned), 2u);
  EXPECT_EQ(g.state(), ConsumerGroup::State::kStable);
}

TEST(ConsumerGroupTest, ALeaversPartitionsGoToTheOthers) {
  const TopicPartitionCounts counts{{"t", 6}};
  ConsumerGroup g("g", uniform(), 100);
  std::vector<Client> clients{{"a", 0, {"t"}}, {"b", 0, {"t"}}, {"c", 0, {"t"}}};
  for (int round = 0; round < 4; ++round)
    for (Client& c : clients) c.beat(g, counts);
  const TopicPartitionsMap a_had = clients[0].owned, b_had = clients[1].owned;
  const int32_t epoch = g.group_epoch();
  ConsumerHeartbeat leave = clients[2].next();
  leave.member_epoch = ConsumerHeartbeat::kLeaveEpoch;
  auto r = g.heartbeat(leave, counts, [] { return std::string(); });
  EXPECT_EQ(r.member_epoch, -1);
  EXPECT_EQ(g.group_epoch(), epoch + 1);
  EXPECT_FALSE(g.members().contains("c"));
  clients.pop_back();
  for (Client& c : clients) c.beat(g, counts);
  EXPECT_EQ(count(clients[0].owned), 3u);
  EXPECT_EQ(count(clients[1].owned), 3u);
  // Sticky: each kept what it had.
  for (int32_t p : a_had.at("t")) EXPECT_TRUE(std::binary_search(clients[0].owned.at("t").begin(), clients[0].owned.at("t").end(), p));
  for (int32_t p : b_had.at("t")) EXPECT_TRUE(std::binary_search(clients[1].owned.at("t").begin(), clients[1].owned.at("t").end(), p));
}

TEST(ConsumerGroupTest, EpochsAreCheckedAndALostResponseIsForgiven) {
  const TopicPartitionCounts counts{{"t", 2}};
  ConsumerGroup g("g", uniform(), 100);
  Client a{"a", 0, {"t"}};
  a.beat(g, counts);
  ConsumerHeartbeat hb = a.next();
  hb.member_id = "nobody";
  EXPECT_EQ(g.heartbeat(hb, counts, {}).error, GroupError::kUnknownMemberId);
  hb = a.next();
  hb.member_epoch = 7;
  EXPECT_EQ(g.heartbeat(hb, counts, {}).error, GroupError::kFencedMemberEpoch);

  // b joins; a moves to epoch 2 after revoking; its response is lost, so it still
  // says epoch 1 with what it kept: accepted, and told its assignment again.
  Client b{"b", 0, {"t"}};
  b.beat(g, counts);
  a.beat(g, counts);  // revoke one: epoch 1
  ConsumerHeartbeat done_revoking = a.next();
  auto moved = g.heartbeat(done_revoking, counts, {});
  ASSERT_EQ(moved.member_epoch, 2);
  auto again = g.heartbeat(done_revoking, counts, {});  // epoch 1 again: the response was lost
  EXPECT_EQ(again.error, GroupError::kNone);
  EXPECT_EQ(again.member_epoch, 2);
  ASSERT_TRUE(again.assignment);
  EXPECT_EQ(count(*again.assignment), 1u);
  // The previous epoch claiming a partition it was not given is fenced.
  ConsumerHeartbeat greedy = done_revoking;
  greedy.owned = TopicPartitionsMap{{"t", {0, 1}}};
  EXPECT_EQ(g.heartbeat(greedy, counts, {}).error, GroupError::kFencedMemberEpoch);
}

TEST(ConsumerGroupTest, JoinsAreValidatedAsKafkaDoes) {
  ConsumerGroup g("g", uniform(), 1);
  const TopicPartitionCounts counts{{"t", 1}};
  ConsumerHeartbeat hb;
  hb.member_id = "a";
  hb.rebalance_timeout_ms = 1000;
  hb.owned = TopicPartitionsMap{};
  auto r = g.heartbeat(hb, counts, {});
  EXPECT_EQ(r.error, GroupError::kInvalidRequest);
  EXPECT_EQ(r.message, "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
  hb.subscribed_topics = std::vector<std::string>{"t"};
  hb.owned = TopicPartitionsMap{{"t", {0}}};
  EXPECT_EQ(g.heartbeat(hb, counts, {}).message, "TopicPartitions must be empty when (re-)joining.");
  hb.owned = TopicPartitionsMap{};
  hb.server_assignor = "sticky";
  EXPECT_EQ(g.heartbeat(hb, counts, {}).error, GroupError::kUnsupportedAssignor);
  hb.server_assignor = "range";
  EXPECT_EQ(g.heartbeat(hb, counts, {}).error, GroupError::kNone);
  hb.member_id = "b";
  EXPECT_EQ(g.heartbeat(hb, counts, {}).error, GroupError::kGroupMaxSizeReached);
  // A v0 join has no member id: the group makes one.
  ConsumerGroup v0("v0", uniform(), 10);
  hb.member_id.clear();
  r = v0.heartbeat(hb, counts, [] { return std::string("made-here"); });
  EXPECT_EQ(r.member_id, "made-here");
  EXPECT_EQ(r.member_epoch, 1);
}

TEST(ConsumerGroupTest, NewPartitionsOfASubscribedTopicMoveTheEpochAndAreAssigned) {
  ConsumerGroup g("g", uniform(), 100);
  Client a{"a", 0, {"t", "later"}};
  a.beat(g, {{"t", 2}});
  EXPECT_EQ(count(a.owned), 2u);
  const int32_t epoch = g.group_epoch();
  a.beat(g, {{"t", 3}, {"later", 2}});
  EXPECT_EQ(g.group_epoch(), epoch + 1);
  EXPECT_EQ(count(a.owned), 5u);
  EXPECT_EQ(a.epoch, g.group_epoch());
}

// Honest clients joining, leaving and heartbeating in random order, with partition
// counts growing: no two of them ever own one partition, and once membership stops
// changing a few rounds settle the group with every partition owned.
TEST(ConsumerGroupTest, RandomRunsNeverShareAPartitionAndSettle) {
  std::mt19937 rng(20261203);
  for (int run = 0; run < 100; ++run) {
    TopicPartitionCounts counts{{"a", 1 + static_cast<int32_t>(rng() % 8)}, {"b", 1 + static_cast<int32_t>(rng() % 8)}};
    ConsumerGroup g("g", rng() % 2 ? &assign_uniform : &assign_range, 1000);
    std::vector<Client> clients;
    int next_id = 0;
    const auto check_exclusive = [&](int step) {
      std::map<std::pair<std::string, int32_t>, std::string> owner;
      for (const Client& c : clients)
        for (const auto& [t, ps] : c.owned)
          for (int32_t p : ps) {
            auto [it, fresh] = owner.emplace(std::pair{t, p}, c.id);
            ASSERT_TRUE(fresh) << t << "-" << p << " owned by " << it->second << " and " << c.id << " (run " << run
                               << ", step " << step << ")";
          }
    };
    for (int step = 0; step < 60; ++step) {
      const unsigned what = rng() % 10;
      if (what == 0 || clients.empty()) {
        std::vector<std::string> topics;
        if (rng() % 3) topics.push_back("a");
        if (rng() % 3 || topics.empty()) topics.push_back("b");
        clients.push_back({"m" + std::to_string(next_id++), 0, topics});
        ASSERT_EQ(clients.back().beat(g, counts).error, GroupError::kNone);  // joins now
        check_exclusive(step);
        continue;
      } else if (what == 1 && clients.size() > 1) {
        const size_t i = rng() % clients.size();
        ConsumerHeartbeat leave = clients[i].next();
        leave.member_epoch = ConsumerHeartbeat::kLeaveEpoch;
        ASSERT_EQ(g.heartbeat(leave, counts, {}).error, GroupError::kNone);
        clients.erase(clients.begin() + static_cast<long>(i));
        continue;
      } else if (what == 2) {
        counts[rng() % 2 ? "a" : "b"] += 1;
      }
      Client& c = clients[rng() % clients.size()];
      ASSERT_EQ(c.beat(g, counts).error, GroupError::kNone) << "run " << run << " step " << step;
      check_exclusive(step);
    }
    for (int round = 0; round < 5; ++round)
      for (Client& c : clients) {
        ASSERT_EQ(c.beat(g, counts).error, GroupError::kNone);
        check_exclusive(1000 + round);
      }
    EXPECT_EQ(g.state(), ConsumerGroup::State::kStable) << "run " << run;
    size_t wanted = 0, owned = 0;
    for (const std::string& t : g.subscribed_topics()) wanted += static_cast<size_t>(counts[t]);
    for (const Client& c : clients) owned += count(c.owned);
    EXPECT_EQ(owned, wanted) << "run " << run;
  }
}

}  // namespace
}  // namespace rokka::coordinator
