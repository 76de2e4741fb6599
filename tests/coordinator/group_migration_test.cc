// KIP-848's online migration on the manual clock: a classic group of consumers becomes a
// consumer group when a consumer-protocol member joins, its classic members go on through
// JoinGroup/SyncGroup/Heartbeat with no partition ever owned twice, and the group goes
// back to the classic protocol when the last consumer-protocol member leaves. Also the
// policy switch, the classic members' timeouts, a restart, and hostile subscriptions.
#include <gtest/gtest.h>

#include <set>

#include "coordinator/consumer_protocol.h"
#include "tests/coordinator/coordinator_harness.h"
#include "tests/coordinator/partition_count.h"

namespace rokka::coordinator::test {
namespace {

// A consumer-protocol subscription, version 1 (topics, null user data, owned partitions).
std::string subscription_v1(const std::vector<std::string>& topics, const TopicPartitionsMap& owned) {
  std::string out;
  auto be = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  auto str = [&](const std::string& s) {
    be(s.size(), 2);
    out += s;
  };
  be(1, 2);
  be(topics.size(), 4);
  for (const auto& t : topics) str(t);
  be(0xffffffff, 4);
  be(owned.size(), 4);
  for (const auto& [t, ps] : owned) {
    str(t);
    be(ps.size(), 4);
    for (int32_t p : ps) be(static_cast<uint32_t>(p), 4);
  }
  return out;
}

// A classic consumer (cooperative: it reports what it owns when it rejoins).
struct ClassicConsumer {
  std::string id;
  int32_t generation = -1;
  TopicPartitionsMap owned;
};

// A consumer-protocol consumer.
struct NewConsumer {
  std::string id;
  int32_t epoch = 0;
  TopicPartitionsMap owned;
  std::optional<std::string> instance;  // group.instance.id: a static member
};

class GroupMigrationTest : public ::testing::Test {
 protected:
  static CoordinatorOptions options() {
    CoordinatorOptions o = test_options();
    o.consumer_session_timeout_ms = 45000;
    o.consumer_heartbeat_interval_ms = 5000;
    return o;
  }

  // A Stable classic group "g" of `ids` over topic t (4 partitions), the leader giving
  // each member a consumer-protocol assignment from `plan`.
  // With `instance_ids`, member i is static with instance id instance_ids[i].
  std::vector<ClassicConsumer> classic_group(const std::vector<std::map<std::string, std::vector<int32_t>>>& plan,
                                             const std::vector<std::string>& instance_ids = {}) {
    h.topics["t"] = 4;
    std::vector<Answer<JoinGroupResult>> joins;
    for (size_t i = 0; i < plan.size(); ++i) {
      JoinGroupArgs a = h.join_args("g", "", {{"cooperative-sticky", subscription_v1({"t"}, {})}});
      if (i < instance_ids.size()) a.group_instance_id = instance_ids[i];
      joins.push_back(h.join(std::move(a)));
    }
    h.advance(7000);  // the initial rebalance delay, extended once
    std::vector<ClassicConsumer> out;
    std::string leader;
    for (auto& j : joins) {
      EXPECT_TRUE(j->has_value());
      if (!j->has_value()) return out;
      out.push_back({(*j)->member_id, (*j)->generation_id, {}});
      leader = (*j)->leader;
    }
    std::vector<SyncGroupAssignment> assignments;
    for (size_t i = 0; i < out.size(); ++i) {
      assignments.push_back({out[i].id, encode_assignment(plan[i], 1)});
      out[i].owned = plan[i];
    }
    for (auto& c : out) h.sync("g", c.generation, c.id, c.id == leader ? assignments : std::vector<SyncGroupAssignment>{});
    h.settle();
    EXPECT_TRUE(h.coord().find_group("g")->is(GroupState::kStable));
    return out;
  }

