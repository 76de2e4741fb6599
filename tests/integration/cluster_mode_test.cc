// Cluster mode (docs/cluster.md): three build/rokka processes and a real etcd on loopback,
// driven by librdkafka and by raw frames. Every partition has one copy, on the broker its
// topic's placement names. Skipped, with the reason, where etcd is not installed.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "protocol/error_code.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/partition_reassignments.h"
#include "tests/cluster/etcd_process.h"
#include "tests/integration/cluster_start.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using protocol::ErrorCode;
using testutil::RokkaProcess;
using testutil::TempDir;
using testutil::WireClient;

constexpr int kSessionMs = 3000;  // the brokers' lease: a dead broker leaves the view within it

class ClusterModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    // Every broker sees the other two.
    testutil::start_cluster(dir_.path(), 3, [this](int id) { return overrides(id); }, etcd_, brokers_);
  }

  RokkaProcess::Overrides overrides(int id) const {
    return {{"broker.id", std::to_string(id)},
            {"rokka.cluster.etcd.endpoints", etcd_->client_url()},
            {"rokka.cluster.session.timeout.ms", std::to_string(kSessionMs)},
            {"num.partitions", "3"}};
  }

  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }

  static std::optional<protocol::MetadataResponse> metadata(RokkaProcess& b, std::optional<std::string> topic) {
    WireClient c(b.port());
    protocol::MetadataRequest req;
    if (topic) req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{{}, *topic}};
    req.allow_auto_topic_creation = false;
    return c.call<protocol::MetadataResponse>(req, 12);
  }
  static std::set<int32_t> live_brokers(RokkaProcess& b) {
    std::set<int32_t> out;
    if (auto md = metadata(b, std::nullopt))
      for (const auto& x : md->brokers) out.insert(x.node_id);
    return out;
  }
  // Each partition's leader as broker `b` reports it (-1 for none), empty if the topic is unknown.
  static std::vector<int32_t> leaders(RokkaProcess& b, const std::string& topic) {
    auto md = metadata(b, topic);
    std::vector<int32_t> out;
    if (!md || md->topics.size() != 1 || md->topics[0].error_code != ErrorCode::kNone) return out;
    out.resize(md->topics[0].partitions.size(), -2);
    for (const auto& p : md->topics[0].partitions) out.at(static_cast<size_t>(p.partition_index)) = p.leader_id;
    return out;
  }

  TempDir dir_;
  std::unique_ptr<testutil::EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
};

// A topic created on one broker is placed over all three, every broker reports the same
// leaders, and librdkafka producing through one broker and consuming in a group through
// another gets every record back at its acknowledged offset.
TEST_F(ClusterModeTest, TopicsSpreadOverTheBrokersAndEveryRecordComesBack) {
  testutil::KafkaAdmin admin(broker(1).bootstrap());
  ASSERT_EQ(admin.create_topic("spread", 6), RD_KAFKA_RESP_ERR_NO_ERROR);
  const auto placed = leaders(broker(1), "spread");
  ASSERT_EQ(placed.size(), 6u);
  EXPECT_EQ(std::set<int32_t>(placed.begin(), placed.end()), (std::set<int32_t>{1, 2, 3}));
  for (int id = 2; id <= 3; ++id)
    EXPECT_TRUE(testutil::eventually([&] { return leaders(broker(id), "spread") == placed; }, 30s)) << id;
  // The same name again, on another broker: taken.
  testutil::KafkaAdmin admin3(broker(3).bootstrap());
  EXPECT_EQ(admin3.create_topic("spread", 2), RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS);

  std::map<std::pair<int32_t, int64_t>, std::string> acked;
  {
    testutil::TestProducer p(broker(2).bootstrap(), {{"enable.idempotence", "true"}, {"acks", "all"}});
    for (int i = 0; i < 1200; ++i)
      ASSERT_EQ(p.produce("spread", RdKafka::Topic::PARTITION_UA, "k" + std::to_string(i), "v" + std::to_string(i)),
                RdKafka::ERR_NO_ERROR);
    for (const auto& d : p.flush(120s)) {
      ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << d.partition;
      acked[{d.partition, d.offset}] = *d.value;
    }
  }
  ASSERT_EQ(acked.size(), 1200u);
  std::map<int32_t, int64_t> per_partition;
  for (const auto& [pos, v] : acked) EXPECT_EQ(pos.second, per_partition[pos.first]++) << "offsets dense from 0";
  EXPECT_EQ(per_partition.size(), 6u);

  auto conf = testutil::make_conf({{"bootstrap.servers", broker(3).bootstrap()},
                                   {"group.id", "spread-readers"},
                                   {"auto.offset.reset", "earliest"}});
  std::string err;
  std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
  ASSERT_TRUE(c) << err;
  c->subscribe({"spread"});
  std::map<std::pair<int32_t, int64_t>, std::string> got;
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (got.size() < acked.size() && std::chrono::steady_clock::now() < deadline) {
    std::unique_ptr<RdKafka::Message> m(c->consume(200));
    if (m->err() == RdKafka::ERR_NO_ERROR)
      got[{m->partition(), m->offset()}] = std::string(static_cast<const char*>(m->payload()), m->len());
  }
  c->commitSync();
  c->close();
  EXPECT_EQ(got, acked);
}

