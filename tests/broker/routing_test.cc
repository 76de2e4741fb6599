// Where a partition lives as Metadata describes it (broker/handlers/routing.h): a partition
// of an RF-1 topic on its placed broker, and a partition in a replication group's store with
// the group's members as replicas, its synchronous replica set as ISR, the state's epoch, its
// leader only while the incarnation the state names is registered, and the members not
// registered as offline. The picture is built from a ClusterView group as cluster_link does.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "broker/handlers/routing.h"
#include "broker/link/cluster_link.h"
#include "protocol/error_code.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using broker::ClusterBroker;
using broker::ClusterPicture;
using broker::PartitionLoc;
using broker::PartitionPlace;
using broker::StoreSet;
using protocol::ErrorCode;
using Partition = protocol::MetadataResponse::MetadataResponsePartition;

constexpr int32_t kSelf = 1;

// Brokers by id with their registrations' epochs (create revisions).
std::map<int32_t, ClusterBroker> registered(std::map<int32_t, int64_t> epochs) {
  std::map<int32_t, ClusterBroker> out;
  for (auto [id, epoch] : epochs) out[id] = ClusterBroker{id, epoch, {}, std::nullopt};
  return out;
}

cluster::GroupInfo group_info(std::vector<int32_t> members, cluster::GroupState state) {
  cluster::GroupInfo g;
  g.name = "g1";
  g.spec = cluster::GroupSpec{std::move(members)};
  g.spec_mod_revision = 5;
  g.state = std::move(state);
  g.state_mod_revision = 9;
  return g;
}

class RoutingTest : public ::testing::Test {
 protected:
  RoutingTest() {
    auto s = storage::Store::open({.dir = dir_.path()});
    if (!s.ok()) throw std::runtime_error(s.status().to_string());
    store_ = std::move(s).value();
    // Only the slots' names matter here: slot 1 is group g1's store.
    stores_.add("root", *store_, dir_.path());
    stores_.add("g1", *store_, dir_.path());
    // Partition 0 is an RF-1 partition placed on broker 3; partition 1 lives in g1's store.
    topic_.name = "t";
    topic_.partitions = {PartitionLoc{broker::kRootSlot, 0}, PartitionLoc{1, 0}};
    topic_.leaders = {3, 3};
  }
  ~RoutingTest() override { (void)store_->close(); }

  // The picture of a cluster where `brokers` are registered and g1 = 1,2,3 has `state`.
  std::shared_ptr<ClusterPicture> picture(std::map<int32_t, int64_t> brokers, cluster::GroupState state) const {
    auto p = std::make_shared<ClusterPicture>();
    p->brokers = registered(std::move(brokers));
    p->groups.emplace("g1", broker::picture_group(group_info({1, 2, 3}, std::move(state)), p->brokers));
    return p;
  }

  Partition describe(const ClusterPicture* p, int32_t index) const {
    Partition out;
    broker::describe_place(out, broker::place_of(p, stores_, kSelf, topic_, index));
    return out;
  }

  testutil::TempDir dir_;
  std::unique_ptr<storage::Store> store_;
  StoreSet stores_;
  broker::Topic topic_;
};

