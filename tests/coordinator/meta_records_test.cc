// The coordinator's MetaStore records: round trips, and hostile bytes (every truncation,
// lying lengths and counts) rejected without crashing or allocating what is not there.
#include "coordinator/meta_records.h"

#include <gtest/gtest.h>

#include <string>

#include "coordinator/consumer_protocol.h"
#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator {
namespace {

StoredGroup sample_group() {
  StoredGroup g;
  g.group_id = "orders";
  g.stable = true;
  g.generation_id = 17;
  g.protocol_type = "consumer";
  g.protocol_name = "cooperative-sticky";
  g.leader_id = "m-1";
  g.state_timestamp_ms = 1234567;
  g.members.push_back({"m-1", "instance-a", "client-a", "/10.0.0.1", 30000, 10000, "sub-1", "asg-1"});
  g.members.push_back({"m-2", std::nullopt, "client-b", "/10.0.0.2", 60000, 45000, std::string("\0\1", 2), ""});
  return g;
}

TEST(MetaRecordsTest, OffsetRecordRoundTrips) {
  const CommittedOffset c{123456789012, 5, "meta\0data", 1700000000000, -1};
  EXPECT_EQ(decode_offset_value(encode_offset_value(c)), c);
  const std::string key = encode_offset_key("group/with/slashes", {"topic", 42});
  auto k = decode_offset_key(key);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->group_id, "group/with/slashes");
  EXPECT_EQ(k->tp, (TopicPartition{"topic", 42}));
}

TEST(MetaRecordsTest, OffsetKeysOfOneGroupShareAPrefixNoOtherGroupHas) {
  // "ab" + topic "c" must not look like group "a" + topic "bc".
  EXPECT_NE(encode_offset_key("ab", {"c", 0}), encode_offset_key("a", {"bc", 0}));
}

TEST(MetaRecordsTest, GroupRecordRoundTrips) {
  const StoredGroup g = sample_group();
  auto back = decode_group_value("orders", encode_group_value(g));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, g);
  StoredGroup empty;
  empty.group_id = "idle";
  empty.generation_id = 3;
  empty.protocol_type = "consumer";
  EXPECT_EQ(decode_group_value("idle", encode_group_value(empty)), empty);
}

TEST(MetaRecordsTest, EveryTruncationIsRejected) {
  const std::string group = encode_group_value(sample_group());
  for (size_t n = 0; n < group.size(); ++n) {
    EXPECT_FALSE(decode_group_value("g", group.substr(0, n))) << n;
  }
  const std::string offset = encode_offset_value({1, 2, "xyz", 3, -1});
  for (size_t n = 0; n < offset.size(); ++n) EXPECT_FALSE(decode_offset_value(offset.substr(0, n))) << n;
  const std::string key = encode_offset_key("g", {"t", 1});
  for (size_t n = 0; n < key.size(); ++n) EXPECT_FALSE(decode_offset_key(key.substr(0, n))) << n;
}

TEST(MetaRecordsTest, TrailingBytesAndUnknownVersionsAreRejected) {
  EXPECT_FALSE(decode_offset_value(encode_offset_value({1, 2, "", 3, -1}) + "x"));
  EXPECT_FALSE(decode_group_value("g", encode_group_value(sample_group()) + "x"));
  std::string future = encode_offset_value({1, 2, "", 3, -1});
  future[0] = 1;
  EXPECT_FALSE(decode_offset_value(future));
}

TEST(MetaRecordsTest, LyingMemberCountDoesNotAllocate) {
  std::string v = encode_group_value(sample_group());
  // The member count sits right before the first member; claim four billion members.
  const size_t count_at = v.find(std::string("\0\0\0\2", 4));
  ASSERT_NE(count_at, std::string::npos);
  v.replace(count_at, 4, "\xff\xff\xff\xff");
  EXPECT_FALSE(decode_group_value("g", v));
  std::string lying_length = encode_offset_value({1, 2, "abc", 3, -1});
  lying_length.replace(lying_length.size() - 7, 4, "\x7f\xff\xff\xff");
  EXPECT_FALSE(decode_offset_value(lying_length));
}

ConsumerGroupSnapshot sample_consumer_group() {
  ConsumerGroupSnapshot g;
  g.group_id = "orders";
  g.group_epoch = 9;
  g.assignment_epoch = 8;
  g.topics_seen = {{"t", 6}, {"orders.eu", 2}};
  g.regex_topics = {{"orders.*", {"orders.eu"}}};
  ConsumerMember a;
  a.member_id = "a";
  a.member_epoch = 8;
  a.previous_member_epoch = 7;
  a.state = ConsumerMember::State::kUnrevokedPartitions;
  a.instance_id = "instance-a";
  a.rack_id = "rack-1";
  a.client_id = "client-a";
  a.client_host = "/10.0.0.1";
  a.rebalance_timeout_ms = 30000;
  a.subscribed_topics = {"t"};
  a.subscribed_regex = "orders.*";
  a.server_assignor = "range";
  a.assigned = {{"t", {0, 1}}, {"orders.eu", {1}}};
  a.revoking = {{"t", {2}}};
  ConsumerMember b;
  b.member_id = "b";
  b.member_epoch = -2;
  b.subscribed_topics = {"t"};
  g.members = {a, b};
  g.target = {{"a", {{"t", {0, 1}}, {"orders.eu", {0, 1}}}}, {"b", {{"t", {2, 3, 4, 5}}}}};
  return g;
}