// A broker answers NOT_LEADER_OR_FOLLOWER for a partition another broker leads, and the
// group coordinator's answer is the same from every broker; a group request sent to any
// other broker answers NOT_COORDINATOR. Producer ids from different brokers never collide.
TEST_F(ClusterModeTest, RequestsForAnotherBrokersPartitionOrGroupAreRefusedWithKafkasErrors) {
  testutil::KafkaAdmin admin(broker(2).bootstrap());
  ASSERT_EQ(admin.create_topic("routed", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  std::vector<int32_t> placed;
  ASSERT_TRUE(testutil::eventually([&] { return (placed = leaders(broker(1), "routed")).size() == 3; }, 30s));
  for (int id = 2; id <= 3; ++id)  // every broker has the topic (else UNKNOWN_TOPIC_OR_PARTITION, rightly)
    ASSERT_TRUE(testutil::eventually([&] { return leaders(broker(id), "routed") == placed; }, 30s)) << id;
  for (int32_t p = 0; p < 3; ++p) {
    for (int id = 1; id <= 3; ++id) {
      WireClient c(broker(id).port());
      protocol::ListOffsetsRequest req;
      req.topics.push_back({"routed", {{p, -1, -1, 1}}});
      auto resp = c.call<protocol::ListOffsetsResponse>(req, 7);
      ASSERT_TRUE(resp);
      const int16_t e = rokka::protocol::to_int(resp->topics.at(0).partitions.at(0).error_code);
      if (id == placed[static_cast<size_t>(p)]) {
        EXPECT_EQ(e, 0) << "partition " << p << " on its leader " << id;
      } else {
        EXPECT_EQ(e, protocol::to_int(ErrorCode::kNotLeaderOrFollower)) << "partition " << p << " asked of " << id;
      }
    }
  }

  // KIP-951: Produce v10+ and Fetch v12+ name the partition's leader (the epoch Metadata gives),
  // and v10+ / v16+ how to reach it on this listener, so the client need not ask Metadata first.
  const auto described = metadata(broker(1), "routed");
  ASSERT_TRUE(described);
  const auto& routed = described->topics.at(0);
  const auto records = testutil::make_batch({});
  for (const auto& part : routed.partitions) {
    const int32_t leader = part.leader_id;
    ASSERT_EQ(leader, placed.at(static_cast<size_t>(part.partition_index)));
    const int other = leader % 3 + 1;
    WireClient c(broker(other).port());
    auto produce = testutil::produce_request("routed", records);
    produce.topic_data[0].partition_data[0].index = part.partition_index;
    auto produced = c.call<protocol::ProduceResponse>(produce, 11);
    ASSERT_TRUE(produced);
    const auto& refused = produced->responses.at(0).partition_responses.at(0);
    EXPECT_EQ(refused.error_code, ErrorCode::kNotLeaderOrFollower);
    EXPECT_EQ(refused.current_leader.leader_id, leader) << "partition " << part.partition_index << " on " << other;
    EXPECT_EQ(refused.current_leader.leader_epoch, part.leader_epoch);
    ASSERT_EQ(produced->node_endpoints.size(), 1u);
    EXPECT_EQ(produced->node_endpoints[0].node_id, leader);
    EXPECT_EQ(produced->node_endpoints[0].host, "127.0.0.1");
    EXPECT_EQ(produced->node_endpoints[0].port, broker(leader).port());

    protocol::FetchRequest fetch;
    fetch.max_wait_ms = 0;
    auto& ft = fetch.topics.emplace_back();
    ft.topic_id = routed.topic_id;
    ft.partitions.push_back({part.partition_index, -1, 0, -1, -1, 1 << 20});
    auto fetched = c.call<protocol::FetchResponse>(fetch, 16);
    ASSERT_TRUE(fetched);
    const auto& missed = fetched->responses.at(0).partitions.at(0);
    EXPECT_EQ(missed.error_code, ErrorCode::kNotLeaderOrFollower);
    EXPECT_EQ(missed.current_leader.leader_id, leader);
    EXPECT_EQ(missed.current_leader.leader_epoch, part.leader_epoch);
    ASSERT_EQ(fetched->node_endpoints.size(), 1u);
    EXPECT_EQ(fetched->node_endpoints[0].node_id, leader);
    EXPECT_EQ(fetched->node_endpoints[0].port, broker(leader).port());
    // Its leader takes the batch, and names no other leader.
    WireClient at_leader(broker(leader).port());
    auto accepted = at_leader.call<protocol::ProduceResponse>(produce, 11);
    ASSERT_TRUE(accepted);
    EXPECT_EQ(accepted->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);
    EXPECT_EQ(accepted->responses.at(0).partition_responses.at(0).current_leader.leader_id, -1);
    EXPECT_TRUE(accepted->node_endpoints.empty());
  }

  // AlterPartitionReassignments: a partition stays where it was placed (its data does not move
  // between brokers): its own broker is accepted, any other is INVALID_REPLICA_ASSIGNMENT.
  for (const auto& part : routed.partitions) {
    WireClient c(broker(1).port());
    protocol::AlterPartitionReassignmentsRequest req;
    auto& rt = req.topics.emplace_back();
    rt.name = "routed";
    const int32_t elsewhere = part.leader_id % 3 + 1;
    rt.partitions.push_back({part.partition_index, std::vector<int32_t>{part.leader_id}});
    rt.partitions.push_back({part.partition_index, std::vector<int32_t>{elsewhere}});
    rt.partitions.push_back({part.partition_index, std::vector<int32_t>{part.leader_id, elsewhere}});
    rt.partitions.push_back({part.partition_index, std::vector<int32_t>{9}});
    auto resp = c.call<protocol::AlterPartitionReassignmentsResponse>(req, 0);
    ASSERT_TRUE(resp);
    const auto& results = resp->responses.at(0).partitions;
    ASSERT_EQ(results.size(), 4u);
    EXPECT_EQ(results[0].error_code, ErrorCode::kNone) << "partition " << part.partition_index << " on its own broker";
    for (size_t i = 1; i < 4; ++i)
      EXPECT_EQ(results[i].error_code, ErrorCode::kInvalidReplicaAssignment) << i;
  }

  // FindCoordinator: the first answer may be COORDINATOR_NOT_AVAILABLE while the shards are placed.
  auto coordinator_from = [&](int id, const std::string& group) {
    WireClient c(broker(id).port());
    protocol::FindCoordinatorRequest req;
    req.key_type = 0;
    req.coordinator_keys = {group};
    auto resp = c.call<protocol::FindCoordinatorResponse>(req, 4);
    return resp && resp->coordinators.size() == 1 && resp->coordinators[0].error_code == ErrorCode::kNone
               ? resp->coordinators[0].node_id
               : -1;
  };
  int32_t coordinator = -1;
  ASSERT_TRUE(testutil::eventually([&] { return (coordinator = coordinator_from(1, "routed-group")) > 0; }, 30s));
  for (int id = 2; id <= 3; ++id) EXPECT_EQ(coordinator_from(id, "routed-group"), coordinator);
  for (int id = 1; id <= 3; ++id) {
    WireClient c(broker(id).port());
    protocol::HeartbeatRequest hb;
    hb.group_id = "routed-group";
    hb.generation_id = 1;
    hb.member_id = "nobody";
    auto resp = c.call<protocol::HeartbeatResponse>(hb, 4);
    ASSERT_TRUE(resp);
    protocol::DescribeGroupsRequest describe;
    describe.groups = {"routed-group"};
    auto described = c.call<protocol::DescribeGroupsResponse>(describe, 5);
    ASSERT_TRUE(described);
    ASSERT_EQ(described->groups.size(), 1u);
    if (id == coordinator) {  // the group's coordinator answers for it (it knows no such member)
      EXPECT_NE(resp->error_code, ErrorCode::kNotCoordinator);
      EXPECT_NE(resp->error_code, ErrorCode::kNone);
      EXPECT_EQ(described->groups[0].error_code, ErrorCode::kNone);
    } else {
      EXPECT_EQ(resp->error_code, ErrorCode::kNotCoordinator) << id;
      EXPECT_EQ(described->groups[0].error_code, ErrorCode::kNotCoordinator) << id;
    }
  }

  std::set<int64_t> ids;
  for (int round = 0; round < 3; ++round) {
    for (int id = 1; id <= 3; ++id) {
      WireClient c(broker(id).port());
      protocol::InitProducerIdRequest req;
      auto resp = c.call<protocol::InitProducerIdResponse>(req, 4);
      ASSERT_TRUE(resp);
      ASSERT_EQ(resp->error_code, ErrorCode::kNone);
      EXPECT_TRUE(ids.insert(resp->producer_id).second) << "producer id " << resp->producer_id << " given twice";
    }
  }
}

// kill -9 of a broker: the others drop it from Metadata within twice the lease and keep
// serving their own partitions; restarted, its partitions come back with their data.
// kill -9 of the controller: another broker takes the role.
TEST_F(ClusterModeTest, AKilledBrokerLeavesAndComesBackWithItsData) {
  testutil::KafkaAdmin admin(broker(1).bootstrap());
  ASSERT_EQ(admin.create_topic("survive", 6), RD_KAFKA_RESP_ERR_NO_ERROR);
  std::vector<int32_t> placed;
  ASSERT_TRUE(testutil::eventually([&] { return (placed = leaders(broker(1), "survive")).size() == 6; }, 30s));
  {
    testutil::TestProducer p(broker(1).bootstrap(), {{"acks", "all"}});
    for (int i = 0; i < 600; ++i)
      ASSERT_EQ(p.produce("survive", i % 6, std::nullopt, "before-" + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    for (const auto& d : p.flush(120s)) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }
  auto controller = [&](int id) {
    auto md = metadata(broker(id), std::nullopt);
    return md ? md->controller_id : -1;
  };
  const int32_t first_controller = controller(1);
  ASSERT_GE(first_controller, 1);
  const int victim = first_controller == 3 ? 2 : 3;  // not the controller
  const int witness = victim == 1 ? 2 : 1;

  const auto killed_at = std::chrono::steady_clock::now();
  broker(victim).kill9();
  ASSERT_TRUE(testutil::eventually([&] { return !live_brokers(broker(witness)).count(victim); }, 30s));
  // The lease, not some later event, takes it out: within twice the lease, with room for a
  // loaded machine (etcd's expiry and the watch run on the same 2 busy cores as the tests).
  EXPECT_LE(std::chrono::steady_clock::now() - killed_at, std::chrono::milliseconds(2 * kSessionMs) + 10s)
      << "the dead broker stayed in Metadata far longer than twice its lease";
  auto md = metadata(broker(witness), "survive");
  ASSERT_TRUE(md);
  for (const auto& p : md->topics.at(0).partitions) {
    if (placed[static_cast<size_t>(p.partition_index)] == victim) {
      EXPECT_EQ(p.leader_id, -1);
      EXPECT_EQ(p.error_code, ErrorCode::kLeaderNotAvailable);
    } else {
      EXPECT_EQ(p.leader_id, placed[static_cast<size_t>(p.partition_index)]);
    }
  }
  // A dead broker's partition: no leader to elect; the others need no election.
  {
    WireClient c(broker(witness).port());
    protocol::ElectLeadersRequest req;
    req.election_type = 0;
    req.topic_partitions = std::vector<protocol::ElectLeadersRequest::TopicPartitions>{{"survive", {0, 1, 2, 3, 4, 5}}};
    auto resp = c.call<protocol::ElectLeadersResponse>(req, 1);
    ASSERT_TRUE(resp);
    for (const auto& r : resp->replica_election_results.at(0).partition_result)
      EXPECT_EQ(r.error_code, (placed[static_cast<size_t>(r.partition_id)] == victim
                                                   ? ErrorCode::kPreferredLeaderNotAvailable
                                                   : ErrorCode::kElectionNotNeeded))
          << "partition " << r.partition_id;
  }
  // A dead broker's partition: NOT_LEADER_OR_FOLLOWER names no leader (the client asks Metadata).
  for (const auto& p : md->topics.at(0).partitions) {
    if (placed[static_cast<size_t>(p.partition_index)] != victim) continue;
    WireClient c(broker(witness).port());
    const auto records = testutil::make_batch({});
    auto produce = testutil::produce_request("survive", records);
    produce.topic_data[0].partition_data[0].index = p.partition_index;
    auto refused = c.call<protocol::ProduceResponse>(produce, 11);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNotLeaderOrFollower);
    EXPECT_EQ(refused->responses.at(0).partition_responses.at(0).current_leader.leader_id, -1);
    EXPECT_TRUE(refused->node_endpoints.empty());
  }
  // The live brokers' partitions still take writes.
  {
    testutil::TestProducer p(broker(witness).bootstrap(), {{"acks", "all"}, {"message.timeout.ms", "60000"}});
    int sent = 0;
    for (int32_t part = 0; part < 6; ++part)
      if (placed[static_cast<size_t>(part)] != victim) {
        ASSERT_EQ(p.produce("survive", part, std::nullopt, "during"), RdKafka::ERR_NO_ERROR);
        ++sent;
      }
    auto& reports = p.flush(90s);
    ASSERT_EQ(static_cast<int>(reports.size()), sent);
    for (const auto& d : reports) EXPECT_EQ(d.error, RdKafka::ERR_NO_ERROR) << d.partition;
  }

  broker(victim).start(60s);
  ASSERT_TRUE(testutil::eventually([&] { return leaders(broker(witness), "survive") == placed; }, 30s));
  for (int32_t part = 0; part < 6; ++part) {
    if (placed[static_cast<size_t>(part)] != victim) continue;
    auto back = testutil::consume_assigned(broker(witness).bootstrap(), "survive", {part}, 0, 100, 60s);
    ASSERT_EQ(back.size(), 100u) << "partition " << part;
    for (size_t i = 0; i < back.size(); ++i) {
      EXPECT_EQ(back[i].offset, static_cast<int64_t>(i));
      EXPECT_EQ(*back[i].value, "before-" + std::to_string(static_cast<int>(i) * 6 + part));
    }
  }

  // The controller dies: a live broker takes over.
  broker(first_controller).kill9();
  const int other = first_controller == 1 ? 2 : 1;
  int32_t next = -1;
  ASSERT_TRUE(testutil::eventually([&] {
    next = controller(other);
    return next > 0 && next != first_controller;
  }, 30s)) << "controller still " << next;
}

// A transaction over partitions led by all three brokers: its coordinator writes the
// markers of its own partitions and sends the others' as WriteTxnMarkers, so a committed
// transaction is read by read_committed consumers on every broker and an aborted one by none.
TEST_F(ClusterModeTest, ATransactionOverPartitionsOnEveryBrokerCommitsAndAbortsEverywhere) {
  testutil::KafkaAdmin admin(broker(1).bootstrap());
  ASSERT_EQ(admin.create_topic("txn", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  std::vector<int32_t> placed;
  ASSERT_TRUE(testutil::eventually([&] { return (placed = leaders(broker(1), "txn")).size() == 3; }, 30s));
  for (int id = 2; id <= 3; ++id)
    ASSERT_TRUE(testutil::eventually([&] { return leaders(broker(id), "txn") == placed; }, 30s)) << id;
  ASSERT_EQ(std::set<int32_t>(placed.begin(), placed.end()), (std::set<int32_t>{1, 2, 3}));

  constexpr int kTimeoutMs = 60000;
  auto ok = [](RdKafka::Error* e, const char* what) {
    std::unique_ptr<RdKafka::Error> owned(e);
    EXPECT_EQ(owned, nullptr) << what << ": " << (owned ? owned->str() : "");
  };
  testutil::TestProducer p(broker(2).bootstrap(), {{"transactional.id", "across-brokers"}, {"linger.ms", "1"}});
  auto send = [&](const std::string& prefix) {
    for (int i = 0; i < 30; ++i)
      ASSERT_EQ(p.produce("txn", i % 3, std::nullopt, prefix + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    for (auto& d : p.flush(120s)) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
  };
  ok(p.handle().init_transactions(kTimeoutMs), "init_transactions");
  ok(p.handle().begin_transaction(), "begin");
  send("first-");
  ok(p.handle().commit_transaction(kTimeoutMs), "commit");
  ok(p.handle().begin_transaction(), "begin");
  send("aborted-");
  ok(p.handle().abort_transaction(kTimeoutMs), "abort");
  ok(p.handle().begin_transaction(), "begin");
  send("second-");
  ok(p.handle().commit_transaction(kTimeoutMs), "commit");

  for (int32_t part = 0; part < 3; ++part) {
    std::vector<std::string> expected;
    for (const char* prefix : {"first-", "second-"})
      for (int i = part; i < 30; i += 3) expected.push_back(prefix + std::to_string(i));
    auto got = testutil::consume_assigned(broker(3).bootstrap(), "txn", {part}, 0, expected.size(), 60s,
                                          {{"isolation.level", "read_committed"}, {"group.id", "txn-reader"}});
    std::vector<std::string> values;
    for (const auto& c : got) values.push_back(c.value.value_or(""));
    EXPECT_EQ(values, expected) << "partition " << part << " on broker " << placed[static_cast<size_t>(part)];
  }
}

// DeleteTopics on one broker removes the topic from every broker, and its committed offsets
// from its groups' coordinator; a broker whose data
// belongs to another cluster is refused at start-up with a message saying so.
TEST_F(ClusterModeTest, DeletesReachEveryBrokerAndAForeignDataDirectoryIsRefused) {
  testutil::KafkaAdmin admin(broker(1).bootstrap());
  ASSERT_EQ(admin.create_topic("doomed", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int id = 1; id <= 3; ++id)
    ASSERT_TRUE(testutil::eventually([&] { return leaders(broker(id), "doomed").size() == 3; }, 30s));
  // A group's committed offsets, kept by its coordinator (whichever broker that is).
  ASSERT_EQ(testutil::commit_offsets(broker(3).bootstrap(), "doomed-readers", "doomed", {{0, 5}, {1, 7}}, "m"),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(testutil::committed_offsets(broker(1).bootstrap(), "doomed-readers", "doomed", {0, 1})[1].offset, 7);
  testutil::KafkaAdmin admin2(broker(2).bootstrap());
  ASSERT_EQ(admin2.delete_topic("doomed"), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int id = 1; id <= 3; ++id)
    EXPECT_TRUE(testutil::eventually([&] { return leaders(broker(id), "doomed").empty(); }, 30s)) << id;
  // Created again: a new topic, without the old one's offsets.
  ASSERT_EQ(admin.create_topic("doomed", 3), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int id = 1; id <= 3; ++id)
    ASSERT_TRUE(testutil::eventually([&] { return leaders(broker(id), "doomed").size() == 3; }, 30s));
  const auto after = testutil::committed_offsets(broker(2).bootstrap(), "doomed-readers", "doomed", {0, 1});
  EXPECT_EQ(after.at(0).offset, RD_KAFKA_OFFSET_INVALID);
  EXPECT_EQ(after.at(1).offset, RD_KAFKA_OFFSET_INVALID);

  // A single broker's data directory (its own cluster id) pointed at this cluster.
  std::filesystem::create_directories(dir_ / "foreign");
  {
    RokkaProcess single(dir_ / "foreign", {{"broker.id", "9"}});
    single.start(60s);
    EXPECT_EQ(single.stop(), 0);
  }
  auto o = overrides(9);
  RokkaProcess foreign(dir_ / "foreign", o);
  EXPECT_THROW(foreign.start(60s), std::runtime_error);
  EXPECT_NE(foreign.log_tail().find("belongs to cluster"), std::string::npos) << foreign.log_tail();
}

}  // namespace
}  // namespace rokka
