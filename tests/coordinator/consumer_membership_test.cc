// The consumer group protocol (KIP-848) in the GroupCoordinator, on the manual clock:
// heartbeats answered once durable, session and revocation timeouts, a restart that
// resumes at the same epochs, OffsetCommit's and OffsetFetch's member-epoch checks,
// static members, regex subscriptions, and one group id naming one kind of group.
#include <gtest/gtest.h>

#include <set>

#include "tests/coordinator/coordinator_harness.h"
#include "tests/coordinator/partition_count.h"

namespace rokka::coordinator::test {
namespace {

// A consumer as librdkafka 2.14 is one (v1: it makes its own member id).
struct Consumer {
  std::string id;
  std::vector<std::string> topics;
  std::optional<std::string> regex;
  std::optional<std::string> instance_id;
  int32_t epoch = 0;
  TopicPartitionsMap owned;

  ConsumerGroupHeartbeatArgs next(const std::string& group) const {
    ConsumerGroupHeartbeatArgs a;
    a.group_id = group;
    a.api_version = 1;
    ConsumerHeartbeat& hb = a.heartbeat;
    hb.member_id = id;
    hb.member_epoch = epoch;
    hb.instance_id = instance_id;
    if (epoch == 0) {
      hb.rebalance_timeout_ms = 30000;
      if (regex) hb.subscribed_regex = regex;
      else hb.subscribed_topics = topics;
    }
    hb.owned = owned;
    return a;
  }
};

class ConsumerMembershipTest : public ::testing::Test {
 protected:
  CoordinatorOptions options() {
    CoordinatorOptions o = test_options();
    o.consumer_session_timeout_ms = 45000;
    o.consumer_heartbeat_interval_ms = 5000;
    return o;
  }

  // Sends c's next heartbeat and lets its write complete; applies the answer.
  ConsumerGroupHeartbeatResult beat(Consumer& c, const std::string& group = "g") {
    std::optional<ConsumerGroupHeartbeatResult> answer;
    h.coord().consumer_group_heartbeat(c.next(group), [&](ConsumerGroupHeartbeatResult r) { answer = std::move(r); });
    h.settle();
    EXPECT_TRUE(answer.has_value());
    if (!answer) return {};
    if (answer->error == GroupError::kNone) {
      c.epoch = answer->member_epoch;
      if (answer->assignment) c.owned = *answer->assignment;
    }
    return *answer;
  }
  void rounds(std::vector<Consumer*> cs, int n, const std::string& group = "g") {
    for (int i = 0; i < n; ++i)
      for (Consumer* c : cs) beat(*c, group);
  }
  static void expect_split(const std::vector<Consumer*>& cs, const std::string& topic, size_t partitions) {
    std::set<int32_t> seen;
    for (const Consumer* c : cs) {
      auto it = c->owned.find(topic);
      if (it == c->owned.end()) continue;
      for (int32_t p : it->second) EXPECT_TRUE(seen.insert(p).second) << "partition " << p << " owned twice";
    }
    EXPECT_EQ(seen.size(), partitions);
  }

