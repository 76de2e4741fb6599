// The group and transaction coordinators on the replication group (issue 24, plan24 S9;
// docs/cluster.md "Coordinators in the replication groups"): three build/rokka processes, a real
// etcd and g1=1,2,3. The coordinator shards are on g1, so every broker names g1's leader as the
// coordinator; a consumer group's commits are confirmed on the in-sync members before they are
// acknowledged, so after a kill -9 of the leader the member the controller elects coordinates
// the group with exactly the offsets committed, and a consumer of the group resumes from them.
// Skipped, with the reason, where etcd is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "protocol/messages/consumer_group.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "tests/integration/group_cluster.h"
#include "tests/testutil/group_consumer.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using protocol::ErrorCode;
using testutil::WireClient;

class GroupCoordinatorsTest : public testutil::GroupClusterTest {
 protected:
  // The coordinator broker `id` names for group `group` (-1: an error, e.g. none available yet).
  int32_t coordinator_from(int id, const std::string& group, int8_t key_type = 0) {
    WireClient c(broker(id).port());
    protocol::FindCoordinatorRequest req;
    req.key_type = key_type;
    req.coordinator_keys = {group};
    auto resp = c.call<protocol::FindCoordinatorResponse>(req, 4);
    return resp && resp->coordinators.size() == 1 && resp->coordinators[0].error_code == ErrorCode::kNone
               ? resp->coordinators[0].node_id
               : -1;
  }
  // OffsetFetch (v7) of `group`'s offsets of `topic` at broker `id`: partition -> offset, or
  // nullopt on any error (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...).
  std::optional<std::map<int32_t, int64_t>> fetch_offsets(int id, const std::string& group, const std::string& topic,
                                                          std::vector<int32_t> partitions) {
    WireClient c(broker(id).port());
    protocol::OffsetFetchRequest req;
    req.group_id = group;
    req.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{topic, std::move(partitions)}};
    auto resp = c.call<protocol::OffsetFetchResponse>(req, 7);
    if (!resp || resp->error_code != ErrorCode::kNone) return std::nullopt;
    std::map<int32_t, int64_t> out;
    for (const auto& t : resp->topics)
      for (const auto& p : t.partitions) {
        if (p.error_code != ErrorCode::kNone) return std::nullopt;
        out[p.partition_index] = p.committed_offset;
      }
    return out;
  }
  // DescribeTransactions of `id` at broker `id`: (state, producer id, epoch), or nullopt on an error.
  std::optional<std::tuple<std::string, int64_t, int16_t>> describe_txn(int id, const std::string& txn_id) {
    WireClient c(broker(id).port());
    protocol::DescribeTransactionsRequest req;
    req.transactional_ids = {txn_id};
    auto resp = c.call<protocol::DescribeTransactionsResponse>(req, 0);
    if (!resp || resp->transaction_states.size() != 1 || resp->transaction_states[0].error_code != ErrorCode::kNone)
      return std::nullopt;
    const auto& t = resp->transaction_states[0];
    return std::tuple{t.transaction_state, t.producer_id, t.producer_epoch};
  }
  // Waits for g1's first leader with every member in sync, and creates RF-3 `topic` (3 partitions).
  std::pair<int, int> ready(const std::string& topic) {
    std::optional<std::pair<int, int>> first;
    EXPECT_TRUE(testutil::eventually([&] { return (first = state()).has_value(); }, 30s));
    if (!first) return {-1, -1};
    const auto [leader, epoch] = *first;
    expect_roles(leader, epoch, {1, 2, 3});
    EXPECT_EQ(create_topic(leader == 1 ? 2 : 1, topic, 3, 3), ErrorCode::kNone);
    EXPECT_TRUE(testutil::eventually([&] { return sss_size() == 3; }, 60s)) << broker(leader).log_tail();
    return *first;
  }
  // kill -9 of `leader` (of `epoch`), then the member the controller elects: (leader, epoch).
  std::pair<int, int> fail_over(int leader, int epoch) {
    broker(leader).kill9();
    std::optional<std::pair<int, int>> next;
    EXPECT_TRUE(testutil::eventually(
        [&] { return (next = state()).has_value() && next->second > epoch && next->first != leader && next->first > 0; },
        60s));
    return next.value_or(std::pair{-1, -1});
  }
  void produce(int via, const std::string& topic, int from, int to) {
    testutil::TestProducer producer(broker(via).bootstrap(), {{"acks", "all"}});
    for (int i = from; i < to; ++i)
      ASSERT_EQ(producer.produce(topic, i % 3, std::nullopt, "v" + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    for (const auto& d : producer.flush(120s)) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
  }
};

TEST_F(GroupCoordinatorsTest, CommittedOffsetsFailOverWithTheGroupLeader) {
  const auto [leader, epoch] = ready("orders");
  ASSERT_FALSE(HasFailure());
  const int follower = leader == 1 ? 2 : 1;

  // Every broker names g1's leader as the coordinator of any group and transactional id (the
  // first answer may be COORDINATOR_NOT_AVAILABLE while the shards are placed).
  for (const std::string key : {"resumers", "another-group", "txn-1"}) {
    for (int id = 1; id <= 3; ++id)
      EXPECT_TRUE(testutil::eventually([&] { return coordinator_from(id, key) == leader; }, 30s))
          << "broker " << id << " names " << coordinator_from(id, key) << " for " << key << ", not " << leader;
  }

  ASSERT_NO_FATAL_FAILURE(produce(follower, "orders", 0, 30));
  {  // a classic group consumes everything and commits through the leader
    testutil::GroupConsumer consumer(broker(follower).bootstrap(), "resumers", "orders");
    std::map<int32_t, int> per_partition;
    ASSERT_TRUE(testutil::poll_all_until(
        {&consumer}, [&] { return consumer.processed().size() >= 30; }, 60s))
        << "consumed " << consumer.processed().size();
    for (const auto& p : consumer.processed()) ++per_partition[p.partition];
    EXPECT_EQ(per_partition, (std::map<int32_t, int>{{0, 10}, {1, 10}, {2, 10}}));
    ASSERT_EQ(consumer.commit_processed(), RdKafka::ERR_NO_ERROR);
    consumer.close();
  }
  const std::map<int32_t, int64_t> committed{{0, 10}, {1, 10}, {2, 10}};
  EXPECT_EQ(fetch_offsets(leader, "resumers", "orders", {0, 1, 2}), committed);

  // kill -9 of the leader: the controller elects another in-sync member.
  const int new_leader = fail_over(leader, epoch).first;
  ASSERT_GT(new_leader, 0);
  for (int id = 1; id <= 3; ++id) {
    if (id == leader) continue;
    EXPECT_TRUE(testutil::eventually([&] { return coordinator_from(id, "resumers") == new_leader; }, 60s))
        << "broker " << id << " names " << coordinator_from(id, "resumers") << ", not " << new_leader << "\n"
        << broker(id).log_tail();
  }
  // The new coordinator has exactly the offsets committed (it loads them first).
  std::optional<std::map<int32_t, int64_t>> fetched;
  EXPECT_TRUE(testutil::eventually([&] { return (fetched = fetch_offsets(new_leader, "resumers", "orders", {0, 1, 2})).has_value(); },
                                   60s))
      << broker(new_leader).log_tail();
  EXPECT_EQ(fetched, committed);
  // The other survivor is not the coordinator.
  const int other = 6 - leader - new_leader;
  EXPECT_EQ(fetch_offsets(other, "resumers", "orders", {0, 1, 2}), std::nullopt);

  // A consumer of the group resumes from the commits: only the records produced since.
  ASSERT_NO_FATAL_FAILURE(produce(other, "orders", 30, 60));
  testutil::GroupConsumer resumed(broker(other).bootstrap(), "resumers", "orders");
  ASSERT_TRUE(testutil::poll_all_until({&resumed}, [&] { return resumed.processed().size() >= 30; }, 90s))
      << "consumed " << resumed.processed().size() << "\n" << broker(new_leader).log_tail();
  std::map<int32_t, int64_t> first_offset;
  for (const auto& p : resumed.processed()) {
    first_offset.try_emplace(p.partition, p.offset);
    EXPECT_GE(std::stoi(p.value.substr(1)), 30) << p.value << " at " << p.partition << "/" << p.offset << " again";
  }
  EXPECT_EQ(first_offset, committed);
  resumed.close();
}

// A transaction's state is on the in-sync members too: the new leader describes the aborted
// transaction of the old one's producer as it was, the producer's successor is fenced in and
// commits there, and read_committed consumers read exactly the committed transactions.
TEST_F(GroupCoordinatorsTest, TransactionStateFailsOverWithTheGroupLeader) {
  const auto [leader, epoch] = ready("ledger");
  ASSERT_FALSE(HasFailure());
  const int follower = leader == 1 ? 2 : 1;
  constexpr int kTimeoutMs = 60000;
  auto ok = [](RdKafka::Error* e, const char* what) {
    std::unique_ptr<RdKafka::Error> owned(e);
    EXPECT_EQ(owned, nullptr) << what << ": " << (owned ? owned->str() : "");
  };
  auto send = [](testutil::TestProducer& p, const std::string& prefix) {
    for (int i = 0; i < 30; ++i)
      ASSERT_EQ(p.produce("ledger", i % 3, std::nullopt, prefix + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    for (auto& d : p.flush(120s)) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
  };
  std::optional<std::tuple<std::string, int64_t, int16_t>> before;
  {
    testutil::TestProducer p(broker(follower).bootstrap(), {{"transactional.id", "ledger-writer"}, {"linger.ms", "1"}});
    ok(p.handle().init_transactions(kTimeoutMs), "init_transactions");
    ok(p.handle().begin_transaction(), "begin");
    send(p, "first-");
    ok(p.handle().commit_transaction(kTimeoutMs), "commit");
    ok(p.handle().begin_transaction(), "begin");
    send(p, "aborted-");
    ok(p.handle().abort_transaction(kTimeoutMs), "abort");
    ASSERT_TRUE(testutil::eventually([&] { return (before = describe_txn(leader, "ledger-writer")).has_value(); }, 30s));
    EXPECT_EQ(std::get<0>(*before), "CompleteAbort");
  }

  const auto [new_leader, new_epoch] = fail_over(leader, epoch);
  ASSERT_GT(new_leader, 0);
  std::optional<std::tuple<std::string, int64_t, int16_t>> after;
  EXPECT_TRUE(testutil::eventually([&] { return (after = describe_txn(new_leader, "ledger-writer")).has_value(); }, 60s))
      << broker(new_leader).log_tail();
  EXPECT_EQ(after, before);

  const int other = 6 - leader - new_leader;
  {
    testutil::TestProducer p(broker(other).bootstrap(), {{"transactional.id", "ledger-writer"}, {"linger.ms", "1"}});
    ok(p.handle().init_transactions(kTimeoutMs), "init_transactions after the failover");
    ok(p.handle().begin_transaction(), "begin");
    send(p, "second-");
    ok(p.handle().commit_transaction(kTimeoutMs), "commit after the failover");
  }
  std::optional<std::tuple<std::string, int64_t, int16_t>> now = describe_txn(new_leader, "ledger-writer");
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(std::get<0>(*now), "CompleteCommit");
  EXPECT_EQ(std::get<1>(*now), std::get<1>(*before)) << "the same producer id, its epoch bumped";
  EXPECT_GT(std::get<2>(*now), std::get<2>(*before));

  for (int32_t part = 0; part < 3; ++part) {
    std::vector<std::string> expected;
    for (const char* prefix : {"first-", "second-"})
      for (int i = part; i < 30; i += 3) expected.push_back(prefix + std::to_string(i));
    auto got = testutil::consume_assigned(broker(other).bootstrap(), "ledger", {part}, 0, expected.size(), 60s,
                                          {{"isolation.level", "read_committed"}, {"group.id", "ledger-reader"}});
    std::vector<std::string> values;
    for (const auto& c : got) values.push_back(c.value.value_or(""));
    EXPECT_EQ(values, expected) << "partition " << part;
  }
}

// Coordinator shards placed on brokers (a v1 record, before the cluster had groups) keep their
// offsets in those brokers' root stores: a broker started with replication groups refuses to
// start in such a cluster, and says why.
TEST(GroupCoordinatorsRecordTest, ShardsPlacedOnBrokersRefuseAStartWithGroups) {
  if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
  testutil::TempDir dir;
  std::unique_ptr<testutil::EtcdProcess> etcd;
  std::vector<std::unique_ptr<testutil::RokkaProcess>> brokers;
  auto overrides = [&](int id) -> testutil::RokkaProcess::Overrides {
    return {{"broker.id", std::to_string(id)},
            {"rokka.cluster.etcd.endpoints", etcd->client_url()},
            {"rokka.cluster.session.timeout.ms", std::to_string(testutil::kSessionMs)}};
  };
  testutil::start_cluster(dir.path(), 1, overrides, etcd, brokers);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  auto coordinator = [&] {
    WireClient c(brokers[0]->port());
    protocol::FindCoordinatorRequest req;
    req.coordinator_keys = {"early-group"};
    auto resp = c.call<protocol::FindCoordinatorResponse>(req, 4);
    return resp && resp->coordinators.size() == 1 && resp->coordinators[0].error_code == ErrorCode::kNone
               ? resp->coordinators[0].node_id
               : -1;
  };
  ASSERT_TRUE(testutil::eventually([&] { return coordinator() == 1; }, 30s)) << brokers[0]->log_tail();
  ASSERT_EQ(brokers[0]->stop(), 0);

  auto with_groups = overrides(1);
  with_groups.emplace_back("rokka.replication.groups", "g1=1");
  with_groups.emplace_back("rokka.replication.listener", "127.0.0.1:" + std::to_string(testutil::free_port()));
  testutil::RokkaProcess grouped(dir.path() / "b1", with_groups);
  EXPECT_THROW(grouped.start(60s), std::runtime_error);
  EXPECT_NE(grouped.log_tail().find("places the coordinator shards on brokers"), std::string::npos)
      << grouped.log_tail();
}

// A KIP-848 consumer group is on the in-sync members too: after a kill -9 of the leader, the new
// coordinator describes the group as the old one did (epoch, member, assignment), has its commits,
// and takes the member's next heartbeat at the epoch it had, without a new join.
TEST_F(GroupCoordinatorsTest, AConsumerProtocolGroupFailsOverWithTheGroupLeader) {
  const auto [leader, epoch] = ready("events");
  ASSERT_FALSE(HasFailure());

  // The member's heartbeat to broker `id` (ConsumerGroupHeartbeat v1; a join at epoch 0).
  const std::string member = "member-kip848-a";
  const std::vector<std::string_view> topics{"events"};
  std::optional<std::vector<protocol::ConsumerGroupTopicPartitions>> owned;
  auto beat = [&](int id, int32_t member_epoch) {
    WireClient c(broker(id).port());
    protocol::ConsumerGroupHeartbeatRequest req;
    req.group_id = "streams";
    req.member_id = member;
    req.member_epoch = member_epoch;
    if (member_epoch == 0) {
      req.rebalance_timeout_ms = 30000;
      req.subscribed_topic_names = topics;
    }
    req.topic_partitions = owned.value_or(std::vector<protocol::ConsumerGroupTopicPartitions>{});
    return c.call<protocol::ConsumerGroupHeartbeatResponse>(req, 1);
  };
  auto describe = [&](int id) -> std::optional<protocol::ConsumerGroupDescribeResponse::DescribedGroup> {
    WireClient c(broker(id).port());
    protocol::ConsumerGroupDescribeRequest req;
    req.group_ids = {"streams"};
    auto resp = c.call<protocol::ConsumerGroupDescribeResponse>(req, 0);
    if (!resp || resp->groups.size() != 1 || resp->groups[0].error_code != ErrorCode::kNone) return std::nullopt;
    return resp->groups[0];
  };

  // Joined through the coordinator (g1's leader) and beating until it owns all three partitions.
  int32_t member_epoch = 0;
  std::optional<protocol::ConsumerGroupHeartbeatResponse> r;
  ASSERT_TRUE(testutil::eventually(
      [&] {
        r = beat(leader, member_epoch);
        if (!r || r->error_code != ErrorCode::kNone) return false;
        member_epoch = r->member_epoch;
        if (r->assignment) owned = r->assignment->topic_partitions;
        return owned && owned->size() == 1 && owned->at(0).partitions.size() == 3;
      },
      60s, 200ms))
      << (r ? static_cast<int>(r->error_code) : -1) << "\n" << broker(leader).log_tail();
  ASSERT_GT(member_epoch, 0);
  std::optional<protocol::ConsumerGroupDescribeResponse::DescribedGroup> before;
  ASSERT_TRUE(testutil::eventually([&] { return (before = describe(leader)) && before->group_state == "Stable"; }, 30s))
      << (before ? before->group_state : "no answer");

  // Commits as that member (OffsetCommit v9: member id and epoch).
  {
    WireClient c(broker(leader).port());
    protocol::OffsetCommitRequest req;
    req.group_id = "streams";
    req.generation_id_or_member_epoch = member_epoch;
    req.member_id = member;
    auto& t = req.topics.emplace_back();
    t.name = "events";
    for (int32_t p = 0; p < 3; ++p) t.partitions.push_back({.partition_index = p, .committed_offset = 5 + p});
    auto resp = c.call<protocol::OffsetCommitResponse>(req, 9);
    ASSERT_TRUE(resp && resp->topics.size() == 1);
    for (const auto& p : resp->topics[0].partitions) EXPECT_EQ(p.error_code, ErrorCode::kNone) << p.partition_index;
  }
  const std::map<int32_t, int64_t> committed{{0, 5}, {1, 6}, {2, 7}};

  const int new_leader = fail_over(leader, epoch).first;
  ASSERT_GT(new_leader, 0);
  ASSERT_TRUE(testutil::eventually([&] { return coordinator_from(new_leader, "streams") == new_leader; }, 60s));

  // The new coordinator: the same group, member and assignment, the commits, and the member's
  // heartbeat at its epoch answered without fencing it.
  std::optional<protocol::ConsumerGroupDescribeResponse::DescribedGroup> after;
  ASSERT_TRUE(testutil::eventually([&] { return (after = describe(new_leader)).has_value(); }, 60s))
      << broker(new_leader).log_tail();
  EXPECT_EQ(after->group_epoch, before->group_epoch);
  EXPECT_EQ(after->assignment_epoch, before->assignment_epoch);
  ASSERT_EQ(after->members.size(), 1u);
  EXPECT_EQ(after->members[0].member_id, member);
  EXPECT_EQ(after->members[0].member_epoch, member_epoch);
  ASSERT_EQ(after->members[0].assignment.topic_partitions.size(), 1u);
  std::vector<int32_t> partitions = after->members[0].assignment.topic_partitions[0].partitions;
  std::sort(partitions.begin(), partitions.end());
  EXPECT_EQ(partitions, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(fetch_offsets(new_leader, "streams", "events", {0, 1, 2}), committed);
  r = beat(new_leader, member_epoch);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, ErrorCode::kNone) << r->error_message.value_or("");
  EXPECT_EQ(r->member_epoch, member_epoch);
}

}  // namespace
}  // namespace rokka
