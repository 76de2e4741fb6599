// The group admin APIs against build/rokka through librdkafka's Admin API: ListGroups
// with a state filter, DescribeGroups, DeleteGroups and OffsetDelete (DeleteConsumerGroupOffsets).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/testutil/group_consumer.h"
#include "tests/testutil/kafka_admin.h"

namespace rokka {
namespace {

using testutil::GroupBroker;
using testutil::GroupConsumer;
using testutil::KafkaAdmin;

constexpr int kPartitions = 4;

std::map<std::string, rd_kafka_consumer_group_state_t> by_id(const std::vector<KafkaAdmin::ListedGroup>& groups) {
  std::map<std::string, rd_kafka_consumer_group_state_t> out;
  for (const auto& g : groups) out[g.group_id] = g.state;
  return out;
}

// A consumer of `topic` in `group` that owns every partition.
std::unique_ptr<GroupConsumer> sole_member(const std::string& bootstrap, const std::string& group,
                                           const std::string& topic) {
  auto c = std::make_unique<GroupConsumer>(bootstrap, group, topic, std::map<std::string, std::string>{
                                                                        {"client.id", "admin-test-client"}});
  EXPECT_TRUE(testutil::poll_all_until({c.get()}, [&] { return c->owned().size() == kPartitions; }));
  return c;
}

TEST(GroupAdminTest, ListGroupsFiltersByState) {
  GroupBroker broker(kPartitions);
  KafkaAdmin admin(broker.bootstrap());
  ASSERT_EQ(admin.create_topic("t", kPartitions), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_TRUE(admin.list_groups().empty());
  auto live = sole_member(broker.bootstrap(), "live", "t");
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "idle", "t", {{0, 1}}, ""), RD_KAFKA_RESP_ERR_NO_ERROR);

  using States = std::map<std::string, rd_kafka_consumer_group_state_t>;
  EXPECT_EQ(by_id(admin.list_groups()),
            (States{{"live", RD_KAFKA_CONSUMER_GROUP_STATE_STABLE}, {"idle", RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY}}));
  EXPECT_EQ(by_id(admin.list_groups({RD_KAFKA_CONSUMER_GROUP_STATE_STABLE})),
            (States{{"live", RD_KAFKA_CONSUMER_GROUP_STATE_STABLE}}));
  EXPECT_EQ(by_id(admin.list_groups({RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY})),
            (States{{"idle", RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY}}));
  EXPECT_EQ(by_id(admin.list_groups({RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY, RD_KAFKA_CONSUMER_GROUP_STATE_STABLE})),
            by_id(admin.list_groups()));
  EXPECT_TRUE(admin.list_groups({RD_KAFKA_CONSUMER_GROUP_STATE_PREPARING_REBALANCE}).empty());
  const auto listed = admin.list_groups();
  const auto idle = std::find_if(listed.begin(), listed.end(), [](const auto& g) { return g.group_id == "idle"; });
  ASSERT_NE(idle, listed.end());
  EXPECT_TRUE(idle->simple) << "a group known only by its commits has no protocol type";

