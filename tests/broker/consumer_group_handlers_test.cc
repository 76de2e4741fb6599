// ConsumerGroupHeartbeat and ConsumerGroupDescribe (KIP-848) on the wire: three members
// split a topic by topic id; and hostile heartbeats -- bad epochs, unknown members, broken
// regexes, a huge subscription -- get Kafka's error on a connection that stays open, while
// a frame that does not decode closes it.
#include <gtest/gtest.h>

#include <set>

#include "protocol/error_code.h"
#include "protocol/messages/consumer_group.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/list_groups.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ConsumerGroupHeartbeatRequest;
using protocol::ConsumerGroupHeartbeatResponse;
using protocol::ErrorCode;
using testutil::eventually;
using testutil::InProcessBroker;
using testutil::WireClient;

protocol::Uuid create_topic(WireClient& c, const std::string& name, int32_t partitions) {
  protocol::CreateTopicsRequest create;
  auto& t = create.topics.emplace_back();
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  auto created = c.call<protocol::CreateTopicsResponse>(create, 7);
  EXPECT_TRUE(created);
  EXPECT_EQ(created->topics.at(0).error_code, ErrorCode::kNone);
  return created->topics.at(0).topic_id;
}

// One heartbeat; retried while the coordinator is still loading.
ConsumerGroupHeartbeatResponse heartbeat(WireClient& c, const ConsumerGroupHeartbeatRequest& req, int16_t version = 1) {
  std::optional<ConsumerGroupHeartbeatResponse> resp;
  EXPECT_TRUE(eventually([&] {
    resp = c.call<ConsumerGroupHeartbeatResponse>(req, version);
    return !resp || resp->error_code != ErrorCode::kCoordinatorLoadInProgress;
  }));
  EXPECT_TRUE(resp.has_value()) << "no answer: the connection closed";
  return resp.value_or(ConsumerGroupHeartbeatResponse{});
}

struct Member {
  std::string id;
  int32_t epoch = 0;
  std::vector<protocol::ConsumerGroupTopicPartitions> owned;
  std::vector<std::string_view> topics{"t"};
  std::string_view group = "g";

  ConsumerGroupHeartbeatRequest next() const {
    ConsumerGroupHeartbeatRequest r;
    r.group_id = group;
    r.member_id = id;
    r.member_epoch = epoch;
    if (epoch == 0) {
      r.rebalance_timeout_ms = 30000;
      r.subscribed_topic_names = topics;
    }
    r.topic_partitions = owned;
    return r;
  }
  void beat(WireClient& c) {
    ConsumerGroupHeartbeatResponse resp = heartbeat(c, next());
    ASSERT_EQ(resp.error_code, ErrorCode::kNone) << resp.error_message.value_or("");
    epoch = resp.member_epoch;
    EXPECT_EQ(resp.heartbeat_interval_ms, 5000);
    if (resp.assignment) owned = resp.assignment->topic_partitions;
  }
};