  CoordinatorHarness h{options()};
};

TEST_F(ConsumerMembershipTest, ThreeMembersSplitTwelvePartitionsAndEachAnswerWaitsForItsWrite) {
  h.topics["t"] = 12;
  Consumer a{"a", {"t"}}, b{"b", {"t"}}, c{"c", {"t"}};
  // The first heartbeat makes the group: its record is written before the answer.
  std::optional<ConsumerGroupHeartbeatResult> first;
  h.coord().consumer_group_heartbeat(a.next("g"), [&](ConsumerGroupHeartbeatResult r) { first = std::move(r); });
  EXPECT_FALSE(first.has_value());
  h.settle();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->error, GroupError::kNone);
  EXPECT_EQ(first->member_epoch, 1);
  EXPECT_EQ(first->heartbeat_interval_ms, 5000);
  rounds({&a, &b, &c}, 4);
  for (Consumer* x : {&a, &b, &c}) EXPECT_EQ(count(x->owned), 4u) << x->id;
  expect_split({&a, &b, &c}, "t", 12);
  EXPECT_EQ(h.coord().find_consumer_group("g")->state(), ConsumerGroup::State::kStable);
  // A heartbeat that changes nothing writes nothing and is answered at once.
  std::optional<ConsumerGroupHeartbeatResult> quiet;
  h.coord().consumer_group_heartbeat(a.next("g"), [&](ConsumerGroupHeartbeatResult r) { quiet = std::move(r); });
  EXPECT_TRUE(quiet.has_value());
  EXPECT_FALSE(quiet->assignment.has_value());
}

TEST_F(ConsumerMembershipTest, ASteadyHeartbeatDoesNotEncodeTheGroupsRecordAgain) {
  // The group's record is encoded only when something it keeps changed: a steady
  // heartbeat (the common case, every member every 5 s) costs no O(group) encode
  // (bench/consumer_heartbeat_bench.cc). The harness also checks, each time the encode is
  // skipped, that the record would have been the same (consumer_verify_unchanged_records).
  h.topics["t"] = 6;
  Consumer a{"a", {"t"}}, b{"b", {"t"}}, c{"c", {"t"}};
  rounds({&a, &b, &c}, 4);
  ASSERT_EQ(h.coord().find_consumer_group("g")->state(), ConsumerGroup::State::kStable);
  const uint64_t encoded = h.coord().consumer_records_encoded();
  const size_t writes = h.meta.writes();
  for (int i = 0; i < 10; ++i) {
    h.advance(1000);
    rounds({&a, &b, &c}, 1);
  }
  EXPECT_EQ(h.coord().consumer_records_encoded(), encoded);
  EXPECT_EQ(h.meta.writes(), writes);
  // A change is encoded and written once: a new rack id...
  ConsumerGroupHeartbeatArgs racked = a.next("g");
  racked.heartbeat.rack_id = "r1";
  std::optional<ConsumerGroupHeartbeatResult> answer;
  h.coord().consumer_group_heartbeat(std::move(racked), [&](ConsumerGroupHeartbeatResult r) { answer = std::move(r); });
  h.settle();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(h.coord().consumer_records_encoded(), encoded + 1);
  EXPECT_EQ(h.meta.writes(), writes + 1);
  EXPECT_EQ(h.coord().find_consumer_group("g")->members().at("a").rack_id, "r1");
  // ... and a member leaving; the others' steady heartbeats after it encode nothing more
  // than what their reconciliation changes.
  c.epoch = ConsumerHeartbeat::kLeaveEpoch;
  beat(c);
  rounds({&a, &b}, 4);
  const uint64_t settled = h.coord().consumer_records_encoded();
  EXPECT_GT(settled, encoded + 1);
  rounds({&a, &b}, 3);
  EXPECT_EQ(h.coord().consumer_records_encoded(), settled);
  // What was written is what a restart reads back.
  h.restart();
  const ConsumerGroup* g = h.coord().find_consumer_group("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->members().size(), 2u);
  EXPECT_EQ(g->members().at("a").rack_id, "r1");
  EXPECT_EQ(g->members().at("a").assigned, a.owned);
  EXPECT_EQ(g->members().at("b").assigned, b.owned);
}

TEST_F(ConsumerMembershipTest, AMemberThatStopsHeartbeatingIsRemovedAfterItsSessionAndOnlyItsPartitionsMove) {
  h.topics["t"] = 6;
  Consumer a{"a", {"t"}}, b{"b", {"t"}}, c{"c", {"t"}};
  rounds({&a, &b, &c}, 4);
  const TopicPartitionsMap a_had = a.owned, b_had = b.owned;
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();
  // a and b keep heartbeating every 5 s; c goes silent.
  for (int i = 0; i < 8; ++i) {
    h.advance(5000);
    beat(a);
    beat(b);
  }
  EXPECT_TRUE(h.coord().find_consumer_group("g")->members().contains("c"));  // 40 of its 45 s
  h.advance(5000);
  h.settle();
  EXPECT_FALSE(h.coord().find_consumer_group("g")->members().contains("c"));
  EXPECT_EQ(h.coord().find_consumer_group("g")->group_epoch(), epoch + 1);
  rounds({&a, &b}, 3);
  EXPECT_EQ(count(a.owned), 3u);
  EXPECT_EQ(count(b.owned), 3u);
  for (int32_t p : a_had.at("t")) EXPECT_TRUE(std::count(a.owned["t"].begin(), a.owned["t"].end(), p)) << p;
  for (int32_t p : b_had.at("t")) EXPECT_TRUE(std::count(b.owned["t"].begin(), b.owned["t"].end(), p)) << p;
  expect_split({&a, &b}, "t", 6);
}

// A group's own configs (GROUP resources) set its session timeout and heartbeat interval;
// other groups keep the broker's.
TEST_F(ConsumerMembershipTest, AGroupsOwnTimeoutsOverrideTheBrokers) {
  h.coord().set_group_timeouts([](const std::string& group) {
    return group == "long" ? ConsumerGroupTimeouts{60000, 8000} : ConsumerGroupTimeouts{45000, 5000};
  });
  h.topics["t"] = 2;
  Consumer a{"a", {"t"}}, b{"b", {"t"}};
  EXPECT_EQ(beat(a, "long").heartbeat_interval_ms, 8000);
  EXPECT_EQ(beat(b, "short").heartbeat_interval_ms, 5000);
  h.advance(50000);
  h.settle();
  EXPECT_TRUE(h.coord().find_consumer_group("long")->members().contains("a"));  // 50 of its 60 s
  EXPECT_FALSE(h.coord().find_consumer_group("short")->members().contains("b"));
  h.advance(10000);
  h.settle();
  EXPECT_FALSE(h.coord().find_consumer_group("long")->members().contains("a"));
}

TEST_F(ConsumerMembershipTest, AMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsRemoved) {
  h.topics["t"] = 4;
  Consumer a{"a", {"t"}}, b{"b", {"t"}};
  beat(a);
  ASSERT_EQ(count(a.owned), 4u);
  beat(b);  // b joins; a must give two up
  // a hears it must revoke but never says it did (it keeps reporting all four).
  const TopicPartitionsMap all = a.owned;
  beat(a);
  ASSERT_EQ(h.coord().find_consumer_group("g")->members().at("a").state, ConsumerMember::State::kUnrevokedPartitions);
  for (int i = 0; i < 6; ++i) {  // heartbeats keep its session alive, not its revocation
    h.advance(5000);
    a.owned = all;
    beat(a);
    beat(b);
  }
  h.advance(1000);
  h.settle();
  EXPECT_FALSE(h.coord().find_consumer_group("g")->members().contains("a"));
  rounds({&b}, 2);
  EXPECT_EQ(count(b.owned), 4u);
  EXPECT_EQ(beat(a).error, GroupError::kUnknownMemberId);
}

TEST_F(ConsumerMembershipTest, ARestartResumesEveryMemberAtItsEpochWithItsAssignment) {
  h.topics["t"] = 6;
  Consumer a{"a", {"t"}}, b{"b", {"t"}};
  rounds({&a, &b}, 4);
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();
  const TopicPartitionsMap a_had = a.owned;
  h.restart();
  const ConsumerGroup* g = h.coord().find_consumer_group("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->group_epoch(), epoch);
  EXPECT_EQ(g->members().size(), 2u);
  // No rebalance: same epoch, and a is told its (unchanged) assignment again.
  ConsumerGroupHeartbeatResult r = beat(a);
  EXPECT_EQ(r.error, GroupError::kNone);
  EXPECT_EQ(r.member_epoch, epoch);
  ASSERT_TRUE(r.assignment.has_value());
  EXPECT_EQ(*r.assignment, a_had);
  EXPECT_EQ(h.coord().find_consumer_group("g")->group_epoch(), epoch);
  // A member that does not come back is removed one session after the restart.
  for (int i = 0; i < 10; ++i) {
    h.advance(5000);
    beat(a);
  }
  h.settle();
  EXPECT_FALSE(h.coord().find_consumer_group("g")->members().contains("b"));
}

TEST_F(ConsumerMembershipTest, OffsetCommitChecksTheMemberEpochAsKafkaDoes) {
  h.topics["t"] = 2;
  Consumer a{"a", {"t"}};
  rounds({&a}, 2);
  auto commit = [&](int32_t epoch, const std::string& member, int16_t version) {
    OffsetCommitArgs args;
    args.group_id = "g";
    args.generation_id = epoch;
    args.member_id = member;
    args.api_version = version;
    args.topics.push_back({"t", {PartitionCommit{0, 42, -1, std::nullopt}}});
    std::optional<OffsetCommitResult> r;
    h.coord().commit_offsets(args, [&](OffsetCommitResult x) { r = std::move(x); });
    h.settle();
    return r ? r->topics.at(0).partitions.at(0).error : GroupError::kCoordinatorNotAvailable;
  };
  EXPECT_EQ(commit(a.epoch - 1, "a", 9), GroupError::kStaleMemberEpoch);
  EXPECT_EQ(commit(a.epoch + 1, "a", 9), GroupError::kFencedMemberEpoch);
  EXPECT_EQ(commit(a.epoch, "nobody", 9), GroupError::kUnknownMemberId);
  EXPECT_EQ(commit(a.epoch, "a", 8), GroupError::kUnsupportedVersion);
  EXPECT_EQ(commit(-1, "", 9), GroupError::kUnknownMemberId);  // the group has members
  EXPECT_EQ(commit(a.epoch, "a", 9), GroupError::kNone);
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 42);

  OffsetFetchArgs fetch;
  fetch.group_id = "g";
  fetch.member_id = "a";
  fetch.member_epoch = a.epoch - 1;
  EXPECT_EQ(h.coord().fetch_offsets(fetch).error, GroupError::kStaleMemberEpoch);
  fetch.member_id = "nobody";
  EXPECT_EQ(h.coord().fetch_offsets(fetch).error, GroupError::kUnknownMemberId);
  fetch.member_id = "a";
  fetch.member_epoch = a.epoch;
  EXPECT_EQ(h.coord().fetch_offsets(fetch).error, GroupError::kNone);

  // Once the group is empty, an admin's commit (epoch -1, no member) is accepted.
  a.epoch = ConsumerHeartbeat::kLeaveEpoch;
  beat(a);
  EXPECT_EQ(commit(-1, "", 9), GroupError::kNone);
}

TEST_F(ConsumerMembershipTest, AStaticMemberThatLeftIsReplacedByItsInstanceWithoutARebalance) {
  h.topics["t"] = 4;
  Consumer a{"a1", {"t"}}, b{"b", {"t"}};
  a.instance_id = "instance-a";
  rounds({&a, &b}, 4);
  const TopicPartitionsMap a_had = a.owned;
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();
  // A second process with the same instance id while the first is still in: refused.
  Consumer intruder{"a2", {"t"}};
  intruder.instance_id = "instance-a";
  EXPECT_EQ(beat(intruder).error, GroupError::kUnreleasedInstanceId);
  // The first leaves for a restart (epoch -2): the group epoch stays, its partitions wait.
  a.epoch = ConsumerHeartbeat::kStaticLeaveEpoch;
  EXPECT_EQ(beat(a).member_epoch, ConsumerHeartbeat::kStaticLeaveEpoch);
  EXPECT_EQ(h.coord().find_consumer_group("g")->group_epoch(), epoch);
  rounds({&b}, 2);
  EXPECT_EQ(count(b.owned), 2u);
  // The new process takes its place and its partitions, at the same group epoch.
  ConsumerGroupHeartbeatResult r = beat(intruder);
  ASSERT_EQ(r.error, GroupError::kNone);
  EXPECT_EQ(intruder.owned, a_had);
  EXPECT_EQ(h.coord().find_consumer_group("g")->group_epoch(), epoch);
  EXPECT_FALSE(h.coord().find_consumer_group("g")->members().contains("a1"));
  // A heartbeat naming the instance from another member id is fenced.
  Consumer old = a;
  old.epoch = epoch;
  EXPECT_EQ(beat(old).error, GroupError::kFencedInstanceId);
}

TEST_F(ConsumerMembershipTest, ARegexSubscriptionPicksUpATopicCreatedLater) {
  h.topics["orders.eu"] = 2;
  h.topics["other"] = 3;
  Consumer a{"a", {}};
  a.regex = "orders.*";
  rounds({&a}, 2);
  EXPECT_EQ(a.owned, (TopicPartitionsMap{{"orders.eu", {0, 1}}}));
  h.topics["orders.us"] = 1;
  // Matched again on a heartbeat once the refresh interval passed.
  h.advance(10000);
  rounds({&a}, 2);
  EXPECT_EQ(a.owned, (TopicPartitionsMap{{"orders.eu", {0, 1}}, {"orders.us", {0}}}));
}

// As in Kafka, whose resolution is asynchronous: the heartbeat that brings a regex new to
// the group is answered with the member's named topics; the matches come on the next.
TEST_F(ConsumerMembershipTest, ANewRegexIsMatchedOnTheGroupsNextHeartbeat) {
  h.topics["orders.eu"] = 2;
  Consumer a{"a", {}};
  a.regex = "orders.*";
  ConsumerGroupHeartbeatResult joined = beat(a);
  ASSERT_EQ(joined.error, GroupError::kNone);
  EXPECT_TRUE(a.owned.empty()) << "matched on the heartbeat that brought the regex";
  rounds({&a}, 1);
  EXPECT_EQ(a.owned, (TopicPartitionsMap{{"orders.eu", {0, 1}}}));
}

TEST_F(ConsumerMembershipTest, OneGroupIdNamesOneKindOfGroup) {
  h.topics["t"] = 2;
  // A classic group with members of another protocol type: not a consumer group (one of
  // consumers would be upgraded: group_migration_test.cc).
  JoinGroupArgs connect = h.join_args("classic");
  connect.protocol_type = "connect";
  auto worker = h.join(connect);
  h.advance(7000);
  ASSERT_TRUE(worker->has_value());
  Consumer a{"a", {"t"}};
  ConsumerGroupHeartbeatResult r = beat(a, "classic");
  EXPECT_EQ(r.error, GroupError::kGroupIdNotFound);
  EXPECT_EQ(r.message, "Group classic is not a consumer group.");
  EXPECT_NE(h.coord().find_group("classic"), nullptr);
  // A consumer group with members hosts a classic member: no leader, the broker assigns.
  Consumer b{"b", {"t"}};
  rounds({&b}, 1, "modern");
  auto joined = h.join(h.join_args("modern"));
  h.settle();
  ASSERT_TRUE(joined->has_value());
  EXPECT_EQ((*joined)->error, GroupError::kNone);
  EXPECT_EQ((*joined)->leader, "");
  EXPECT_TRUE(h.coord().find_consumer_group("modern")->members().at((*joined)->member_id).uses_classic());
  EXPECT_EQ(h.leave("modern", {{(*joined)->member_id, std::nullopt, std::nullopt}}).members.at(0).error,
            GroupError::kNone);
  // A group known only by its offsets becomes a consumer group and keeps them.
  auto committed = h.commit("simple", -1, "", "t", 1, 7);
  h.settle();
  ASSERT_TRUE(committed->has_value());
  Consumer c{"c", {"t"}};
  EXPECT_EQ(beat(c, "simple").error, GroupError::kNone);
  EXPECT_EQ(h.fetch("simple", "t", 1).offset, 7);
  EXPECT_EQ(h.coord().find_group("simple"), nullptr);

  ListGroupsArgs consumers;
  consumers.types_filter = {"Consumer"};
  ListGroupsResult listed = h.coord().list_groups(consumers);
  std::set<std::string> ids;
  for (const ListedGroup& g : listed.groups) {
    ids.insert(g.group_id);
    EXPECT_EQ(g.group_type, "consumer");
  }
  EXPECT_EQ(ids, (std::set<std::string>{"modern", "simple"}));
  EXPECT_EQ(h.coord().describe_group("modern").group_type, "consumer");

  // DeleteGroups: a consumer group with members is not deleted; an empty one is.
  std::optional<DeleteGroupsResult> deleted;
  h.coord().delete_groups({"modern"}, [&](DeleteGroupsResult d) { deleted = std::move(d); });
  h.settle();
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->groups.at(0).error, GroupError::kNonEmptyGroup);
  b.epoch = ConsumerHeartbeat::kLeaveEpoch;
  beat(b, "modern");
  deleted.reset();
  h.coord().delete_groups({"modern"}, [&](DeleteGroupsResult d) { deleted = std::move(d); });
  h.settle();
  EXPECT_EQ(deleted->groups.at(0).error, GroupError::kNone);
  EXPECT_EQ(h.coord().find_consumer_group("modern"), nullptr);
  h.restart();
  EXPECT_EQ(h.coord().find_consumer_group("modern"), nullptr);
  EXPECT_NE(h.coord().find_consumer_group("simple"), nullptr);
}

TEST_F(ConsumerMembershipTest, HeartbeatsAreValidatedWithKafkasMessages) {
  auto send = [&](ConsumerGroupHeartbeatArgs a) {
    std::optional<ConsumerGroupHeartbeatResult> r;
    h.coord().consumer_group_heartbeat(std::move(a), [&](ConsumerGroupHeartbeatResult x) { r = std::move(x); });
    h.settle();
    return *r;
  };
  Consumer a{"", {"t"}};
  ConsumerGroupHeartbeatResult r = send(a.next("g"));  // v1 needs the client's member id
  EXPECT_EQ(r.error, GroupError::kInvalidRequest);
  EXPECT_EQ(r.message, "MemberId can't be empty.");
  a.id = "a";
  ConsumerGroupHeartbeatArgs args = a.next("");
  EXPECT_EQ(send(args).message, "GroupId can't be empty.");
  args = a.next("g");
  args.heartbeat.member_epoch = -3;
  EXPECT_EQ(send(args).message, "MemberEpoch is invalid.");
  args = a.next("g");
  args.heartbeat.server_assignor = "sticky";
  r = send(args);
  EXPECT_EQ(r.error, GroupError::kUnsupportedAssignor);
  EXPECT_EQ(r.message, "ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
  args = a.next("g");
  args.heartbeat.member_epoch = ConsumerHeartbeat::kStaticLeaveEpoch;
  EXPECT_EQ(send(args).message, "InstanceId can't be null.");
  // A member of a group that does not exist rejoins.
  args = a.next("g");
  args.heartbeat.member_epoch = 5;
  EXPECT_EQ(send(args).error, GroupError::kUnknownMemberId);
  EXPECT_EQ(h.coord().find_consumer_group("g"), nullptr);
}

}  // namespace
}  // namespace rokka::coordinator::test
