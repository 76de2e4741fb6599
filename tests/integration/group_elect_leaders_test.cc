// ElectLeaders on a replication group's partitions (issue 24, plan24 S10; docs/cluster.md "Elections
// an operator asks for"): three build/rokka processes, a real etcd and g1=1,2,3. The group's lead is
// moved off broker 1 (the spec's first member) by writing the state as the controller would; then
// ElectLeaders PREFERRED on a partition of an RF-3 topic moves it back to broker 1 at a new epoch:
// every broker's Metadata names broker 1, an acks=all produce succeeds there, and every batch
// acknowledged before is still there, byte for byte, at its offset. Asked again, PREFERRED and
// UNCLEAN answer ELECTION_NOT_NEEDED. Skipped, with the reason, where etcd is not installed.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/integration/group_cluster.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"
#include "wire/record_batch_layout.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using protocol::ErrorCode;
using testutil::WireClient;

class GroupElectLeadersTest : public testutil::GroupClusterTest {
 protected:
  using Listed = std::vector<std::pair<int32_t, ErrorCode>>;  // (partition, its error)

  // ElectLeaders (v2) through broker `id`, for `partitions` of `topic` or, with nullopt, every
  // partition (a null list): each partition listed under `topic` and its error. nullopt when there
  // is no answer, a top-level error, `topic` is not listed, or named partitions come back under
  // more topics than the one asked for.
  std::optional<Listed> elect_listed(int id, int8_t type, const std::string& topic,
                                     std::optional<std::vector<int32_t>> partitions) {
    WireClient c(broker(id).port());
    protocol::ElectLeadersRequest req;
    req.election_type = type;
    if (partitions)
      req.topic_partitions = std::vector<protocol::ElectLeadersRequest::TopicPartitions>{{topic, *partitions}};
    auto resp = c.call<protocol::ElectLeadersResponse>(req, 2);
    if (!resp || resp->error_code != ErrorCode::kNone) return std::nullopt;
    if (partitions && resp->replica_election_results.size() != 1) return std::nullopt;
    for (const auto& t : resp->replica_election_results) {
      if (t.topic != topic) continue;
      Listed out;
      for (const auto& p : t.partition_result) {
        out.emplace_back(p.partition_id, p.error_code);
        if (p.error_message) messages_ += *p.error_message + "\n";
      }
      return out;
    }
    return std::nullopt;
  }
  // The named partitions' errors, in order.
  std::vector<ErrorCode> elect(int id, int8_t type, const std::string& topic, std::vector<int32_t> partitions) {
    std::vector<ErrorCode> out;
    if (auto listed = elect_listed(id, type, topic, std::move(partitions)))
      for (const auto& [partition, error] : *listed) out.push_back(error);
    return out;
  }
  std::optional<Listed> elect_all(int id, int8_t type, const std::string& topic) {
    return elect_listed(id, type, topic, std::nullopt);
  }

  // One batch (acks=all) to partition 0 of `topic` through broker `id`: (error, base offset).
  std::pair<ErrorCode, int64_t> produce(int id, const std::string& topic, const std::vector<std::byte>& batch) {
    return produce_batch(id, topic, 0, batch, -1, 10000);
  }

  // Produces `batch` through `id` until it is served (the leader found and ready); its base offset.
  int64_t produce_acked(int id, const std::string& topic, const std::vector<std::byte>& batch) {
    std::pair<ErrorCode, int64_t> a;
    const bool ok = testutil::eventually([&] { return (a = produce(id, topic, batch)).first == ErrorCode::kNone; }, 30s);
    EXPECT_TRUE(ok) << "broker " << id << ": error " << static_cast<int>(a.first) << "\n" << broker(id).log_tail();
    return ok ? a.second : -1;
  }

  // Partition 0 of `topic` read from broker `id` from offset 0, once its high watermark is `hw`.
  std::vector<std::byte> read_all(int id, const std::string& topic, int64_t hw) {
    std::vector<std::byte> out;
    const bool ok = testutil::eventually(
        [&] {
          WireClient c(broker(id).port());
          auto f = c.call<protocol::FetchResponse>(fetch_request(topic, 0, 0), 12);
          if (!f || f->responses.empty() || f->responses[0].partitions.empty()) return false;
          const auto& p = f->responses[0].partitions[0];
          if (p.error_code != ErrorCode::kNone || p.high_watermark != hw || !p.records.data) return false;
          out.assign(p.records.data->begin(), p.records.data->end());
          return true;
        },
        30s);
    EXPECT_TRUE(ok) << "broker " << id << " did not serve " << topic << " up to " << hw;
    return out;
  }

  // Every broker's group store takes the role the state gives at `epoch` (the data is checked
  // through Fetch below; expect_roles' comparison of whole files waits for more than that).
  void wait_roles(int leader, int epoch) {
    for (int id = 1; id <= 3; ++id) {
      const std::pair<std::string, int> want{id == leader ? "leader" : "follower", epoch};
      EXPECT_TRUE(testutil::eventually([&] { return testutil::group_role(broker(id)) == want; }, 30s))
          << "broker " << id << ": " << testutil::group_role(broker(id)).first << "\n" << broker(id).log_tail();
    }
  }

  std::string messages_;  // the ElectLeaders answers' messages, for failures
};