TEST(ConsumerGroupHandlersTest, ThreeMembersSplitTwelvePartitionsByTopicIdAndAreDescribed) {
  InProcessBroker b;
  WireClient c(b.port());
  const protocol::Uuid id = create_topic(c, "t", 12);
  std::vector<Member> members{{"member-a"}, {"member-b"}, {"member-c"}};
  for (int round = 0; round < 4; ++round)
    for (Member& m : members) m.beat(c);
  std::set<int32_t> seen;
  for (const Member& m : members) {
    ASSERT_EQ(m.owned.size(), 1u) << m.id;
    EXPECT_EQ(m.owned[0].topic_id, id);
    EXPECT_EQ(m.owned[0].partitions.size(), 4u) << m.id;
    for (int32_t p : m.owned[0].partitions) EXPECT_TRUE(seen.insert(p).second) << "partition " << p << " twice";
  }
  EXPECT_EQ(seen, (std::set<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));

  protocol::ConsumerGroupDescribeRequest describe;
  describe.group_ids = {"g", "nope"};
  auto d = c.call<protocol::ConsumerGroupDescribeResponse>(describe, 0);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->groups.size(), 2u);
  EXPECT_EQ(d->groups[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(d->groups[0].group_state, "Stable");
  EXPECT_EQ(d->groups[0].assignor_name, "uniform");
  EXPECT_EQ(d->groups[0].group_epoch, 3);
  ASSERT_EQ(d->groups[0].members.size(), 3u);
  for (const auto& m : d->groups[0].members) {
    EXPECT_EQ(m.subscribed_topic_names, std::vector<std::string>{"t"});
    ASSERT_EQ(m.assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(m.assignment.topic_partitions[0].topic_name, "t");
    EXPECT_EQ(m.assignment.topic_partitions[0].partitions.size(), 4u);
    EXPECT_EQ(m.target_assignment.topic_partitions[0].partitions, m.assignment.topic_partitions[0].partitions);
  }
  EXPECT_EQ(d->groups[1].error_code, ErrorCode::kGroupIdNotFound);

  protocol::ListGroupsRequest list;
  list.types_filter = {"consumer"};
  auto listed = c.call<protocol::ListGroupsResponse>(list, 5);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->groups.size(), 1u);
  EXPECT_EQ(listed->groups[0].group_id, "g");
  EXPECT_EQ(listed->groups[0].group_type, "consumer");
  EXPECT_EQ(listed->groups[0].group_state, "Stable");
}

// Kafka 4 (KAFKA-18813): a regex subscription matches only topics the member may describe,
// and a group is described only to a caller who may describe all of its topics.
TEST(ConsumerGroupHandlersTest, TopicsTheMemberMayNotDescribeAreNeitherMatchedNorDescribed) {
  InProcessBroker b(testutil::kAuthorizerAllowingUncovered);
  WireClient c(b.port());
  const protocol::Uuid open_id = create_topic(c, "rx-open", 2);
  create_topic(c, "rx-secret", 2);
  create_topic(c, "shared", 2);
  auto deny_describe = [&](std::string_view topic) {
    protocol::CreateAclsRequest acls;
    acls.creations = {{2, topic, 3, "User:ANONYMOUS", "*", 8, 2}};  // topic, literal, DESCRIBE, DENY
    auto created = c.call<protocol::CreateAclsResponse>(acls, 1);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->results.at(0).error_code, ErrorCode::kNone);
  };
  deny_describe("rx-secret");

  ConsumerGroupHeartbeatRequest join;
  join.group_id = "g";
  join.member_id = "regex-member";
  join.member_epoch = 0;
  join.rebalance_timeout_ms = 30000;
  join.subscribed_topic_regex = "rx-.*";
  join.topic_partitions = std::vector<protocol::ConsumerGroupTopicPartitions>{};
  ConsumerGroupHeartbeatResponse resp = heartbeat(c, join);
  ASSERT_EQ(resp.error_code, ErrorCode::kNone) << resp.error_message.value_or("");
  // A regex new to the group is matched on its next heartbeat (Kafka's is asynchronous).
  ConsumerGroupHeartbeatRequest next;
  next.group_id = "g";
  next.member_id = "regex-member";
  next.member_epoch = resp.member_epoch;
  resp = heartbeat(c, next);
  ASSERT_EQ(resp.error_code, ErrorCode::kNone) << resp.error_message.value_or("");
  ASSERT_TRUE(resp.assignment);
  ASSERT_EQ(resp.assignment->topic_partitions.size(), 1u) << "rx-secret matched though it may not be described";
  EXPECT_EQ(resp.assignment->topic_partitions[0].topic_id, open_id);
  EXPECT_EQ(resp.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));

  // A second group holds `shared`; once `shared` may not be described, that group is not
  // shown, while the first still is.
  Member m{"shared-member"};
  m.topics = {"shared"};
  m.group = "g-shared";
  m.beat(c);
  m.beat(c);
  ASSERT_EQ(m.owned.size(), 1u);
  protocol::ConsumerGroupDescribeRequest describe;
  describe.group_ids = {"g", "g-shared"};
  auto d = c.call<protocol::ConsumerGroupDescribeResponse>(describe, 0);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->groups.size(), 2u);
  EXPECT_EQ(d->groups[1].error_code, ErrorCode::kNone) << "before the ACL";
  deny_describe("shared");
  d = c.call<protocol::ConsumerGroupDescribeResponse>(describe, 0);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->groups.size(), 2u);
  EXPECT_EQ(d->groups[0].error_code, ErrorCode::kNone) << "group g's topics are all visible";
  ASSERT_EQ(d->groups[0].members.size(), 1u);
  EXPECT_EQ(d->groups[0].members[0].assignment.topic_partitions.at(0).topic_name, "rx-open");
  EXPECT_EQ(d->groups[1].group_id, "g-shared");
  EXPECT_EQ(d->groups[1].error_code, ErrorCode::kTopicAuthorizationFailed);
  EXPECT_TRUE(d->groups[1].members.empty());
}