  ConsumerGroupHeartbeatResult beat(NewConsumer& c, bool join = false) {
    ConsumerGroupHeartbeatArgs a;
    a.group_id = "g";
    a.api_version = 1;
    a.heartbeat.member_id = c.id;
    a.heartbeat.member_epoch = c.epoch;
    a.heartbeat.instance_id = c.instance;
    if (join) {
      a.heartbeat.rebalance_timeout_ms = 30000;
      a.heartbeat.subscribed_topics = std::vector<std::string>{"t"};
    }
    a.heartbeat.owned = c.owned;
    std::optional<ConsumerGroupHeartbeatResult> answer;
    h.coord().consumer_group_heartbeat(std::move(a), [&](ConsumerGroupHeartbeatResult r) { answer = std::move(r); });
    h.settle();
    EXPECT_TRUE(answer.has_value());
    if (!answer) return {};
    if (answer->error == GroupError::kNone) {
      c.epoch = answer->member_epoch;
      if (answer->assignment) c.owned = *answer->assignment;
    }
    return *answer;
  }

  // One classic round: a heartbeat, and if told to, a JoinGroup reporting what it owns and
  // the SyncGroup after it. Returns the heartbeat's error.
  GroupError classic_round(ClassicConsumer& c) {
    const GroupError hb = h.heartbeat("g", c.generation, c.id);
    if (hb != GroupError::kRebalanceInProgress) return hb;
    auto join = h.join(h.join_args("g", c.id, {{"cooperative-sticky", subscription_v1({"t"}, c.owned)}}));
    h.settle();
    EXPECT_TRUE(join->has_value());
    if (!join->has_value() || (*join)->error != GroupError::kNone) return join->has_value() ? (*join)->error : hb;
    EXPECT_EQ((*join)->leader, "");
    EXPECT_TRUE((*join)->members.empty());
    EXPECT_EQ((*join)->protocol_name, "cooperative-sticky");
    c.generation = (*join)->generation_id;
    auto sync = h.sync("g", c.generation, c.id);
    h.settle();
    EXPECT_TRUE(sync->has_value());
    if (!sync->has_value() || (*sync)->error != GroupError::kNone) return hb;
    auto assigned = parse_assignment((*sync)->assignment);
    EXPECT_TRUE(assigned.has_value());
    if (assigned) c.owned = *assigned;
    return hb;
  }

  // Nobody owns a partition another one owns.
  static void expect_no_overlap(const std::vector<const TopicPartitionsMap*>& owners) {
    std::set<int32_t> seen;
    for (const TopicPartitionsMap* o : owners) {
      auto it = o->find("t");
      if (it == o->end()) continue;
      for (int32_t p : it->second) EXPECT_TRUE(seen.insert(p).second) << "partition " << p << " owned twice";
    }
  }

  // Classic and new members take turns until nobody is told to rejoin twice in a row.
  void reconcile(std::vector<ClassicConsumer*> classic, std::vector<NewConsumer*> fresh) {
    for (int round = 0; round < 12; ++round) {
      for (ClassicConsumer* c : classic) classic_round(*c);
      for (NewConsumer* n : fresh) beat(*n);
      std::vector<const TopicPartitionsMap*> owners;
      for (ClassicConsumer* c : classic) owners.push_back(&c->owned);
      for (NewConsumer* n : fresh) owners.push_back(&n->owned);
      expect_no_overlap(owners);
    }
  }

  CoordinatorHarness h{options()};
};

TEST_F(GroupMigrationTest, AClassicGroupUpgradesWhenAConsumerMemberJoinsAndNoPartitionIsOwnedTwice) {
  auto members = classic_group({{{"t", {0, 1}}}, {{"t", {2, 3}}}});
  ASSERT_EQ(members.size(), 2u);
  const int32_t generation = members[0].generation;
  ClassicConsumer& a = members[0];
  ClassicConsumer& b = members[1];

  NewConsumer c{"c-member"};
  ConsumerGroupHeartbeatResult joined = beat(c, /*join=*/true);
  ASSERT_EQ(joined.error, GroupError::kNone) << joined.message;
  EXPECT_EQ(h.coord().find_group("g"), nullptr);
  const ConsumerGroup* group = h.coord().find_consumer_group("g");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->group_epoch(), generation + 1);
  EXPECT_TRUE(group->members().at(a.id).uses_classic());
  EXPECT_EQ(count(c.owned), 0u) << "a and b still own every partition";

