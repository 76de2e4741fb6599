// rokka.max.partitions.per.topic: librdkafka refuses a topic with more than 100,000 partitions,
// so by default no topic may grow past that; CreateTopics and CreatePartitions above the limit
// answer INVALID_PARTITIONS with the reason, at the limit they succeed.
#include <gtest/gtest.h>

#include "broker/config/config.h"
#include "protocol/error_code.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

constexpr protocol::ErrorCode kInvalidPartitions = protocol::ErrorCode::kInvalidPartitions;

protocol::CreateTopicsResponse::CreatableTopicResult create(WireClient& c, std::string_view name, int32_t partitions,
                                                            int32_t cid) {
  protocol::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  req.timeout_ms = 60000;
  c.send(req, 4, cid);
  auto resp = c.receive<protocol::CreateTopicsResponse>(4, cid);
  EXPECT_TRUE(resp);
  return resp ? resp->topics.at(0) : protocol::CreateTopicsResponse::CreatableTopicResult{};
}

protocol::CreatePartitionsResponse::CreatePartitionsTopicResult grow(WireClient& c, std::string_view name,
                                                                     int32_t count, int32_t cid) {
  protocol::CreatePartitionsRequest req;
  req.topics.push_back({name, count, std::nullopt});
  req.timeout_ms = 60000;
  c.send(req, 1, cid);
  auto resp = c.receive<protocol::CreatePartitionsResponse>(1, cid);
  EXPECT_TRUE(resp);
  return resp ? resp->results.at(0) : protocol::CreatePartitionsResponse::CreatePartitionsTopicResult{};
}

size_t partitions_in_metadata(WireClient& c, std::string_view name, int32_t cid) {
  protocol::MetadataRequest req;
  req.topics.emplace();
  req.topics->push_back({{}, name});
  req.allow_auto_topic_creation = false;
  c.send(req, 9, cid);
  auto resp = c.receive<protocol::MetadataResponse>(9, cid);
  return resp && !resp->topics.empty() && resp->topics[0].error_code == ErrorCode::kNone ? resp->topics[0].partitions.size() : 0;
}

TEST(PartitionLimitTest, TheDefaultIsLibrdkafkasHundredThousand) {
  auto config = broker::load_config("", {});
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->max_partitions_per_topic, 100000);
}

TEST(PartitionLimitTest, CreateTopicsAboveTheLimitIsInvalidPartitionsAndCreatesNothing) {
  InProcessBroker b(InProcessBroker::Overrides{{"rokka.max.partitions.per.topic", "50"}});
  WireClient c(b.port());
  auto over = create(c, "over", 51, 1);
  EXPECT_EQ(over.error_code, kInvalidPartitions);
  EXPECT_NE(over.error_message.value_or("").find("rokka.max.partitions.per.topic=50"), std::string::npos)
      << over.error_message.value_or("(none)");
  EXPECT_EQ(partitions_in_metadata(c, "over", 2), 0u);
  auto at = create(c, "at", 50, 3);
  EXPECT_EQ(at.error_code, ErrorCode::kNone) << at.error_message.value_or("");
  EXPECT_EQ(partitions_in_metadata(c, "at", 4), 50u);
}

TEST(PartitionLimitTest, CreatePartitionsPastTheLimitIsInvalidPartitionsAndKeepsTheCount) {
  InProcessBroker b(InProcessBroker::Overrides{{"rokka.max.partitions.per.topic", "50"}});
  WireClient c(b.port());
  ASSERT_EQ(create(c, "t", 10, 1).error_code, ErrorCode::kNone);
  auto over = grow(c, "t", 51, 2);
  EXPECT_EQ(over.error_code, kInvalidPartitions);
  EXPECT_NE(over.error_message.value_or("").find("rokka.max.partitions.per.topic=50"), std::string::npos);
  EXPECT_EQ(partitions_in_metadata(c, "t", 3), 10u);
  EXPECT_EQ(grow(c, "t", 50, 4).error_code, ErrorCode::kNone);
  EXPECT_EQ(partitions_in_metadata(c, "t", 5), 50u);
}

TEST(PartitionLimitTest, NumPartitionsAboveTheLimitIsRefusedAtStart) {
  auto config = broker::load_config("num.partitions=200\nrokka.max.partitions.per.topic=100\n", {});
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().to_string().find("rokka.max.partitions.per.topic"), std::string::npos);
  EXPECT_FALSE(broker::load_config("rokka.max.partitions.per.topic=1000001\n", {}).ok());
}

}  // namespace
}  // namespace rokka