// Everything but assignment_sent (each member is told again after a restart).
void expect_same(const ConsumerGroupSnapshot& x, const ConsumerGroupSnapshot& y) {
  EXPECT_EQ(x.group_id, y.group_id);
  EXPECT_EQ(x.group_epoch, y.group_epoch);
  EXPECT_EQ(x.assignment_epoch, y.assignment_epoch);
  EXPECT_EQ(x.topics_seen, y.topics_seen);
  EXPECT_EQ(x.regex_topics, y.regex_topics);
  EXPECT_EQ(x.target, y.target);
  ASSERT_EQ(x.members.size(), y.members.size());
  for (size_t i = 0; i < x.members.size(); ++i) {
    const ConsumerMember& m = x.members[i];
    const ConsumerMember& n = y.members[i];
    EXPECT_EQ(std::tie(m.member_id, m.member_epoch, m.previous_member_epoch, m.state, m.instance_id, m.rack_id,
                       m.client_id, m.client_host, m.rebalance_timeout_ms, m.subscribed_topics, m.subscribed_regex,
                       m.server_assignor, m.assigned, m.revoking, m.classic),
              std::tie(n.member_id, n.member_epoch, n.previous_member_epoch, n.state, n.instance_id, n.rack_id,
                       n.client_id, n.client_host, n.rebalance_timeout_ms, n.subscribed_topics, n.subscribed_regex,
                       n.server_assignor, n.assigned, n.revoking, n.classic));
  }
}

TEST(MetaRecordsTest, ConsumerGroupRecordRoundTrips) {
  const ConsumerGroupSnapshot g = sample_consumer_group();
  EXPECT_EQ(decode_consumer_group_key(encode_consumer_group_key("orders")), "orders");
  EXPECT_FALSE(decode_consumer_group_key(encode_group_key("orders")));
  auto back = decode_consumer_group_value("orders", encode_consumer_group_value(g));
  ASSERT_TRUE(back);
  expect_same(*back, g);
}

TEST(MetaRecordsTest, ConsumerGroupRecordTruncationsLiesAndTrailingBytesAreRejected) {
  const std::string v = encode_consumer_group_value(sample_consumer_group());
  for (size_t n = 0; n < v.size(); ++n) EXPECT_FALSE(decode_consumer_group_value("g", v.substr(0, n))) << n;
  EXPECT_FALSE(decode_consumer_group_value("g", v + "x"));
  // Every u32 in the record claimed as four billion: refused, nothing reserved for it.
  for (size_t at = 1; at + 4 <= v.size(); ++at) {
    std::string lying = v;
    lying.replace(at, 4, "\xff\xff\xff\xff");
    auto decoded = decode_consumer_group_value("g", lying);
    if (decoded) {
      EXPECT_LE(decoded->members.size(), 2u);
    }
  }
  std::string bad_state = v;
  const size_t state_at = v.find(std::string("\0\0\0\x07", 4)) + 4;  // a's previous epoch, then its state
  ASSERT_EQ(bad_state[state_at], 1);
  bad_state[state_at] = 9;
  EXPECT_FALSE(decode_consumer_group_value("g", bad_state));
}

TEST(MetaRecordsTest, ConsumerGroupRecordKeepsClassicMembersAndReadsVersionZero) {
  ConsumerGroupSnapshot g = sample_consumer_group();
  g.members.at(0).classic = ClassicMemberMetadata{30000, {{"range", "sub-a"}, {"cooperative-sticky", "sub-b"}}};
  const std::string v = encode_consumer_group_value(g);
  auto back = decode_consumer_group_value("orders", v);
  ASSERT_TRUE(back);
  expect_same(*back, g);
  ASSERT_TRUE(back->members.at(0).classic);
  EXPECT_EQ(*back->members.at(0).classic, *g.members.at(0).classic);
  EXPECT_FALSE(back->members.at(1).classic);
  for (size_t n = 0; n < v.size(); ++n) EXPECT_FALSE(decode_consumer_group_value("g", v.substr(0, n))) << n;
  // A version-0 record (before classic members existed) ends after the targets.
  const std::string plain = encode_consumer_group_value(sample_consumer_group());
  std::string v0 = plain.substr(0, plain.size() - 4);  // without the classic count (0)
  v0[0] = 0;
  auto old = decode_consumer_group_value("orders", v0);
  ASSERT_TRUE(old);
  expect_same(*old, sample_consumer_group());
  EXPECT_FALSE(decode_consumer_group_value("orders", std::string(1, '\2') + plain.substr(1))) << "a future version";
}

TEST(ConsumerProtocolTest, ReadsTheSubscribedTopics) {
  auto topics = parse_subscription_topics(test::subscription({"orders", "payments"}));
  ASSERT_TRUE(topics);
  EXPECT_EQ(*topics, (std::vector<std::string>{"orders", "payments"}));
}

TEST(ConsumerProtocolTest, HostileSubscriptionsAreRejected) {
  const std::string good = test::subscription({"orders"});
  for (size_t n = 0; n < 2 + 4 + 2 + 6; ++n) EXPECT_FALSE(parse_subscription_topics(good.substr(0, n))) << n;
  EXPECT_FALSE(parse_subscription_topics(std::string("\0\0\x7f\xff\xff\xff", 6))) << "2 billion topics in 0 bytes";
  EXPECT_FALSE(parse_subscription_topics(std::string("\0\0\0\0\0\1\xff\xff", 8))) << "negative topic length";
  EXPECT_FALSE(parse_subscription_topics(std::string("\xff\xff\0\0\0\0", 6))) << "negative version";
}

}  // namespace
}  // namespace rokka::coordinator