  live->close();  // the group's last member leaves: Empty
  EXPECT_EQ(by_id(admin.list_groups({RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY})),
            (States{{"live", RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY}, {"idle", RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY}}));
}

TEST(GroupAdminTest, DescribeGroupsShowsMembersAndTheirAssignments) {
  GroupBroker broker(kPartitions);
  KafkaAdmin admin(broker.bootstrap());
  ASSERT_EQ(admin.create_topic("t", kPartitions), RD_KAFKA_RESP_ERR_NO_ERROR);
  GroupConsumer a(broker.bootstrap(), "g", "t", {{"client.id", "client-a"}});
  GroupConsumer b(broker.bootstrap(), "g", "t", {{"client.id", "client-b"}, {"group.instance.id", "b-1"}});
  ASSERT_TRUE(testutil::poll_all_until({&a, &b}, [&] { return testutil::settled({&a, &b}, kPartitions); }));

  const auto d = admin.describe_group("g");
  EXPECT_EQ(d.error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(d.state, RD_KAFKA_CONSUMER_GROUP_STATE_STABLE);
  EXPECT_EQ(d.assignor, "range");
  ASSERT_EQ(d.members.size(), 2u);
  std::map<std::string, KafkaAdmin::DescribedMember> by_client;
  for (const auto& m : d.members) by_client[m.client_id] = m;
  ASSERT_EQ(by_client.count("client-a") + by_client.count("client-b"), 2u);
  EXPECT_EQ(by_client["client-a"].partitions, a.owned());
  EXPECT_EQ(by_client["client-b"].partitions, b.owned());
  EXPECT_EQ(by_client["client-a"].group_instance_id, std::nullopt);
  EXPECT_EQ(by_client["client-b"].group_instance_id, std::optional<std::string>("b-1"));
  EXPECT_NE(by_client["client-a"].member_id, by_client["client-b"].member_id);
  EXPECT_EQ(by_client["client-a"].member_id.rfind("client-a-", 0), 0u) << "member ids are <client.id>-<uuid>";
}

TEST(GroupAdminTest, DeleteGroupsRefusesAGroupWithMembers) {
  GroupBroker broker(kPartitions);
  KafkaAdmin admin(broker.bootstrap());
  ASSERT_EQ(admin.create_topic("t", kPartitions), RD_KAFKA_RESP_ERR_NO_ERROR);
  auto member = sole_member(broker.bootstrap(), "g", "t");
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "simple", "t", {{1, 9}}, ""), RD_KAFKA_RESP_ERR_NO_ERROR);

  EXPECT_EQ(admin.delete_group("g"), RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP);
  EXPECT_EQ(admin.delete_group("never-existed"), RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
  EXPECT_EQ(admin.delete_group("simple"), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(testutil::committed_offsets(broker.bootstrap(), "simple", "t", {1})[1].offset, RD_KAFKA_OFFSET_INVALID);

  member->close();
  EXPECT_EQ(admin.delete_group("g"), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_TRUE(admin.list_groups().empty());
  EXPECT_EQ(admin.delete_group("g"), RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
}

TEST(GroupAdminTest, OffsetDeleteSparesSubscribedTopicsUntilTheGroupIsEmpty) {
  GroupBroker broker(kPartitions);
  KafkaAdmin admin(broker.bootstrap());
  ASSERT_EQ(admin.create_topic("t", kPartitions), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(admin.create_topic("other", kPartitions), RD_KAFKA_RESP_ERR_NO_ERROR);
  // Offsets of "t" and "other" committed while the group (subscribed to "t") runs.
  auto member = sole_member(broker.bootstrap(), "g", "t");
  {
    std::vector<RdKafka::TopicPartition*> tps = {RdKafka::TopicPartition::create("t", 0, 5),
                                                 RdKafka::TopicPartition::create("t", 1, 6),
                                                 RdKafka::TopicPartition::create("other", 0, 7)};
    EXPECT_EQ(member->handle().commitSync(tps), RdKafka::ERR_NO_ERROR);
    RdKafka::TopicPartition::destroy(tps);
  }

  auto [group_error, partitions] = admin.delete_offsets("g", "t", {0});
  EXPECT_EQ(group_error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(partitions[0], RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC);
  std::tie(group_error, partitions) = admin.delete_offsets("g", "other", {0});
  EXPECT_EQ(group_error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(partitions[0], RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(testutil::committed_offsets(broker.bootstrap(), "g", "t", {0})[0].offset, 5);
  EXPECT_EQ(testutil::committed_offsets(broker.bootstrap(), "g", "other", {0})[0].offset, RD_KAFKA_OFFSET_INVALID);

  member->close();
  std::tie(group_error, partitions) = admin.delete_offsets("g", "t", {0});
  EXPECT_EQ(group_error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(partitions[0], RD_KAFKA_RESP_ERR_NO_ERROR);
  const auto left = testutil::committed_offsets(broker.bootstrap(), "g", "t", {0, 1});
  EXPECT_EQ(left.at(0).offset, RD_KAFKA_OFFSET_INVALID);
  EXPECT_EQ(left.at(1).offset, 6) << "only the named partition goes";

  std::tie(group_error, partitions) = admin.delete_offsets("never-existed", "t", {0});
  EXPECT_EQ(group_error, RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
}

}  // namespace
}  // namespace rokka
