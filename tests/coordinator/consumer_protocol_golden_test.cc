// The coordinator's consumer-protocol reader and writer (coordinator/consumer_protocol.h)
// against the golden frames generated from Kafka's own schemas
// (tests/protocol/golden/ConsumerProtocol{Subscription,Assignment}.golden, gen.py): every
// field it reads is the field Kafka's schema puts there, at every version, and every
// strict prefix of a frame is refused.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "coordinator/consumer_protocol.h"
#include "tests/protocol/golden_support.h"

namespace rokka::coordinator {
namespace {

using protocol::GoldenCase;
using protocol::GoldenFile;

std::string_view as_view(const std::vector<std::byte>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// "[n]" -> n.
size_t count_of(const std::string& token) { return std::stoul(token.substr(1, token.size() - 2)); }

// The golden frame's partitions under `prefix` ("OwnedPartitions", "AssignedPartitions").
TopicPartitionsMap partitions_in(const GoldenCase& g, const std::string& prefix) {
  TopicPartitionsMap out;
  const size_t n = count_of(g.at(prefix));
  for (size_t i = 0; i < n; ++i) {
    const std::string at = prefix + "." + std::to_string(i);
    auto& partitions = out[g.at(at + ".Topic").substr(2)];  // "s:<topic>"
    const size_t m = count_of(g.at(at + ".Partitions"));
    for (size_t j = 0; j < m; ++j) partitions.push_back(std::stoi(g.at(at + ".Partitions." + std::to_string(j))));
  }
  return out;
}

TEST(ConsumerProtocolGoldenTest, SubscriptionsReadAsKafkasSchemaWritesThemAtEveryVersion) {
  const GoldenFile golden = GoldenFile::load("ConsumerProtocolSubscription");
  ASSERT_EQ(golden.max_version(), 3) << "a new version of Kafka's schema: teach the coordinator's reader";
  for (int16_t v = 0; v <= 3; ++v) {
    for (const char* variant : {"full", "null"}) {
      SCOPED_TRACE("v" + std::to_string(v) + " " + variant);
      const GoldenCase* g = golden.find(v, variant);
      ASSERT_NE(g, nullptr);
      const auto sub = parse_subscription(as_view(g->frame));
      ASSERT_TRUE(sub);
      EXPECT_EQ(sub->version, v);
      EXPECT_EQ(subscription_version(as_view(g->frame)), v);
      std::vector<std::string> topics;
      for (size_t i = 0; i < count_of(g->at("Topics")); ++i) topics.push_back(g->at("Topics." + std::to_string(i)).substr(2));
      EXPECT_EQ(sub->topics, topics);
      EXPECT_EQ(parse_subscription_topics(as_view(g->frame)), topics);
      EXPECT_EQ(sub->owned, v >= 1 ? partitions_in(*g, "OwnedPartitions") : TopicPartitionsMap{});
      EXPECT_EQ(sub->generation_id, v >= 2 ? std::stoi(g->at("GenerationId")) : -1);
      const std::string rack = v >= 3 ? g->at("RackId") : "null";
      EXPECT_EQ(sub->rack_id, rack == "null" ? std::nullopt : std::optional<std::string>(rack.substr(2)));
      for (size_t n = 0; n < g->frame.size(); ++n) {
        ASSERT_FALSE(parse_subscription(as_view(g->frame).substr(0, n))) << "prefix of " << n << " bytes";
      }
    }
  }
}

TEST(ConsumerProtocolGoldenTest, AssignmentsReadAndWriteAsKafkasSchemaAtEveryVersion) {
  const GoldenFile golden = GoldenFile::load("ConsumerProtocolAssignment");
  ASSERT_EQ(golden.max_version(), 3) << "a new version of Kafka's schema: teach the coordinator's reader";
  for (int16_t v = 0; v <= 3; ++v) {
    for (const char* variant : {"full", "null"}) {
      SCOPED_TRACE("v" + std::to_string(v) + " " + variant);
      const GoldenCase* g = golden.find(v, variant);
      ASSERT_NE(g, nullptr);
      const auto assigned = parse_assignment(as_view(g->frame));
      ASSERT_TRUE(assigned);
      EXPECT_EQ(*assigned, partitions_in(*g, "AssignedPartitions"));
      // The coordinator writes null user data: the "null" frame (one topic) byte for byte.
      if (std::string_view(variant) == "null") {
        EXPECT_EQ(encode_assignment(*assigned, v), as_view(g->frame));
      }
      for (size_t n = 1; n < g->frame.size(); ++n) {  // "" is a member never assigned anything
        ASSERT_FALSE(parse_assignment(as_view(g->frame).substr(0, n))) << "prefix of " << n << " bytes";
      }
    }
  }
}

TEST(ConsumerProtocolGoldenTest, ANewerVersionReadsAsTheNewestKnownIgnoringTrailingFields) {
  const GoldenFile golden = GoldenFile::load("ConsumerProtocolSubscription");
  const GoldenCase* g = golden.find(3, "full");
  ASSERT_NE(g, nullptr);
  std::string bytes(as_view(g->frame));
  const auto v3 = parse_subscription(bytes);
  ASSERT_TRUE(v3);
  bytes[1] = 9;            // claim version 9
  bytes += "\x01\x02\x03";  // a field v9 added
  const auto v9 = parse_subscription(bytes);
  ASSERT_TRUE(v9);
  EXPECT_EQ(v9->version, 9);
  EXPECT_EQ(v9->topics, v3->topics);
  EXPECT_EQ(v9->owned, v3->owned);
  EXPECT_EQ(v9->generation_id, v3->generation_id);
  bytes[1] = 3;  // at a known version, trailing bytes are malformed
  EXPECT_FALSE(parse_subscription(bytes));
}

}  // namespace
}  // namespace rokka::coordinator