  // The classic members are told to rejoin, give partitions up, and c gets them.
  EXPECT_EQ(h.heartbeat("g", a.generation, a.id), GroupError::kRebalanceInProgress);
  reconcile({&a, &b}, {&c});
  EXPECT_EQ(h.coord().find_consumer_group("g")->state(), ConsumerGroup::State::kStable);
  EXPECT_EQ(count(a.owned) + count(b.owned) + count(c.owned), 4u);
  EXPECT_GE(count(c.owned), 1u);
  EXPECT_EQ(h.heartbeat("g", a.generation, a.id), GroupError::kNone);
  EXPECT_EQ(h.heartbeat("g", a.generation - 1, a.id), GroupError::kIllegalGeneration);

  // A classic member commits with its generation (any version); another is ILLEGAL_GENERATION.
  auto ok = h.commit("g", a.generation, a.id, "t", a.owned.begin()->second.front(), 10);
  h.settle();
  ASSERT_TRUE(ok->has_value());
  EXPECT_EQ((*ok)->topics.at(0).partitions.at(0).error, GroupError::kNone);
  auto stale = h.commit("g", a.generation + 5, a.id, "t", 0, 10);
  h.settle();
  ASSERT_TRUE(stale->has_value());
  EXPECT_EQ((*stale)->topics.at(0).partitions.at(0).error, GroupError::kIllegalGeneration);

