// What handlers reach: the broker's long-lived parts. Owned by main (via Broker),
// they outlive every connection.
#pragma once

#include <atomic>
#include <string>

#include "broker/config/config.h"
#include "broker/net/request_memory.h"

namespace rokka::storage {
class Store;
}
namespace rokka::broker {

class TopicRegistry;
class FetchWaiters;
class ProducerIds;
class Authorizer;
class DynamicBrokerConfig;
class GroupConfigs;
class Metrics;
class ScramCredentials;
class ClientQuotas;
class QuotaManager;
class ListenerSecurityTable;
class ClusterLink;
class StoreSet;
class Coordinators;

// Built once by Broker::open after every part it names exists, and destroyed before
// them: a handler never finds one missing. Only metrics and the cluster link are
// optional.
struct Services {
  const BrokerConfig& config;
  StoreSet& stores;  // slot 0: the root store; a partition's own store is its PartitionRef's
  TopicRegistry& topics;
  FetchWaiters& fetch_waiters;
  ProducerIds& producer_ids;
  Authorizer& authorizer;  // check() allows everything when disabled
  ScramCredentials& scram;  // the SCRAM credentials (AlterUserScramCredentials)
  ClientQuotas& client_quotas;  // AlterClientQuotas' quotas
  QuotaManager& quotas;         // the clients' rates against them
  DynamicBrokerConfig& dynamic_config;  // BROKER resources' AlterConfigs values
  GroupConfigs& group_configs;          // GROUP resources' configs (consumer groups' timeouts)
  ListenerSecurityTable& listener_security;  // every listener's TLS and SASL, reloadable (the Server's)
  // The group and transaction coordinators: current() is the pair in use (broker/coordinators.h);
  // keep it across co_awaits.
  Coordinators& coordinators;
  Metrics* metrics = nullptr;  // nullptr: nothing counted (tests that assemble a broker without one)
  ClusterLink* cluster = nullptr;  // cluster mode only (rokka.cluster.etcd.endpoints); nullptr on a single broker
  std::string cluster_id;
  // Where clients should connect (Metadata, DescribeCluster): advertised.listeners,
  // else the listeners with their bound ports. Set before serving starts.
  std::vector<Listener> advertised;
  std::atomic<int64_t> connections{0};
  RequestMemory request_memory;  // queued.max.request.bytes, shared by every connection
};

}  // namespace rokka::broker
