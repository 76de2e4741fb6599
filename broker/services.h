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
namespace rokka::coordinator {
class GroupService;
class TransactionService;
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

struct Services {
  const BrokerConfig& config;
  storage::Store* store = nullptr;
  TopicRegistry* topics = nullptr;
  FetchWaiters* fetch_waiters = nullptr;
  ProducerIds* producer_ids = nullptr;
  Authorizer* authorizer = nullptr;  // always set; check() allows everything when disabled
  ScramCredentials* scram = nullptr;  // always set by Broker: the SCRAM credentials (AlterUserScramCredentials)
  ClientQuotas* client_quotas = nullptr;  // always set by Broker: AlterClientQuotas' quotas
  QuotaManager* quotas = nullptr;         // always set by Broker: the clients' rates against them
  DynamicBrokerConfig* dynamic_config = nullptr;  // BROKER resources' AlterConfigs values
  GroupConfigs* group_configs = nullptr;          // GROUP resources' configs (consumer groups' timeouts)
  ListenerSecurityTable* listener_security = nullptr;  // set by Server: every listener's TLS and SASL, reloadable
  coordinator::GroupService* groups = nullptr;
  coordinator::TransactionService* txns = nullptr;
  Metrics* metrics = nullptr;  // nullptr: nothing counted (tests that assemble a broker without one)
  ClusterLink* cluster = nullptr;  // cluster mode only (rokka.cluster.etcd.endpoints); nullptr on a single broker
  std::string cluster_id;
  // Where clients should connect (Metadata, DescribeCluster): advertised.listeners,
  // else the listeners with their bound ports. Set before serving starts.
  std::vector<Listener> advertised;
  std::atomic<int64_t> connections{0};
  RequestMemory request_memory;  // queued.max.request.bytes, shared by every connection

  explicit Services(const BrokerConfig& c) : config(c), request_memory(c.queued_max_request_bytes) {}
};

}  // namespace rokka::broker