  // The state survives a restart: the classic members carry on at their generation.
  h.restart();
  EXPECT_EQ(h.heartbeat("g", a.generation, a.id), GroupError::kNone);
  EXPECT_EQ(h.heartbeat("g", b.generation, b.id), GroupError::kNone);
  EXPECT_TRUE(h.coord().find_consumer_group("g")->members().at(b.id).uses_classic());
}

TEST_F(GroupMigrationTest, TheLastConsumerMemberLeavingHandsTheGroupBackToTheClassicProtocol) {
  auto members = classic_group({{{"t", {0, 1}}}, {{"t", {2, 3}}}});
  ASSERT_EQ(members.size(), 2u);
  NewConsumer c{"c-member"};
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  reconcile({&members[0], &members[1]}, {&c});
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();

  c.epoch = ConsumerHeartbeat::kLeaveEpoch;
  EXPECT_EQ(beat(c).member_epoch, ConsumerHeartbeat::kLeaveEpoch);
  EXPECT_EQ(h.coord().find_consumer_group("g"), nullptr);
  const Group* classic = h.coord().find_group("g");
  ASSERT_NE(classic, nullptr);
  EXPECT_TRUE(classic->is(GroupState::kPreparingRebalance));
  EXPECT_EQ(classic->size(), 2u);
  EXPECT_EQ(classic->protocol_name(), "cooperative-sticky");
  EXPECT_EQ(classic->generation_id(), epoch);

  // Its members rejoin the classic way; the leader assigns.
  EXPECT_EQ(h.heartbeat("g", members[0].generation, members[0].id), GroupError::kRebalanceInProgress);
  auto ja = h.join(h.join_args("g", members[0].id, {{"cooperative-sticky", subscription_v1({"t"}, members[0].owned)}}));
  auto jb = h.join(h.join_args("g", members[1].id, {{"cooperative-sticky", subscription_v1({"t"}, members[1].owned)}}));
  h.settle();
  ASSERT_TRUE(ja->has_value() && jb->has_value());
  EXPECT_EQ((*ja)->error, GroupError::kNone);
  EXPECT_EQ((*ja)->generation_id, epoch + 1);
  EXPECT_FALSE((*ja)->leader.empty());
  EXPECT_EQ((*ja)->members.size() + (*jb)->members.size(), 2u) << "the leader gets both members";
}

TEST_F(GroupMigrationTest, TheLastConsumerMemberLeavingForGoodHandsTheGroupBackEvenWhenStatic) {
  // Kafka's consumerGroupLeave: a static member's epoch -1 fences it as a dynamic one's
  // does, so the last consumer-protocol member leaving that way downgrades the group; its
  // temporary leave (-2) keeps it in the group, and the group stays a consumer group.
  auto members = classic_group({{{"t", {0, 1}}}, {{"t", {2, 3}}}});
  NewConsumer c{"c-member"};
  c.instance = "inst-c";
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  reconcile({&members[0], &members[1]}, {&c});
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();

  NewConsumer away = c;
  away.epoch = ConsumerHeartbeat::kStaticLeaveEpoch;
  EXPECT_EQ(beat(away).member_epoch, ConsumerHeartbeat::kStaticLeaveEpoch);
  ASSERT_NE(h.coord().find_consumer_group("g"), nullptr) << "a temporary leave keeps the member";

  // Back under a new member id, then gone for good.
  NewConsumer back{"c-back"};
  back.instance = "inst-c";
  ASSERT_EQ(beat(back, true).error, GroupError::kNone);
  reconcile({&members[0], &members[1]}, {&back});
  back.epoch = ConsumerHeartbeat::kLeaveEpoch;
  EXPECT_EQ(beat(back).member_epoch, ConsumerHeartbeat::kLeaveEpoch);
  EXPECT_EQ(h.coord().find_consumer_group("g"), nullptr);
  const Group* classic = h.coord().find_group("g");
  ASSERT_NE(classic, nullptr);
  EXPECT_EQ(classic->size(), 2u);
  EXPECT_GE(classic->generation_id(), epoch);
  EXPECT_TRUE(classic->is(GroupState::kPreparingRebalance));
}

TEST_F(GroupMigrationTest, AConsumerMemberLeavingAGroupWithOtherConsumerMembersKeepsItAConsumerGroup) {
  auto members = classic_group({{{"t", {0, 1, 2, 3}}}});
  NewConsumer c{"c"}, d{"d"};
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  ASSERT_EQ(beat(d, true).error, GroupError::kNone);
  reconcile({&members[0]}, {&c, &d});
  c.epoch = ConsumerHeartbeat::kLeaveEpoch;
  beat(c);
  ASSERT_NE(h.coord().find_consumer_group("g"), nullptr);
  EXPECT_EQ(h.coord().find_group("g"), nullptr);
}

TEST_F(GroupMigrationTest, OneLeaveGroupForSeveralClassicMembersMovesTheGroupEpochOnce) {
  // Kafka's classicGroupLeaveToConsumerGroup removes every member the request names and
  // writes one group epoch record: epoch + 1, not + the number of members.
  auto members = classic_group({{{"t", {0, 1}}}, {{"t", {2, 3}}}});
  ASSERT_EQ(members.size(), 2u);
  NewConsumer c{"c-member"};
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  reconcile({&members[0], &members[1]}, {&c});
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();

  LeaveGroupResult left = h.leave("g", {{members[0].id, std::nullopt, std::nullopt},
                                        {members[1].id, std::nullopt, std::nullopt},
                                        {"nobody", std::nullopt, std::nullopt}});
  h.settle();
  ASSERT_EQ(left.members.size(), 3u);
  EXPECT_EQ(left.members[0].error, GroupError::kNone);
  EXPECT_EQ(left.members[1].error, GroupError::kNone);
  EXPECT_EQ(left.members[2].error, GroupError::kUnknownMemberId);
  const ConsumerGroup* group = h.coord().find_consumer_group("g");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->group_epoch(), epoch + 1);
  EXPECT_EQ(group->members().size(), 1u);
  for (int i = 0; i < 4 && count(c.owned) < 4; ++i) beat(c);
  EXPECT_EQ(count(c.owned), 4u);
  EXPECT_EQ(c.epoch, epoch + 1);

  // A request that names nobody it holds moves nothing.
  h.leave("g", {{"nobody", std::nullopt, std::nullopt}});
  h.settle();
  EXPECT_EQ(h.coord().find_consumer_group("g")->group_epoch(), epoch + 1);
}

