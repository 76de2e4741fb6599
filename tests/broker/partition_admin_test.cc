// ElectLeaders (43), AlterPartitionReassignments (45) and ListPartitionReassignments
// (46) on one broker: what kafka-leader-election.sh and kafka-reassign-partitions.sh
// get, with Kafka's error codes for what one broker cannot do and for bad input.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/create_acls.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/partition_reassignments.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using protocol::AlterPartitionReassignmentsRequest;
using protocol::AlterPartitionReassignmentsResponse;
using protocol::ElectLeadersRequest;
using protocol::ElectLeadersResponse;
using protocol::ListPartitionReassignmentsRequest;
using protocol::ListPartitionReassignmentsResponse;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr rokka::protocol::ErrorCode kUnknownTopicOrPartition = rokka::protocol::ErrorCode::kUnknownTopicOrPartition;
constexpr rokka::protocol::ErrorCode kClusterAuthorizationFailed = rokka::protocol::ErrorCode::kClusterAuthorizationFailed;
constexpr rokka::protocol::ErrorCode kInvalidReplicaAssignment = rokka::protocol::ErrorCode::kInvalidReplicaAssignment;
constexpr rokka::protocol::ErrorCode kInvalidRequest = rokka::protocol::ErrorCode::kInvalidRequest;
constexpr rokka::protocol::ErrorCode kElectionNotNeeded = rokka::protocol::ErrorCode::kElectionNotNeeded;
constexpr rokka::protocol::ErrorCode kNoReassignmentInProgress = rokka::protocol::ErrorCode::kNoReassignmentInProgress;

class PartitionAdminTest : public ::testing::Test {
 protected:
  explicit PartitionAdminTest(InProcessBroker::Overrides o = {{"broker.id", "7"}}) : b_(std::move(o)) {
    testutil::KafkaAdmin admin(b_.bootstrap());
    EXPECT_EQ(admin.create_topic("alpha", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
    EXPECT_EQ(admin.create_topic("beta", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  InProcessBroker b_;
  WireClient c_{b_.port()};
};

TEST_F(PartitionAdminTest, ElectLeadersIsNeverNeededAndUnknownPartitionsAreNamed) {
  for (int16_t v = 0; v <= 2; ++v) {
    for (int8_t type : {0, 1}) {
      if (v == 0 && type == 1) continue;  // v0 has no election type
      SCOPED_TRACE("v" + std::to_string(v) + " type " + std::to_string(type));
      ElectLeadersRequest req;
      req.election_type = type;
      req.topic_partitions.emplace();
      req.topic_partitions->push_back({"alpha", {0, 1, 2}});
      req.topic_partitions->push_back({"ghost", {0}});
      auto r = c_.call<ElectLeadersResponse>(req, v);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->error_code, ErrorCode::kNone);
      ASSERT_EQ(r->replica_election_results.size(), 2u);
      const auto& alpha = r->replica_election_results[0];
      EXPECT_EQ(alpha.topic, "alpha");
      ASSERT_EQ(alpha.partition_result.size(), 3u);
      EXPECT_EQ(alpha.partition_result[0].error_code, kElectionNotNeeded);
      EXPECT_EQ(alpha.partition_result[1].error_code, kElectionNotNeeded);
      EXPECT_EQ(alpha.partition_result[2].partition_id, 2);
      EXPECT_EQ(alpha.partition_result[2].error_code, kUnknownTopicOrPartition);
      EXPECT_TRUE(alpha.partition_result[2].error_message.has_value());
      EXPECT_EQ(r->replica_election_results[1].partition_result.at(0).error_code, kUnknownTopicOrPartition);
    }
  }
}

TEST_F(PartitionAdminTest, ElectLeadersForEveryPartitionListsTheTopicsWithNothingElected) {
  auto r = c_.call<ElectLeadersResponse>(ElectLeadersRequest{}, 2);  // null: every partition
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, ErrorCode::kNone);
  ASSERT_EQ(r->replica_election_results.size(), 2u);
  EXPECT_EQ(r->replica_election_results[0].topic, "alpha");
  EXPECT_EQ(r->replica_election_results[1].topic, "beta");
  for (const auto& t : r->replica_election_results) EXPECT_TRUE(t.partition_result.empty()) << t.topic;
}

TEST_F(PartitionAdminTest, AnUnknownElectionTypeIsAnInvalidRequestForEveryPartition) {
  ElectLeadersRequest req;
  req.election_type = 5;
  req.topic_partitions.emplace();
  req.topic_partitions->push_back({"alpha", {0}});
  auto r = c_.call<ElectLeadersResponse>(req, 1);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, kInvalidRequest);
  EXPECT_EQ(r->replica_election_results.at(0).partition_result.at(0).error_code, kInvalidRequest);
}

TEST_F(PartitionAdminTest, ReassigningToThisBrokerSucceedsAndAnyOtherPlacementIsRefused) {
  using Partition = AlterPartitionReassignmentsRequest::ReassignablePartition;
  AlterPartitionReassignmentsRequest req;
  req.topics.push_back({"alpha",
                        {Partition{0, std::vector<int32_t>{7}},     // where it is: nothing to do
                         Partition{1, std::vector<int32_t>{7, 8}},  // a second broker that does not exist
                         Partition{1, std::vector<int32_t>{}},      // no replica
                         Partition{1, std::vector<int32_t>{7, 7}},  // a broker twice
                         Partition{0, std::nullopt},                // cancel: nothing in progress
                         Partition{9, std::vector<int32_t>{7}}}});
  req.topics.push_back({"ghost", {Partition{0, std::vector<int32_t>{7}}}});
  auto r = c_.call<AlterPartitionReassignmentsResponse>(req, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, ErrorCode::kNone);
  ASSERT_EQ(r->responses.size(), 2u);
  const auto& parts = r->responses[0].partitions;
  ASSERT_EQ(parts.size(), 6u);
  EXPECT_EQ(parts[0].error_code, ErrorCode::kNone);
  EXPECT_FALSE(parts[0].error_message.has_value());
  EXPECT_EQ(parts[1].error_code, kInvalidReplicaAssignment);
  ASSERT_TRUE(parts[1].error_message.has_value());
  EXPECT_NE(parts[1].error_message->find("8"), std::string::npos) << *parts[1].error_message;
  EXPECT_EQ(parts[2].error_code, kInvalidReplicaAssignment);
  EXPECT_EQ(parts[3].error_code, kInvalidReplicaAssignment);
  EXPECT_EQ(parts[4].error_code, kNoReassignmentInProgress);
  EXPECT_EQ(parts[5].error_code, kUnknownTopicOrPartition);
  EXPECT_EQ(r->responses[1].partitions.at(0).error_code, kUnknownTopicOrPartition);

  // Nothing moved, so nothing is in progress, whichever topics are asked about.
  auto listed = c_.call<ListPartitionReassignmentsResponse>(ListPartitionReassignmentsRequest{}, 0);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->error_code, ErrorCode::kNone);
  EXPECT_TRUE(listed->topics.empty());
  ListPartitionReassignmentsRequest named;
  named.topics.emplace();
  named.topics->push_back({"alpha", {0, 1}});
  named.topics->push_back({"ghost", {0}});
  listed = c_.call<ListPartitionReassignmentsResponse>(named, 0);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->error_code, ErrorCode::kNone);
  EXPECT_TRUE(listed->topics.empty());
}