// ConsumerGroupDescribe v1 (KIP-1099) says which protocol each member speaks: a classic
// member that joined the consumer group with JoinGroup is 0, a consumer-protocol one 1.
TEST(ConsumerGroupHandlersTest, DescribeV1SaysWhichProtocolEachMemberSpeaks) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "t", 4);
  Member m{"member-a"};
  m.beat(c);

  // The consumer protocol's Subscription v0, by hand: version, topics ["t"], null user data.
  const std::vector<std::byte> subscription = {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
                                               std::byte{1}, std::byte{0}, std::byte{1}, std::byte{'t'},
                                               std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
  protocol::JoinGroupRequest join;
  join.group_id = "g";
  join.session_timeout_ms = 30000;
  join.rebalance_timeout_ms = 30000;
  join.protocol_type = "consumer";
  join.protocols = {{"range", subscription}};
  auto joined = c.call<protocol::JoinGroupResponse>(join, 5);
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, ErrorCode::kMemberIdRequired);
  const std::string classic_id = joined->member_id;
  join.member_id = classic_id;
  joined = c.call<protocol::JoinGroupResponse>(join, 5);
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, ErrorCode::kNone);

  protocol::ConsumerGroupDescribeRequest describe;
  describe.group_ids = {"g"};
  auto d = c.call<protocol::ConsumerGroupDescribeResponse>(describe, 1);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->groups.size(), 1u);
  ASSERT_EQ(d->groups[0].error_code, ErrorCode::kNone);
  std::map<std::string, int8_t> types;
  for (const auto& member : d->groups[0].members) types[member.member_id] = member.member_type;
  EXPECT_EQ(types, (std::map<std::string, int8_t>{{"member-a", 1}, {classic_id, 0}}));

  d = c.call<protocol::ConsumerGroupDescribeResponse>(describe, 0);  // v0 has no such field
  ASSERT_TRUE(d);
  ASSERT_EQ(d->groups.at(0).members.size(), 2u);
  for (const auto& member : d->groups[0].members) EXPECT_EQ(member.member_type, -1);
}

TEST(ConsumerGroupHandlersTest, HostileHeartbeatsGetKafkasErrorsOnAnOpenConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "t", 2);
  Member m{"member-a"};
  m.beat(c);

  ConsumerGroupHeartbeatRequest r = m.next();
  r.member_epoch = m.epoch + 7;
  EXPECT_EQ(heartbeat(c, r).error_code, ErrorCode::kFencedMemberEpoch);
  r = m.next();
  r.member_id = "nobody";
  EXPECT_EQ(heartbeat(c, r).error_code, ErrorCode::kUnknownMemberId);
  r = m.next();
  r.member_epoch = -3;
  ConsumerGroupHeartbeatResponse resp = heartbeat(c, r);
  EXPECT_EQ(resp.error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(resp.error_message, "MemberEpoch is invalid.");

  Member rx{"member-rx"};
  ConsumerGroupHeartbeatRequest broken = rx.next();
  broken.subscribed_topic_names.reset();
  broken.subscribed_topic_regex = "orders(";
  resp = heartbeat(c, broken);
  EXPECT_EQ(resp.error_code, ErrorCode::kInvalidRegularExpression);
  ASSERT_TRUE(resp.error_message);
  EXPECT_NE(resp.error_message->find("orders("), std::string::npos) << *resp.error_message;

  // v0 has no regex and lets the coordinator make the member id; v1 needs the client's.
  ConsumerGroupHeartbeatRequest anonymous = Member{""}.next();
  resp = heartbeat(c, anonymous, 1);
  EXPECT_EQ(resp.error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(resp.error_message, "MemberId can't be empty.");
  resp = heartbeat(c, anonymous, 0);
  EXPECT_EQ(resp.error_code, ErrorCode::kNone);
  ASSERT_TRUE(resp.member_id);
  EXPECT_FALSE(resp.member_id->empty());

  // 50,000 topics that do not exist: joined, nothing to assign, the connection still serves.
  std::vector<std::string> names;
  for (int i = 0; i < 50000; ++i) names.push_back("missing-topic-" + std::to_string(i));
  Member big{"member-big"};
  big.topics.assign(names.begin(), names.end());
  resp = heartbeat(c, big.next());
  EXPECT_EQ(resp.error_code, ErrorCode::kNone);
  ASSERT_TRUE(resp.assignment);
  EXPECT_TRUE(resp.assignment->topic_partitions.empty());
  m.beat(c);

  // Owned partitions of a topic id the broker does not know are dropped, not an error.
  ConsumerGroupHeartbeatRequest ghost = m.next();
  ghost.topic_partitions->push_back({protocol::Uuid{{1, 2, 3}}, {0, 1}});
  EXPECT_EQ(heartbeat(c, ghost).error_code, ErrorCode::kNone);
}

TEST(ConsumerGroupHandlersTest, AHeartbeatWhoseArrayRunsPastTheFrameClosesTheConnection) {
  InProcessBroker b;
  // group "g", member "m", epoch 0, null instance and rack, timeout, then a topic-name
  // array claiming 2^31 entries with none present.
  const std::vector<std::byte> body = [] {
    std::vector<int> v{0x02, 'g', 0x02, 'm', 0, 0, 0, 0, 0x00, 0x00, 0, 0, 0x75, 0x30, 0x80, 0x80, 0x80, 0x80, 0x08};
    std::vector<std::byte> out;
    for (int x : v) out.push_back(static_cast<std::byte>(x));
    return out;
  }();
  WireClient c(b.port());
  c.send_raw(WireClient::frame(protocol::ApiKey::kConsumerGroupHeartbeat, 1, 9, body, "hostile"));
  EXPECT_TRUE(c.closed_by_peer());
  WireClient again(b.port());  // the broker still serves
  Member m{"member-a"};
  m.topics = {};
  EXPECT_EQ(heartbeat(again, m.next()).error_code, ErrorCode::kNone);
}

}  // namespace
}  // namespace rokka
