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