class PartitionAdminDeniedTest : public PartitionAdminTest {
 protected:
  PartitionAdminDeniedTest()
      : PartitionAdminTest(testutil::kAuthorizerAllowingUncovered) {
    protocol::CreateAclsRequest req;  // DENY ALTER (4) and DESCRIBE (8) on the cluster (4)
    req.creations.push_back({4, "kafka-cluster", 3, "User:ANONYMOUS", "*", 4, 2});
    req.creations.push_back({4, "kafka-cluster", 3, "User:ANONYMOUS", "*", 8, 2});
    auto r = c_.call<protocol::CreateAclsResponse>(req, 3);
    EXPECT_TRUE(r && r->results.size() == 2 && r->results[0].error_code == ErrorCode::kNone && r->results[1].error_code == ErrorCode::kNone);
  }
};

TEST_F(PartitionAdminDeniedTest, WithoutClusterAlterOrDescribeEachCallIsClusterAuthorizationFailed) {
  ElectLeadersRequest elect;
  elect.topic_partitions.emplace();
  elect.topic_partitions->push_back({"alpha", {0}});
  auto e = c_.call<ElectLeadersResponse>(elect, 2);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->error_code, kClusterAuthorizationFailed);
  EXPECT_EQ(e->replica_election_results.at(0).partition_result.at(0).error_code, kClusterAuthorizationFailed);

  AlterPartitionReassignmentsRequest alter;
  alter.topics.push_back({"alpha", {{0, std::vector<int32_t>{0}}}});
  auto a = c_.call<AlterPartitionReassignmentsResponse>(alter, 0);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error_code, kClusterAuthorizationFailed);
  EXPECT_EQ(a->responses.at(0).partitions.at(0).error_code, kClusterAuthorizationFailed);

  auto l = c_.call<ListPartitionReassignmentsResponse>(ListPartitionReassignmentsRequest{}, 0);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->error_code, kClusterAuthorizationFailed);
}

TEST(PartitionAdminHostileTest, HugeCountsAndTruncatedBodiesCloseTheConnection) {
  InProcessBroker b;
  const std::vector<std::pair<protocol::ApiKey, std::vector<std::byte>>> frames = {
      // ElectLeaders v1: election type, then 2^31-1 topics with nothing behind them.
      {protocol::ApiKey::kElectLeaders, testutil::bytes_of({0, 0x7f, 0xff, 0xff, 0xff})},
      // AlterPartitionReassignments v0 (flexible): timeout, then a compact count of 1,000,001.
      {protocol::ApiKey::kAlterPartitionReassignments, testutil::bytes_of({0, 0, 0, 0, 0xc2, 0x84, 0x3d})},
      // ListPartitionReassignments v0: timeout, one topic, then the body ends inside its name.
      {protocol::ApiKey::kListPartitionReassignments, testutil::bytes_of({0, 0, 0, 0, 0x02, 0x10, 'a'})},
  };
  for (const auto& [key, body] : frames) {
    SCOPED_TRACE(static_cast<int>(key));
    WireClient c(b.port());
    c.send_raw(WireClient::frame(key, key == protocol::ApiKey::kElectLeaders ? 1 : 0, 1, body));
    EXPECT_TRUE(c.closed_by_peer());
  }
  WireClient c(b.port());  // still serving
  EXPECT_TRUE(c.call<ListPartitionReassignmentsResponse>(ListPartitionReassignmentsRequest{}, 0));
}

}  // namespace
}  // namespace rokka