TEST_F(GroupMigrationTest, AStaticClassicMemberRestartingWithTheConsumerProtocolTakesItsOwnPlace) {
  // A rolling switch of static members: the consumer-protocol member with a classic
  // member's instance id replaces it at once (no UNRELEASED_INSTANCE_ID: only a
  // consumer-protocol member must have left first), keeping its partitions.
  auto members = classic_group({{{"t", {0, 1}}}, {{"t", {2, 3}}}}, {"inst-a", "inst-b"});
  ASSERT_EQ(members.size(), 2u);
  NewConsumer a2{"a-restarted"};
  a2.instance = "inst-a";
  ConsumerGroupHeartbeatResult joined = beat(a2, true);
  ASSERT_EQ(joined.error, GroupError::kNone) << joined.message;
  const ConsumerGroup* group = h.coord().find_consumer_group("g");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->members().size(), 2u);
  EXPECT_FALSE(group->members().contains(members[0].id));
  ASSERT_TRUE(group->members().contains("a-restarted"));
  EXPECT_FALSE(group->members().at("a-restarted").uses_classic());
  reconcile({&members[1]}, {&a2});
  EXPECT_EQ(a2.owned, (TopicPartitionsMap{{"t", {0, 1}}})) << "it keeps the partitions of the member it replaced";
  EXPECT_EQ(members[1].owned, (TopicPartitionsMap{{"t", {2, 3}}}));
  // The old instance is fenced.
  EXPECT_EQ(h.heartbeat("g", members[0].generation, members[0].id, "inst-a"), GroupError::kFencedInstanceId);
}

TEST_F(GroupMigrationTest, TheLastConsumerMemberReplacedByItsClassicRestartHandsTheGroupBackWithoutARebalance) {
  // Kafka's classicGroupJoinToConsumerGroup: a static member rejoining with the classic
  // protocol replaces the last consumer-protocol member; the group becomes classic, Stable
  // at its epoch, the new member holding the replaced one's assignment; nobody rejoins.
  auto members = classic_group({{{"t", {0, 1, 2, 3}}}}, {"inst-a"});
  ASSERT_EQ(members.size(), 1u);
  NewConsumer c{"c-member"};
  c.instance = "inst-c";
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  reconcile({&members[0]}, {&c});
  ASSERT_EQ(count(c.owned), 2u);
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();
  ASSERT_EQ(members[0].generation, epoch);

  JoinGroupArgs restart = h.join_args("g", "", {{"cooperative-sticky", subscription_v1({"t"}, {})}});
  restart.group_instance_id = "inst-c";
  auto j = h.join(std::move(restart));
  h.settle();
  ASSERT_TRUE(j->has_value());
  ASSERT_EQ((*j)->error, GroupError::kNone);
  EXPECT_NE((*j)->member_id, "c-member");
  EXPECT_EQ((*j)->generation_id, epoch);
  EXPECT_EQ(h.coord().find_consumer_group("g"), nullptr);
  const Group* classic = h.coord().find_group("g");
  ASSERT_NE(classic, nullptr);
  EXPECT_TRUE(classic->is(GroupState::kStable));
  EXPECT_EQ(classic->generation_id(), epoch);
  EXPECT_EQ(classic->size(), 2u);

  auto sync = h.sync("g", (*j)->generation_id, (*j)->member_id, {}, "inst-c");
  h.settle();
  ASSERT_TRUE(sync->has_value());
  ASSERT_EQ((*sync)->error, GroupError::kNone);
  EXPECT_EQ(parse_assignment((*sync)->assignment), c.owned) << "the replaced member's assignment";
  // The other member goes on at its generation: no rebalance.
  EXPECT_EQ(h.heartbeat("g", members[0].generation, members[0].id, "inst-a"), GroupError::kNone);

  // And it survives a restart as a classic group.
  h.restart();
  ASSERT_NE(h.coord().find_group("g"), nullptr);
  EXPECT_EQ(h.coord().find_consumer_group("g"), nullptr);
}

