// DescribeLogDirs (35) and DescribeProducers (61) on the wire against an in-process
// broker: the sizes and producers kafka-log-dirs.sh and kafka-transactions.sh show,
// Kafka's errors, authorization, and hostile frames.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/create_acls.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_producers.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using protocol::DescribeLogDirsRequest;
using protocol::DescribeLogDirsResponse;
using protocol::DescribeProducersRequest;
using protocol::DescribeProducersResponse;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr rokka::protocol::ErrorCode kUnknownTopicOrPartition = rokka::protocol::ErrorCode::kUnknownTopicOrPartition;
constexpr rokka::protocol::ErrorCode kInvalidTopic = rokka::protocol::ErrorCode::kInvalidTopicException;
constexpr rokka::protocol::ErrorCode kTopicAuthorizationFailed = rokka::protocol::ErrorCode::kTopicAuthorizationFailed;
constexpr rokka::protocol::ErrorCode kClusterAuthorizationFailed = rokka::protocol::ErrorCode::kClusterAuthorizationFailed;

void produce(WireClient& c, std::string_view topic, int32_t partition, const std::vector<std::byte>& batch) {
  protocol::ProduceRequest req = testutil::produce_request(topic, batch);
  req.topic_data[0].partition_data[0].index = partition;
  auto r = c.call<protocol::ProduceResponse>(req, 9);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);
}

// partition index -> size, per topic, from the one log directory of the answer.
std::map<std::string, std::map<int32_t, int64_t>> sizes(const DescribeLogDirsResponse& r) {
  std::map<std::string, std::map<int32_t, int64_t>> out;
  if (r.results.size() != 1) return out;
  for (const auto& t : r.results[0].topics)
    for (const auto& p : t.partitions) out[t.name][p.partition_index] = p.partition_size;
  return out;
}

DescribeLogDirsRequest topics_request(std::vector<DescribeLogDirsRequest::DescribableLogDirTopic> topics) {
  DescribeLogDirsRequest req;
  req.topics = std::move(topics);
  return req;
}