TEST_F(RoutingTest, GroupPartitionHasTheGroupsReplicasIsrEpochAndLeader) {
  const auto p = picture({{1, 100}, {2, 200}, {3, 300}},
                         {.leader = 2, .leader_broker_epoch = 200, .epoch = 7, .sss = {2, 3}, .sss_version = 4});
  const Partition out = describe(p.get(), 1);
  EXPECT_EQ(out.error_code, ErrorCode::kNone);
  EXPECT_EQ(out.leader_id, 2);
  EXPECT_EQ(out.leader_epoch, 7);
  EXPECT_EQ(out.replica_nodes, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(out.isr_nodes, (std::vector<int32_t>{2, 3}));
  EXPECT_TRUE(out.offline_replicas.empty());
}

TEST_F(RoutingTest, GroupMembersNotRegisteredAreOffline) {
  const auto p = picture({{1, 100}, {2, 200}},
                         {.leader = 1, .leader_broker_epoch = 100, .epoch = 3, .sss = {1, 2, 3}, .sss_version = 1});
  const Partition out = describe(p.get(), 1);
  EXPECT_EQ(out.error_code, ErrorCode::kNone);
  EXPECT_EQ(out.leader_id, 1);
  EXPECT_EQ(out.isr_nodes, (std::vector<int32_t>{1, 2, 3}));  // the state's, until the leader shrinks it
  EXPECT_EQ(out.offline_replicas, (std::vector<int32_t>{3}));
}

// A leader that restarted since it was named (a new registration, a new broker epoch) is not
// the leader: no leader until the controller names one, as Kafka answers for an offline partition.
TEST_F(RoutingTest, GroupLeaderRegisteredAsAnotherIncarnationIsLeaderNotAvailable) {
  const auto p = picture({{1, 100}, {2, 250}, {3, 300}},
                         {.leader = 2, .leader_broker_epoch = 200, .epoch = 7, .sss = {2, 3}, .sss_version = 4});
  const Partition out = describe(p.get(), 1);
  EXPECT_EQ(out.error_code, ErrorCode::kLeaderNotAvailable);
  EXPECT_EQ(out.leader_id, -1);
  EXPECT_EQ(out.leader_epoch, 7);
  EXPECT_EQ(out.replica_nodes, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_TRUE(out.offline_replicas.empty());
}

TEST_F(RoutingTest, GroupLeaderDownOrNoneNamedIsLeaderNotAvailable) {
  const auto down = picture({{1, 100}, {3, 300}},
                            {.leader = 2, .leader_broker_epoch = 200, .epoch = 7, .sss = {2}, .sss_version = 4});
  Partition out = describe(down.get(), 1);
  EXPECT_EQ(out.error_code, ErrorCode::kLeaderNotAvailable);
  EXPECT_EQ(out.leader_id, -1);
  EXPECT_EQ(out.offline_replicas, (std::vector<int32_t>{2}));

  const auto none = picture({{1, 100}, {2, 200}, {3, 300}},
                            {.leader = cluster::kNoLeader, .leader_broker_epoch = 0, .epoch = 8, .sss = {2}});
  out = describe(none.get(), 1);
  EXPECT_EQ(out.error_code, ErrorCode::kLeaderNotAvailable);
  EXPECT_EQ(out.leader_id, -1);
  EXPECT_EQ(out.leader_epoch, 8);
}

// The RF-1 partition beside it is described as before: its placed broker, epoch 0.
TEST_F(RoutingTest, RootStorePartitionStaysOnItsPlacedBroker) {
  auto p = picture({{1, 100}, {2, 200}, {3, 300}},
                   {.leader = 2, .leader_broker_epoch = 200, .epoch = 7, .sss = {2, 3}, .sss_version = 4});
  Partition out = describe(p.get(), 0);
  EXPECT_EQ(out.error_code, ErrorCode::kNone);
  EXPECT_EQ(out.leader_id, 3);
  EXPECT_EQ(out.leader_epoch, broker::kLeaderEpoch);
  EXPECT_EQ(out.replica_nodes, (std::vector<int32_t>{3}));
  EXPECT_EQ(out.isr_nodes, (std::vector<int32_t>{3}));

  p->brokers.erase(3);
  out = describe(p.get(), 0);
  EXPECT_EQ(out.error_code, ErrorCode::kLeaderNotAvailable);
  EXPECT_EQ(out.leader_id, -1);
  EXPECT_EQ(out.offline_replicas, (std::vector<int32_t>{3}));
}

// A single broker (no picture) leads every partition, whatever store holds it.
TEST_F(RoutingTest, SingleBrokerLeadsEveryPartition) {
  for (int32_t index : {0, 1}) {
    const PartitionPlace place = broker::place_of(nullptr, stores_, kSelf, topic_, index);
    EXPECT_EQ(place.broker, kSelf);
    EXPECT_TRUE(place.live);
    EXPECT_EQ(place.leader_epoch, broker::kLeaderEpoch);
    EXPECT_EQ(place.group, nullptr);
  }
}

// KIP-392's rack-aware choice at a group partition's leader (broker 1, rack r1): a consumer in
// another rack is sent to the in-sync member registered in that rack; to nobody (-1) when the
// selector is off, the client names no rack, the leader is in its rack, or no registered
// in-sync member is.
class PreferredReadReplicaTest : public ::testing::Test {
 protected:
  PreferredReadReplicaTest() {
    for (auto [id, rack] : std::vector<std::pair<int32_t, const char*>>{{1, "r1"}, {2, "r2"}, {3, "r3"}})
      picture_.brokers[id] = ClusterBroker{id, 100 * id, {}, std::string(rack)};
    group_.members = {1, 2, 3};
    group_.leader = 1;
    group_.epoch = 4;
    group_.sss = {1, 2, 3};
  }
  int32_t choose(std::string_view selector, std::string_view client_rack) const {
    return broker::preferred_read_replica(selector, client_rack, 1, group_, picture_);
  }
  static constexpr std::string_view kRackAware = broker::kRackAwareReplicaSelector;
  ClusterPicture picture_;
  broker::ClusterGroup group_;
};

TEST_F(PreferredReadReplicaTest, ConsumerInAFollowersRackReadsFromIt) {
  EXPECT_EQ(choose(kRackAware, "r2"), 2);
  EXPECT_EQ(choose(kRackAware, "r3"), 3);
}

TEST_F(PreferredReadReplicaTest, SelectorOffOrNoClientRackReadsFromTheLeader) {
  EXPECT_EQ(choose("", "r2"), -1);
  EXPECT_EQ(choose("org.apache.kafka.common.replica.LeaderSelector", "r2"), -1);
  EXPECT_EQ(choose(kRackAware, ""), -1);
}

TEST_F(PreferredReadReplicaTest, ConsumerInTheLeadersRackReadsFromTheLeader) {
  picture_.brokers[2].rack = "r1";  // a follower shares the leader's rack: the leader still serves
  EXPECT_EQ(choose(kRackAware, "r1"), -1);
}

TEST_F(PreferredReadReplicaTest, OnlyRegisteredInSyncMembersOfTheRackAreChosen) {
  EXPECT_EQ(choose(kRackAware, "r9"), -1);  // no broker in that rack
  group_.sss = {1, 3};                      // 2 left the synchronous replica set
  EXPECT_EQ(choose(kRackAware, "r2"), -1);
  group_.sss = {1, 2, 3};
  picture_.brokers.erase(2);  // 2 is down
  EXPECT_EQ(choose(kRackAware, "r2"), -1);
  picture_.brokers[4] = ClusterBroker{4, 400, {}, std::string("r3")};  // not a member: never chosen
  picture_.brokers.erase(3);
  EXPECT_EQ(choose(kRackAware, "r3"), -1);
  picture_.brokers[2] = ClusterBroker{2, 200, {}, std::nullopt};  // no broker.rack
  EXPECT_EQ(choose(kRackAware, "r2"), -1);
}

TEST_F(PreferredReadReplicaTest, FirstInSyncMemberOfTheRackIsChosen) {
  picture_.brokers[2].rack = "r3";
  group_.sss = {1, 3, 2};
  EXPECT_EQ(choose(kRackAware, "r3"), 3);
}

}  // namespace
}  // namespace rokka