TEST_F(GroupElectLeadersTest, APreferredElectionReturnsTheLeadToTheSpecsFirstMemberAndLosesNothing) {
  std::pair<int, int> settled;
  ASSERT_NO_FATAL_FAILURE(wait_settled(settled));
  int leader = settled.first;
  int epoch = settled.second;

  {
    auto r = create_topic(3, {.name = "el", .num_partitions = 1, .replication_factor = 3});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->error_code, ErrorCode::kNone) << r->error_message.value_or("");
  }
  // Acknowledged batches, by base offset.
  std::vector<std::pair<int64_t, std::vector<std::byte>>> acked;
  auto send = [&](int id, uint8_t fill) {
    std::vector<std::byte> batch = testutil::make_batch({.records = 2, .fill = fill});
    const int64_t at = produce_acked(id, "el", batch);
    ASSERT_GE(at, 0);
    acked.emplace_back(at, std::move(batch));
  };
  ASSERT_NO_FATAL_FAILURE(send(leader, 0x71));

  // The lead off broker 1 (the spec's first member): the state names broker 2 at a new epoch.
  if (leader == 1) {
    ASSERT_NO_FATAL_FAILURE(name_leader(2, epoch + 1));
    leader = 2;
    epoch += 1;
    ASSERT_NO_FATAL_FAILURE(wait_roles(leader, epoch));
  }
  ASSERT_NO_FATAL_FAILURE(send(leader, 0x72));
  ASSERT_NO_FATAL_FAILURE(send(leader, 0x73));
  ASSERT_TRUE(testutil::eventually([&] { return sss_size() == 3; }, 60s)) << broker(leader).log_tail();

  // PREFERRED through a broker that does not lead: el-0 elected, an unknown partition refused.
  const std::vector<ErrorCode> answers = elect(3, 0, "el", {0, 5});
  ASSERT_EQ(answers, (std::vector<ErrorCode>{ErrorCode::kNone, ErrorCode::kUnknownTopicOrPartition})) << messages_;
  const auto after = state();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->first, 1);
  EXPECT_GT(after->second, epoch);
  const int new_epoch = after->second;
  ASSERT_NO_FATAL_FAILURE(wait_roles(1, new_epoch));
  for (int id = 1; id <= 3; ++id) {
    SCOPED_TRACE("Metadata from broker " + std::to_string(id));
    std::optional<protocol::MetadataResponse> md;
    EXPECT_TRUE(testutil::eventually(
        [&] {
          md = metadata(id, "el");
          return md && md->topics.size() == 1 && md->topics[0].partitions.size() == 1 &&
                 md->topics[0].partitions[0].leader_id == 1 && md->topics[0].partitions[0].leader_epoch == new_epoch;
        },
        30s));
  }

  // Asked again: nothing to do, preferred or unclean.
  messages_.clear();
  EXPECT_EQ(elect(2, 0, "el", {0}), std::vector<ErrorCode>{ErrorCode::kElectionNotNeeded}) << messages_;
  EXPECT_EQ(elect(1, 1, "el", {0}), std::vector<ErrorCode>{ErrorCode::kElectionNotNeeded}) << messages_;
  // Every partition asked for (a null list): the topic is listed without the partition that needed
  // nothing, as Kafka's controller answers.
  EXPECT_EQ(elect_all(3, 0, "el"), std::optional<Listed>(Listed{})) << messages_;

  // Broker 1 takes acks=all at the next offset, and every acknowledged batch is there, byte for
  // byte from the CRC on (its base offset and leader epoch are the broker's), at its offset.
  ASSERT_NO_FATAL_FAILURE(send(1, 0x74));
  for (size_t i = 0; i < acked.size(); ++i) EXPECT_EQ(acked[i].first, static_cast<int64_t>(2 * i)) << "batch " << i;
  const std::vector<std::byte> log = read_all(1, "el", static_cast<int64_t>(2 * acked.size()));
  size_t at = 0;
  for (const auto& [base, batch] : acked) {
    SCOPED_TRACE("batch at offset " + std::to_string(base));
    ASSERT_LE(at + batch.size(), log.size());
    EXPECT_EQ(wire::load_be<int64_t>(log.data() + at + wire::batch::kBaseOffset), base);
    EXPECT_EQ(std::memcmp(log.data() + at + wire::batch::kCrc, batch.data() + wire::batch::kCrc,
                          batch.size() - wire::batch::kCrc),
              0);
    at += batch.size();
  }
  EXPECT_EQ(at, log.size());

  // The lead off broker 1 once more; a null list moves it back, and names el-0 as elected.
  ASSERT_NO_FATAL_FAILURE(name_leader(2, new_epoch + 1));
  ASSERT_NO_FATAL_FAILURE(wait_roles(2, new_epoch + 1));
  ASSERT_TRUE(testutil::eventually([&] { return sss_size() == 3; }, 60s)) << broker(2).log_tail();
  messages_.clear();
  EXPECT_EQ(elect_all(2, 0, "el"), std::optional<Listed>(Listed{{0, ErrorCode::kNone}})) << messages_;
  const auto back = state();
  ASSERT_TRUE(back);
  EXPECT_EQ(back->first, 1);
  EXPECT_GT(back->second, new_epoch + 1);
  ASSERT_NO_FATAL_FAILURE(wait_roles(1, back->second));
  ASSERT_NO_FATAL_FAILURE(send(1, 0x75));
  EXPECT_EQ(acked.back().first, static_cast<int64_t>(2 * (acked.size() - 1)));
}

}  // namespace
}  // namespace rokka
