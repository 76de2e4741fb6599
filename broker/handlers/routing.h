// Which broker serves what. On a single broker this one leads every partition and coordinates
// every group; in cluster mode (broker/link/cluster_link.h) a partition is led by the broker its
// topic's placement names, a group or transactional id by its coordinator shard's broker.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/handlers/handler_util.h"
#include "broker/link/cluster_group.h"
#include "broker/net/request_context.h"
#include "broker/services.h"
#include "broker/meta/topic_registry.h"
#include "protocol/error_code.h"
#include "protocol/messages/leader_hint.h"

namespace rokka::broker {

struct ClusterPicture;

struct BrokerAddress {
  int32_t id = -1;
  std::string host;
  int32_t port = -1;
  std::optional<std::string> rack;
};

// Where partition `index` of `t` lives. A partition of an RF-1 topic: its broker, whether
// that broker is alive, epoch kLeaderEpoch. A partition in a replication group's store (its
// PartitionLoc's slot is not the root's): `group` (the picture's, alive as long as the
// PartitionPlaces that answered), the group's leader as `broker` (-1 while it has none:
// docs/cluster.md "Roles from the group state") and the state's epoch.
struct PartitionPlace {
  int32_t broker = -1;
  bool live = false;
  int32_t leader_epoch = kLeaderEpoch;
  const ClusterGroup* group = nullptr;
};
// Where partition `index` of `t` lives by `picture` (nullptr on a single broker, where `self`
// leads every partition); `stores` names each slot's store (a group's store: the group).
PartitionPlace place_of(const ClusterPicture* picture, const StoreSet& stores, int32_t self, const Topic& t,
                        int32_t index);
// Where the partitions of a request's topics live, reading the cluster's picture once (not per
// partition: a Metadata request may describe a million of them).
class PartitionPlaces {
 public:
  explicit PartitionPlaces(const Services& svc);
  PartitionPlace of(const Topic& t, int32_t index) const;

 private:
  const Services& svc_;
  std::shared_ptr<const ClusterPicture> picture_;  // null on a single broker
};

// Fills a Metadata-style partition entry from where the partition lives. RF 1: its broker as
// leader and only replica, or, when that broker is down, no leader (LEADER_NOT_AVAILABLE, as
// Kafka answers for an offline partition) and the broker in offline_replicas. A group's
// partition: the group's members as replicas, its synchronous replica set as ISR, the members
// not registered as offline, and its leader, or LEADER_NOT_AVAILABLE while it has none.
template <typename Partition>
void describe_place(Partition& p, const PartitionPlace& place) {
  p.leader_epoch = place.leader_epoch;
  if (place.group != nullptr) {
    p.replica_nodes = place.group->members;
    p.isr_nodes = place.group->sss;
    p.offline_replicas = place.group->offline;
    p.leader_id = place.broker;
    if (!place.live) p.error_code = protocol::ErrorCode::kLeaderNotAvailable;
    return;
  }
  p.replica_nodes = {place.broker};
  if (place.live) {
    p.leader_id = place.broker;
    p.isr_nodes = {place.broker};
  } else {
    p.error_code = protocol::ErrorCode::kLeaderNotAvailable;
    p.leader_id = -1;
    p.offline_replicas = {place.broker};
  }
}

// The current-leader hint (KIP-951) for partitions answered NOT_LEADER_OR_FOLLOWER: the
// partition's live broker as leader, and the endpoints of the leaders named, on the request's
// listener. No hint (the default) when the partition's broker is down or is this one (a fenced
// broker knows no better leader): the client then refreshes its metadata. Reads the cluster's
// picture at the first hint only, so a request with no such partition pays nothing.
class LeaderHints {
 public:
  explicit LeaderHints(const RequestContext& ctx) : ctx_(ctx) {}
  protocol::LeaderIdAndEpoch hint(const Topic& t, int32_t index);
  std::vector<protocol::NodeEndpoint> endpoints() const;

 private:
  const RequestContext& ctx_;
  std::optional<PartitionPlaces> places_;
  std::vector<int32_t> named_;  // distinct, in first-named order
};

// kNone when this broker may act as the partition's leader now, else NOT_LEADER_OR_FOLLOWER
// (another broker leads it, or this broker's cluster lease may have ended). A partition of a
// replication group's store: this broker's member of the group leads it, in the epoch the
// group's state names, and this broker is not fenced. `leader_epoch`, when given, is set to
// the epoch led (kLeaderEpoch for an RF-1 partition).
protocol::ErrorCode check_leader(const Services& svc, const Topic& t, int32_t index, int32_t* leader_epoch = nullptr);

// resolve_partition_if(), then check_leader(): the partition, if this broker may serve it,
// with the epoch it leads in PartitionRef::leader_epoch.
PartitionRef resolve_led_partition(const Services& svc, bool allowed, const TopicPtr& topic, int32_t index);

// check_leader(), but for a consumer's read (Fetch with no replica id): a replication group's
// follower may serve it too (KIP-392), up to its high watermark (the leader's confirmed
// position as the replication stream brought it), when it follows the epoch the group's state
// names and is in the state's synchronous replica set. A follower outside that set answers
// NOT_LEADER_OR_FOLLOWER, sending the client back to the leader, which never names it.
// `follower` says whether the read is a follower's; `leader_epoch` is the epoch followed then.
protocol::ErrorCode check_readable(const Services& svc, const Topic& t, int32_t index, int32_t* leader_epoch,
                                   bool* follower);
// resolve_partition_if(), then check_readable().
PartitionRef resolve_readable_partition(const Services& svc, bool allowed, const TopicPtr& topic, int32_t index,
                                        bool* follower);

// replica.selector.class's one value besides empty: Kafka's rack-aware selector.
inline constexpr std::string_view kRackAwareReplicaSelector =
    "org.apache.kafka.common.replica.RackAwareReplicaSelector";
// KIP-392: the replica a consumer in `client_rack` should read a group partition led by `self`
// from (Fetch v11+'s preferred_read_replica), or -1 to read from the leader. With the
// rack-aware selector only, and only for a client naming a rack the leader is not in: the
// first member of the group's synchronous replica set, other than the leader, that is
// registered in `picture` with broker.rack equal to the client's.
int32_t preferred_read_replica(std::string_view selector_class, std::string_view client_rack, int32_t self,
                               const ClusterGroup& group, const ClusterPicture& picture);

// The broker coordinating `key` (a group or transactional id): this one on a single broker;
// -1 while none can (cluster mode: its shard's broker is down, or the shards are being placed).
int32_t coordinator_broker(const Services& svc, std::string_view key);
inline bool coordinates(const Services& svc, std::string_view key) {
  return coordinator_broker(svc, key) == svc.config.broker_id;
}

// The live brokers as a client on this request's listener reaches them, by id.
std::vector<BrokerAddress> broker_addresses(const RequestContext& ctx);
// One of them, or nullopt (down, or without that listener).
std::optional<BrokerAddress> broker_address(const RequestContext& ctx, int32_t id);
// The controller's id (-1 while there is none).
int32_t controller_id(const Services& svc);
// Whether `id` is a live broker of the cluster (this one on a single broker).
bool broker_live(const Services& svc, int32_t id);

}  // namespace rokka::broker