TEST_F(GroupMigrationTest, WithTheUpgradeDisabledAConsumerMemberIsRefused) {
  CoordinatorOptions o = options();
  o.consumer_migration_upgrade = false;
  CoordinatorHarness disabled{o};
  disabled.topics["t"] = 4;
  auto g = disabled.form_group("g", 2);
  ConsumerGroupHeartbeatArgs a;
  a.group_id = "g";
  a.api_version = 1;
  a.heartbeat.member_id = "c";
  a.heartbeat.rebalance_timeout_ms = 30000;
  a.heartbeat.subscribed_topics = std::vector<std::string>{"t"};
  a.heartbeat.owned = TopicPartitionsMap{};
  std::optional<ConsumerGroupHeartbeatResult> answer;
  disabled.coord().consumer_group_heartbeat(std::move(a), [&](ConsumerGroupHeartbeatResult r) { answer = r; });
  disabled.settle();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->error, GroupError::kGroupIdNotFound);
  EXPECT_EQ(answer->message, "Group g is not a consumer group.");
  EXPECT_NE(disabled.coord().find_group("g"), nullptr);
}

TEST_F(GroupMigrationTest, AClassicGroupWhoseAssignmentIsNotTheConsumerProtocolsIsNotUpgraded) {
  h.topics["t"] = 4;
  auto g = h.form_group("g", 2);  // assignments "assignment-<id>": not the consumer protocol's
  NewConsumer c{"c"};
  ConsumerGroupHeartbeatResult r = beat(c, true);
  EXPECT_EQ(r.error, GroupError::kGroupIdNotFound);
  EXPECT_NE(r.message.find("malformed"), std::string::npos) << r.message;
  EXPECT_NE(h.coord().find_group("g"), nullptr);
  EXPECT_EQ(h.heartbeat("g", g.generation, g.members[0]), GroupError::kNone) << "the classic group is untouched";
}

TEST_F(GroupMigrationTest, AClassicMemberThatDoesNotRejoinWithinItsRebalanceTimeoutIsRemoved) {
  auto members = classic_group({{{"t", {0, 1}}}, {{"t", {2, 3}}}});
  NewConsumer c{"c"};
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  ClassicConsumer& a = members[0];
  EXPECT_EQ(h.heartbeat("g", a.generation, a.id), GroupError::kRebalanceInProgress);
  // a keeps heartbeating but never rejoins; b and c go on.
  for (int i = 0; i < 11; ++i) {
    h.advance(3000);
    h.heartbeat("g", a.generation, a.id);
    classic_round(members[1]);
    beat(c);
  }
  h.settle();
  EXPECT_FALSE(h.coord().find_consumer_group("g")->members().contains(a.id));
  reconcile({&members[1]}, {&c});
  EXPECT_EQ(count(members[1].owned) + count(c.owned), 4u);
}

TEST_F(GroupMigrationTest, HostileClassicJoinsToAConsumerGroupGetKafkasErrors) {
  auto members = classic_group({{{"t", {0, 1, 2, 3}}}});
  NewConsumer c{"c"};
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  auto garbage = h.join(h.join_args("g", "x-1", {{"cooperative-sticky", std::string("\0\1\x7f\xff\xff\xff", 6)}}));
  auto other_type = h.join_args("g", "x-2", {{"cooperative-sticky", subscription_v1({"t"}, {})}});
  other_type.protocol_type = "connect";
  auto wrong_type = h.join(other_type);
  auto unknown_protocol = h.join(h.join_args("g", "x-3", {{"roundrobin", subscription_v1({"t"}, {})}}));
  h.settle();
  for (auto* j : {&garbage, &wrong_type, &unknown_protocol}) {
    ASSERT_TRUE((*j)->has_value());
    EXPECT_EQ((**j)->error, GroupError::kInconsistentGroupProtocol);
  }
  EXPECT_EQ(h.coord().find_consumer_group("g")->members().size(), 2u);
  // A classic request naming a consumer-protocol member, or nobody: UNKNOWN_MEMBER_ID.
  EXPECT_EQ(h.heartbeat("g", c.epoch, "c"), GroupError::kUnknownMemberId);
  EXPECT_EQ(h.heartbeat("g", 1, "nobody"), GroupError::kUnknownMemberId);
  auto sync = h.sync("g", c.epoch, "c");
  ASSERT_TRUE(sync->has_value());
  EXPECT_EQ((*sync)->error, GroupError::kUnknownMemberId);
  LeaveGroupResult left = h.leave("g", {{"nobody", std::nullopt, std::nullopt}, {"", "no-such-instance", std::nullopt}});
  ASSERT_EQ(left.members.size(), 2u);
  EXPECT_EQ(left.members[0].error, GroupError::kUnknownMemberId);
  EXPECT_EQ(left.members[1].error, GroupError::kUnknownMemberId);
}

