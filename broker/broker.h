// Broker: assembles the store, the topic registry, the producer ids, the fetch
// waiters and the server from a BrokerConfig, and runs them in order.
#pragma once

#include <memory>
#include <vector>

#include "broker/coordinators.h"
#include "broker/meta/authorizer.h"
#include "broker/meta/client_quotas.h"
#include "broker/link/cluster_link.h"
#include "broker/config/config.h"
#include "broker/meta/dynamic_config.h"
#include "broker/meta/group_configs.h"
#include "broker/link/inter_broker_client.h"
#include "broker/records/fetch_waiters.h"
#include "broker/records/log_cleaner.h"
#include "broker/records/store_set.h"
#include "broker/metrics.h"
#include "broker/meta/producer_ids.h"
#include "broker/net/quota_manager.h"
#include "broker/meta/scram_credentials.h"
#include "broker/net/server.h"
#include "broker/services.h"
#include "broker/meta/shared_meta.h"
#include "broker/meta/topic_registry.h"
#include "broker/link/txn_marker_sender.h"
#include "coordinator/group_service.h"
#include "coordinator/transaction_service.h"
#include "storage/store.h"

namespace rokka::broker {

// A store beside the root one, in its own slot of the broker's StoreSet (the stores of
// replication groups; tests of the multi-store plumbing).
struct ExtraStore {
  std::string name;
  std::unique_ptr<storage::Store> store;
  std::filesystem::path dir;
};

class Broker {
 public:
  // Opens the store in config.log_dirs (recovering it if needed) and loads broker state.
  static storage::Result<std::unique_ptr<Broker>> open(const BrokerConfig& config);
  // As open(), on a store the caller opened; `metrics` (optional; it must outlive the
  // broker) counts requests and, from start() to stop(), is attached to the broker.
  // `extra` stores take slots 1.. in order; `store_for` places new partitions among the
  // slots (empty: all in the root store).
  static storage::Result<std::unique_ptr<Broker>> open(const BrokerConfig& config,
                                                       std::unique_ptr<storage::Store> store,
                                                       Metrics* metrics = nullptr, std::vector<ExtraStore> extra = {},
                                                       TopicRegistry::StoreFor store_for = {});
  ~Broker();

  // Binds the listeners and starts serving.
  storage::Status start();
  // Graceful: stop accepting, finish in-flight requests, flush, mark the store clean.
  storage::Status stop();

  std::vector<uint16_t> ports() const { return server_->ports(); }
  Services& services() { return *services_; }

  static storage::StoreOptions store_options(const BrokerConfig& config);
  static coordinator::CoordinatorOptions coordinator_options(const BrokerConfig& config);
  static coordinator::TxnCoordinatorOptions txn_options(const BrokerConfig& config);
  static AuthorizerOptions authorizer_options(const BrokerConfig& config);
  static LogCleanerOptions cleaner_options(const BrokerConfig& config);

 private:
  explicit Broker(const BrokerConfig& config);
  storage::Status load_cluster_id();
  std::string local_cluster_id();
  storage::Status save_cluster_id();
  storage::Status open_group_stores();
  storage::Status open_shared_meta();
  void follow_shared_meta();

  BrokerConfig config_;
  std::string cluster_id_;
  std::unique_ptr<storage::Store> store_;  // the root store, slot 0
  std::vector<ExtraStore> extra_stores_;  // slots 1..
  StoreSet stores_;                        // names the stores above
  std::unique_ptr<TopicRegistry> topics_;
  std::unique_ptr<ClusterLink> cluster_;  // cluster mode only; applies etcd's topics to topics_: destroyed first
  std::unique_ptr<SharedMeta> shared_meta_;  // ACLs, SCRAM, quotas, dynamic configs: here, or etcd's (cluster_)
  std::unique_ptr<ProducerIds> producer_ids_;
  std::unique_ptr<Authorizer> authorizer_;
  std::unique_ptr<ScramCredentials> scram_;  // outlives server_: connections look credentials up
  std::unique_ptr<ClientQuotas> client_quotas_;   // outlives server_: requests look their bounds up
  std::unique_ptr<QuotaManager> quota_manager_;
  std::unique_ptr<DynamicBrokerConfig> dynamic_config_;
  std::unique_ptr<GroupConfigs> group_configs_;  // outlives coordinators_: heartbeats look timeouts up
  FetchWaiters fetch_waiters_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<InterBrokerClient> peers_;  // cluster mode: this broker's requests to the others
  std::unique_ptr<TxnMarkerSender> marker_sender_;  // cluster mode: the coordinators' markers for other brokers
  // The group and transaction coordinators (the root store's, or each lead of this broker's
  // replication group); destroyed before the server's io_contexts and the stores.
  std::unique_ptr<Coordinators> coordinators_;
  std::vector<std::unique_ptr<LogCleaner>> cleaners_;  // one per store; use stores_ and topics_: destroyed before them
  std::unique_ptr<Services> services_;  // names the parts above: built after them, destroyed before them
  bool stopped_ = false;
};

}  // namespace rokka::broker
