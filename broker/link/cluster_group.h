// ClusterGroup: one replication group in the ClusterPicture (broker/link/cluster_link.h), apart
// so that the handlers' routing (broker/handlers/routing.h) can describe a group's partitions
// without the cluster link's headers.
#pragma once

#include <cstdint>
#include <vector>

namespace rokka::broker {

// A replication group as handlers describe its partitions (docs/cluster.md "Replication
// groups in etcd"): Kafka's replicas, ISR, leader and leader epoch.
struct ClusterGroup {
  std::vector<int32_t> members;  // the spec's (empty while there is no spec)
  // The state's leader while the incarnation it names (leader_broker_epoch) is registered,
  // else -1: no state yet, no leader named, or the one named is down or restarted since.
  int32_t leader = -1;
  int32_t epoch = -1;            // the state's group (leader) epoch; -1 without a state
  std::vector<int32_t> sss;      // the state's synchronous replica set: Kafka's ISR
  std::vector<int32_t> offline;  // the members not registered
};

}  // namespace rokka::broker