TEST_F(GroupMigrationTest, LeaveGroupRemovesConsumerProtocolMembersAndTheLastOnesLeavingHandTheGroupBack) {
  // Kafka 4 (KAFKA-18188): LeaveGroup -- an admin's removeMembersFromConsumerGroup --
  // removes a member of either protocol, by member id or by instance id alone, answering
  // with the ids it was given. KAFKA-18150: when that removes the last consumer-protocol
  // members and classic ones remain, the group goes back to the classic protocol.
  auto members = classic_group({{{"t", {0, 1, 2, 3}}}});
  NewConsumer c{"c"}, d{"d"};
  d.instance = "inst-d";
  ASSERT_EQ(beat(c, true).error, GroupError::kNone);
  ASSERT_EQ(beat(d, true).error, GroupError::kNone);
  reconcile({&members[0]}, {&c, &d});
  const int32_t epoch = h.coord().find_consumer_group("g")->group_epoch();

  // d by its instance id alone: removed, answered with no member id; c stays a consumer member.
  LeaveGroupResult left = h.leave("g", {{"", "inst-d", std::nullopt}});
  h.settle();
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0].error, GroupError::kNone);
  EXPECT_EQ(left.members[0].member_id, "");
  EXPECT_EQ(left.members[0].group_instance_id, "inst-d");
  ASSERT_NE(h.coord().find_consumer_group("g"), nullptr);
  EXPECT_EQ(h.coord().find_consumer_group("g")->group_epoch(), epoch + 1);
  EXPECT_FALSE(h.coord().find_consumer_group("g")->members().contains("d"));

  // c by member id: the last consumer-protocol member; the classic one remains: downgrade.
  const int32_t before = h.coord().find_consumer_group("g")->group_epoch();
  left = h.leave("g", {{"c", std::nullopt, std::nullopt}});
  h.settle();
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0].error, GroupError::kNone);
  EXPECT_EQ(left.members[0].member_id, "c");
  EXPECT_EQ(h.coord().find_consumer_group("g"), nullptr);
  const Group* classic = h.coord().find_group("g");
  ASSERT_NE(classic, nullptr);
  EXPECT_EQ(classic->size(), 1u);
  EXPECT_EQ(classic->generation_id(), before);
  EXPECT_TRUE(classic->is(GroupState::kPreparingRebalance));
}

TEST(ConsumerProtocolTest, SubscriptionsAndAssignmentsRoundTripAndHostileBytesAreRefused) {
  const std::string sub = subscription_v1({"a", "b"}, {{"a", {3, 1}}});
  auto parsed = parse_subscription(sub);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->version, 1);
  EXPECT_EQ(parsed->topics, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parsed->owned, (TopicPartitionsMap{{"a", {1, 3}}}));
  for (size_t n = 0; n < sub.size(); ++n) EXPECT_FALSE(parse_subscription(sub.substr(0, n))) << n;
  EXPECT_FALSE(parse_subscription(sub + "x")) << "trailing bytes at a known version";
  EXPECT_FALSE(parse_subscription(std::string("\0\1\x7f\xff\xff\xff", 6))) << "2 billion topics in 0 bytes";

  const TopicPartitionsMap assigned{{"a", {0, 2}}, {"b", {1}}};
  const std::string bytes = encode_assignment(assigned, 3);
  EXPECT_EQ(parse_assignment(bytes), assigned);
  EXPECT_EQ(parse_assignment(""), TopicPartitionsMap{});
  for (size_t n = 1; n < bytes.size(); ++n) EXPECT_FALSE(parse_assignment(bytes.substr(0, n))) << n;
  std::string lying = bytes;
  lying[5] = '\x7f';  // the topic count's low byte: more topics than bytes
  EXPECT_FALSE(parse_assignment(lying));
}

}  // namespace
}  // namespace rokka::coordinator::test
