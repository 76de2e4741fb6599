// Metadata and routing of a replicated topic's partitions (issue 24, plan24 S6; docs/cluster.md
// "The broker in cluster mode", Routing): three build/rokka processes, a real etcd and g1=1,2,3. A
// topic of replication factor 3 lives in g1's store; every broker's Metadata describes its
// partitions from the group's state -- replicas the members, ISR the state's synchronous replica
// set, the state's leader and epoch -- and only the leader takes writes: the followers answer
// Produce NOT_LEADER_OR_FOLLOWER naming the leader at the state's epoch (KIP-951) and serve no
// consumer fetch older than v11 (newer ones: follower_fetch_test.cc), and a
// current_leader_epoch other than the state's is fenced (older) or unknown (newer). Skipped, with
// the reason, where etcd is not installed.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/integration/group_cluster.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using protocol::ErrorCode;
using testutil::WireClient;

// The group's state as the test read it from etcd.
struct StateSeen {
  int leader = -1;
  int epoch = -1;
  std::vector<int32_t> sss;
};

class GroupRoutingTest : public testutil::GroupClusterTest {
 protected:
  std::optional<StateSeen> state_seen() {
    auto kv = get(std::string(testutil::kRoot) + "/groups/g1/state");
    if (!kv) return std::nullopt;
    rapidjson::Document d;
    d.Parse(kv->first.c_str());
    if (!d.IsObject() || !d.HasMember("leader") || !d.HasMember("epoch") || !d.HasMember("sss") || !d["sss"].IsArray())
      return std::nullopt;
    StateSeen out{d["leader"].GetInt(), d["epoch"].GetInt(), {}};
    for (const auto& m : d["sss"].GetArray()) out.sss.push_back(m.GetInt());
    return out;
  }

  // Produce v10 of one batch of 3 records to partition 0 of `topic` through broker `id`, acks=1.
  std::optional<protocol::ProduceResponse> produce(int id, const std::string& topic) {
    WireClient c(broker(id).port());
    const auto batch = testutil::make_batch({.records = 3, .value_bytes = 40, .fill = 0x5c});
    return c.call<protocol::ProduceResponse>(produce_request(topic, 0, batch, 1, 10000), 10);
  }

  // Fetch (v12 unless `version` says) of partition 0 of `topic` from offset 0 through broker `id`.
  std::optional<protocol::FetchResponse> fetch(int id, const std::string& topic, int32_t current_leader_epoch,
                                              int16_t version = 12) {
    WireClient c(broker(id).port());
    return c.call<protocol::FetchResponse>(fetch_request(topic, 0, 0, current_leader_epoch), version);
  }
};

TEST_F(GroupRoutingTest, MetadataAndRoutingOfAGroupTopicFollowTheGroupState) {
  // Once every member is in sync: the ISR checked below is the state's, read once.
  std::pair<int, int> settled;
  ASSERT_NO_FATAL_FAILURE(wait_settled(settled));
  const std::optional<StateSeen> seen = state_seen();
  ASSERT_TRUE(seen);
  const int leader = seen->leader;
  const int follower = leader == 1 ? 2 : 1;

  {
    auto r = create_topic(follower, {.name = "rf3", .num_partitions = 2, .replication_factor = 3});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->error_code, ErrorCode::kNone) << r->error_message.value_or("");
  }
  for (int id = 1; id <= 3; ++id) {
    SCOPED_TRACE("Metadata from broker " + std::to_string(id));
    std::optional<protocol::MetadataResponse> md;
    ASSERT_TRUE(testutil::eventually(
        [&] {
          md = metadata(id, "rf3");
          return md && md->topics.size() == 1 && md->topics[0].error_code == ErrorCode::kNone &&
                 md->topics[0].partitions.size() == 2;
        },
        30s))
        << broker(id).log_tail();
    for (const auto& p : md->topics[0].partitions) {
      EXPECT_EQ(p.error_code, ErrorCode::kNone);
      EXPECT_EQ(p.leader_id, leader);
      EXPECT_EQ(p.leader_epoch, seen->epoch);
      EXPECT_EQ(p.replica_nodes, (std::vector<int32_t>{1, 2, 3}));
      EXPECT_EQ(p.isr_nodes, seen->sss);
      EXPECT_TRUE(p.offline_replicas.empty());
    }
  }

  // The leader takes the batch.
  std::optional<protocol::ProduceResponse> led;
  ASSERT_TRUE(testutil::eventually(
      [&] {
        led = produce(leader, "rf3");
        return led && led->responses.at(0).partition_responses.at(0).error_code == ErrorCode::kNone;
      },
      30s))
      << broker(leader).log_tail();
  EXPECT_EQ(led->responses.at(0).partition_responses.at(0).base_offset, 0);

  // The followers refuse it, naming the leader at the group's epoch and where it listens.
  for (int id = 1; id <= 3; ++id) {
    if (id == leader) continue;
    SCOPED_TRACE("Produce to follower " + std::to_string(id));
    const auto r = produce(id, "rf3");
    ASSERT_TRUE(r);
    const auto& p = r->responses.at(0).partition_responses.at(0);
    EXPECT_EQ(p.error_code, ErrorCode::kNotLeaderOrFollower);
    EXPECT_EQ(p.current_leader.leader_id, leader);
    EXPECT_EQ(p.current_leader.leader_epoch, seen->epoch);
    ASSERT_EQ(r->node_endpoints.size(), 1u);
    EXPECT_EQ(r->node_endpoints[0].node_id, leader);
    EXPECT_EQ(r->node_endpoints[0].port, broker(leader).port());

    // A consumer fetch without client metadata (before v11) is the leader's alone; from v11 on an
    // in-sync follower may serve it (KIP-392, follower_fetch_test.cc).
    const auto f = fetch(id, "rf3", -1, 10);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->responses.at(0).partitions.at(0).error_code, ErrorCode::kNotLeaderOrFollower);
  }

  // Fetch from the leader at the state's epoch: the batch, once the in-sync followers hold it (the high
  // watermark reaches 3); an older epoch is fenced, a newer one unknown.
  std::optional<protocol::FetchResponse> f;
  EXPECT_TRUE(testutil::eventually(
      [&] {
        f = fetch(leader, "rf3", seen->epoch);
        return f && f->responses.at(0).partitions.at(0).high_watermark == 3;
      },
      30s));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->responses.at(0).partitions.at(0).error_code, ErrorCode::kNone);
  EXPECT_FALSE(f->responses.at(0).partitions.at(0).records.data->empty());
  f = fetch(leader, "rf3", seen->epoch - 1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->responses.at(0).partitions.at(0).error_code, ErrorCode::kFencedLeaderEpoch);
  f = fetch(leader, "rf3", seen->epoch + 1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->responses.at(0).partitions.at(0).error_code, ErrorCode::kUnknownLeaderEpoch);
}

}  // namespace
}  // namespace rokka