TEST(DescribeLogDirsTest, SizesAreTheProducedBatchesPerPartition) {
  InProcessBroker b;
  testutil::KafkaAdmin admin(b.bootstrap());
  ASSERT_EQ(admin.create_topic("sizes", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(admin.create_topic("other", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(b.port());
  const auto small = testutil::make_batch({.records = 4, .value_bytes = 200});
  const auto big = testutil::make_batch({.records = 2, .value_bytes = 5000});
  produce(c, "sizes", 0, small);
  produce(c, "sizes", 0, big);
  produce(c, "sizes", 2, small);
  produce(c, "other", 0, big);

  for (int16_t v = 0; v <= 4; ++v) {
    SCOPED_TRACE("v" + std::to_string(v));
    auto r = c.call<DescribeLogDirsResponse>(DescribeLogDirsRequest{}, v);  // null topics: everything
    ASSERT_TRUE(r);
    EXPECT_EQ(r->error_code, ErrorCode::kNone);
    ASSERT_EQ(r->results.size(), 1u);
    const auto& dir = r->results[0];
    EXPECT_EQ(dir.error_code, ErrorCode::kNone);
    EXPECT_EQ(std::filesystem::path(dir.log_dir), std::filesystem::absolute(b.data_dir()).lexically_normal());
    const std::map<std::string, std::map<int32_t, int64_t>> expected = {
        {"other", {{0, static_cast<int64_t>(big.size())}}},
        {"sizes", {{0, static_cast<int64_t>(small.size() + big.size())}, {1, 0}, {2, static_cast<int64_t>(small.size())}}}};
    EXPECT_EQ(sizes(*r), expected);
    for (const auto& t : dir.topics)
      for (const auto& p : t.partitions) {
        EXPECT_EQ(p.offset_lag, 0);
        EXPECT_FALSE(p.is_future_key);
      }
    if (v >= 4) {
      EXPECT_GT(dir.total_bytes, 0);
      EXPECT_GE(dir.total_bytes, dir.usable_bytes);
      EXPECT_GE(dir.usable_bytes, 0);
    }
  }

  // Named partitions only; unknown topics, unknown partitions and empty partition lists
  // are left out, as Kafka does.
  auto r = c.call<DescribeLogDirsResponse>(topics_request({{"sizes", {2, 7}}, {"nope", {0}}, {"other", {}}}), 4);
  ASSERT_TRUE(r);
  const std::map<std::string, std::map<int32_t, int64_t>> expected = {{"sizes", {{2, static_cast<int64_t>(small.size())}}}};
  EXPECT_EQ(sizes(*r), expected);
  r = c.call<DescribeLogDirsResponse>(topics_request({{"nope", {0}}}), 4);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_TRUE(r->results[0].topics.empty());
}

void deny(WireClient& c, int8_t resource_type, std::string_view name, int8_t operation) {
  protocol::CreateAclsRequest req;
  req.creations.push_back({resource_type, name, 3, "User:ANONYMOUS", "*", operation, 2});
  auto r = c.call<protocol::CreateAclsResponse>(req, 3);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->results.at(0).error_code, ErrorCode::kNone);
}

TEST(DescribeLogDirsTest, WithoutClusterDescribeTheAnswerIsEmptyWithClusterAuthorizationFailed) {
  InProcessBroker b(testutil::kAuthorizerAllowingUncovered);
  testutil::KafkaAdmin admin(b.bootstrap());
  ASSERT_EQ(admin.create_topic("t", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(b.port());
  deny(c, /*CLUSTER*/ 4, "kafka-cluster", /*DESCRIBE*/ 8);
  for (int16_t v : {1, 3, 4}) {
    auto r = c.call<DescribeLogDirsResponse>(DescribeLogDirsRequest{}, v);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->results.empty());
    if (v >= 3) {
      EXPECT_EQ(r->error_code, kClusterAuthorizationFailed);
    }
  }
}

TEST(DescribeLogDirsTest, HostileFramesCloseTheConnection) {
  InProcessBroker b;
  {
    WireClient c(b.port());  // v1: a topic count of 2^31-1 with nothing behind it
    c.send_raw(WireClient::frame(protocol::ApiKey::kDescribeLogDirs, 1, 1, testutil::bytes_of({0x7f, 0xff, 0xff, 0xff})));
    EXPECT_TRUE(c.closed_by_peer());
  }
  {
    WireClient c(b.port());  // v2 (flexible): a compact count of 1,000,001 topics
    c.send_raw(WireClient::frame(protocol::ApiKey::kDescribeLogDirs, 2, 1, testutil::bytes_of({0xc2, 0x84, 0x3d})));
    EXPECT_TRUE(c.closed_by_peer());
  }
  WireClient c(b.port());  // and the broker still answers
  EXPECT_TRUE(c.call<DescribeLogDirsResponse>(DescribeLogDirsRequest{}, 4));
}

// ---- DescribeProducers

DescribeProducersRequest producers_request(std::string_view topic, std::vector<int32_t> partitions) {
  DescribeProducersRequest req;
  req.topics.push_back({topic, std::move(partitions)});
  return req;
}

void expect_ok(RdKafka::Error* e, const char* what) {
  std::unique_ptr<RdKafka::Error> owned(e);
  ASSERT_EQ(owned, nullptr) << what << ": " << (owned ? owned->str() : "");
}

TEST(DescribeProducersTest, IdempotentAndTransactionalProducersAreListedWithTheirOpenTransaction) {
  InProcessBroker b;
  testutil::KafkaAdmin admin(b.bootstrap());
  ASSERT_EQ(admin.create_topic("prod", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(b.port());
  // A plain batch (no producer id) on partition 1 first: producers are per partition.
  produce(c, "prod", 1, testutil::make_batch({.records = 3}));

  testutil::TestProducer idem(b.bootstrap(), {{"enable.idempotence", "true"}, {"linger.ms", "0"}});
  for (int i = 0; i < 5; ++i) ASSERT_EQ(idem.produce("prod", 0, std::nullopt, "v" + std::to_string(i)), RdKafka::ERR_NO_ERROR);
  for (const auto& d : idem.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);

  testutil::TestProducer txn(b.bootstrap(), {{"transactional.id", "tx-a"}, {"linger.ms", "0"}});
  expect_ok(txn.handle().init_transactions(30000), "init_transactions");
  expect_ok(txn.handle().begin_transaction(), "begin_transaction");
  ASSERT_EQ(txn.produce("prod", 1, std::nullopt, "in-txn"), RdKafka::ERR_NO_ERROR);
  for (const auto& d : txn.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);

  auto r = c.call<DescribeProducersResponse>(producers_request("prod", {0, 1}), 0);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 1u);
  EXPECT_EQ(r->topics[0].name, "prod");
  ASSERT_EQ(r->topics[0].partitions.size(), 2u);
  const auto& p0 = r->topics[0].partitions[0];
  const auto& p1 = r->topics[0].partitions[1];
  EXPECT_EQ(p0.partition_index, 0);
  EXPECT_EQ(p0.error_code, ErrorCode::kNone);
  ASSERT_EQ(p0.active_producers.size(), 1u);
  const auto& idem_state = p0.active_producers[0];
  EXPECT_GE(idem_state.producer_id, 0);
  EXPECT_EQ(idem_state.producer_epoch, 0);
  EXPECT_EQ(idem_state.last_sequence, 4);  // five records, sequences 0-4
  EXPECT_EQ(idem_state.current_txn_start_offset, -1);
  EXPECT_GT(idem_state.last_timestamp, 0);

  EXPECT_EQ(p1.partition_index, 1);
  ASSERT_EQ(p1.active_producers.size(), 1u);
  const auto& txn_state = p1.active_producers[0];
  EXPECT_NE(txn_state.producer_id, idem_state.producer_id);
  EXPECT_EQ(txn_state.last_sequence, 0);
  EXPECT_EQ(txn_state.current_txn_start_offset, 3);  // after the three plain records

  expect_ok(txn.handle().commit_transaction(30000), "commit_transaction");
  r = c.call<DescribeProducersResponse>(producers_request("prod", {1}), 0);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.at(0).partitions.at(0).active_producers.size(), 1u);
  EXPECT_EQ(r->topics[0].partitions[0].active_producers[0].current_txn_start_offset, -1);
}

TEST(DescribeProducersTest, BadTopicsAndPartitionsGetKafkasErrors) {
  InProcessBroker b(testutil::kAuthorizerAllowingUncovered);
  testutil::KafkaAdmin admin(b.bootstrap());
  ASSERT_EQ(admin.create_topic("known", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(admin.create_topic("secret", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(b.port());
  deny(c, /*TOPIC*/ 2, "secret", /*READ*/ 3);

  DescribeProducersRequest req;
  req.topics.push_back({"known", {0, 5, -1}});
  req.topics.push_back({"missing", {0}});
  req.topics.push_back({"bad name!", {0}});
  req.topics.push_back({"secret", {0}});
  auto r = c.call<DescribeProducersResponse>(req, 0);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 4u);
  ASSERT_EQ(r->topics[0].partitions.size(), 3u);
  EXPECT_EQ(r->topics[0].partitions[0].error_code, ErrorCode::kNone);
  EXPECT_TRUE(r->topics[0].partitions[0].active_producers.empty());
  EXPECT_EQ(r->topics[0].partitions[1].error_code, kUnknownTopicOrPartition);
  EXPECT_EQ(r->topics[0].partitions[1].partition_index, 5);
  EXPECT_EQ(r->topics[0].partitions[2].error_code, kUnknownTopicOrPartition);
  EXPECT_EQ(r->topics[1].partitions.at(0).error_code, kUnknownTopicOrPartition);
  EXPECT_EQ(r->topics[2].name, "bad name!");
  EXPECT_EQ(r->topics[2].partitions.at(0).error_code, kInvalidTopic);
  EXPECT_TRUE(r->topics[2].partitions.at(0).error_message.has_value());
  EXPECT_EQ(r->topics[3].partitions.at(0).error_code, kTopicAuthorizationFailed);
}

TEST(DescribeProducersTest, HostileFramesCloseTheConnection) {
  InProcessBroker b;
  {
    WireClient c(b.port());  // a compact count of 1,000,001 topics with nothing behind it
    c.send_raw(WireClient::frame(protocol::ApiKey::kDescribeProducers, 0, 1, testutil::bytes_of({0xc2, 0x84, 0x3d})));
    EXPECT_TRUE(c.closed_by_peer());
  }
  {
    WireClient c(b.port());  // one topic, then the body ends inside its name
    c.send_raw(WireClient::frame(protocol::ApiKey::kDescribeProducers, 0, 1, testutil::bytes_of({0x02, 0x10, 'a', 'b'})));
    EXPECT_TRUE(c.closed_by_peer());
  }
  WireClient c(b.port());
  auto r = c.call<DescribeProducersResponse>(producers_request("absent", {0}), 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->topics.at(0).partitions.at(0).error_code, kUnknownTopicOrPartition);
}

}  // namespace
}  // namespace rokka
