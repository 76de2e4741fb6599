#include "broker/broker.h"

#include <algorithm>
#include <future>

#include "broker/config/config_schema.h"
#include "broker/handlers/client_regex.h"
#include "broker/logging.h"
#include "broker/records/txn_markers.h"
#include "broker/link/group_member.h"
#include "broker/link/txn_marker_sender.h"
#include "storage/meta_keys.h"
#include "wire/random_id.h"

namespace rokka::broker {
namespace {

constexpr std::string_view kClusterIdKey = "c/cluster_id";
static_assert(kClusterIdKey.starts_with(storage::meta_prefix::kCluster));

// The MetaStore prefixes of the state the brokers of a cluster share (broker/meta/shared_meta.h).
constexpr std::string_view kSharedPrefixes[] = {storage::meta_prefix::kAcls, storage::meta_prefix::kScramCredentials,
                                                storage::meta_prefix::kDynamicConfig,
                                                storage::meta_prefix::kClientQuotas,
                                                storage::meta_prefix::kGroupConfigs};

// What the group coordinator's consumer groups (KIP-848) see of topics: partition counts,
// and the topics a regex subscription matches (every whole name but internal topics',
// as Kafka's). Both run on the coordinator's strand; the registry is thread-safe.
// `cluster`: null on a single broker, whose partitions are all on its own broker.rack.
coordinator::TopicCatalog consumer_topic_catalog(const TopicRegistry& topics, const ClusterLink* cluster,
                                                 const std::string& own_rack) {
  coordinator::TopicCatalog catalog;
  // Each partition's rack is that of the broker it lives on (its one replica): on a single
  // broker this one's, in cluster mode the placed broker's while it is registered.
  catalog.partition_racks = [&topics, cluster, own_rack](const std::string& name) {
    std::vector<std::vector<std::string>> out;
    const TopicPtr t = topics.find(name);
    if (t == nullptr) return out;
    out.resize(t->partitions.size());
    if (cluster == nullptr) {
      if (!own_rack.empty())
        for (auto& racks : out) racks.push_back(own_rack);
      return out;
    }
    const std::shared_ptr<const ClusterPicture> picture = cluster->picture();
    if (picture == nullptr) return out;
    for (size_t i = 0; i < out.size() && i < t->leaders.size(); ++i) {
      auto b = picture->brokers.find(t->leaders[i]);
      if (b != picture->brokers.end() && b->second.rack) out[i].push_back(*b->second.rack);
    }
    return out;
  };
  catalog.partition_count = [&topics](const std::string& name) {
    const TopicPtr t = topics.find(name);
    return t == nullptr ? 0 : static_cast<int32_t>(t->partitions.size());
  };
  catalog.match = [&topics](const std::string& regex) {
    std::vector<std::string> out;
    const auto re = compile_client_regex(regex);
    if (re == nullptr) return out;
    for (const TopicPtr& t : topics.all())
      if (!t->internal && re2::RE2::FullMatch(t->name, *re)) out.push_back(t->name);
    return out;
  };
  return catalog;
}

}  // namespace

Broker::Broker(const BrokerConfig& config) : config_(config) {}

Broker::~Broker() {
  if (!stopped_) (void)stop();
  // The coordinators before the io_contexts their strands are on (as the members' order has it),
  // then the io_contexts, with whatever connection is still queued there, before the services
  // (request memory, counters) a connection gives back when it goes.
  coordinators_.reset();
  server_.reset();
}

storage::StoreOptions Broker::store_options(const BrokerConfig& c) {
  storage::StoreOptions o;
  o.dir = c.log_dirs;
  o.segment_bytes = c.log_segment_bytes;
  o.flush_mode = c.store_flush_mode == "sync" ? storage::FlushMode::kSync : storage::FlushMode::kAsync;
  o.flush_interval_ms = c.log_flush_interval_ms;
  o.flush_interval_messages = c.log_flush_interval_messages;
  o.retention_ms = c.log_retention_ms;
  o.retention_bytes = c.log_retention_bytes;
  o.retention_check_interval_ms = c.log_retention_check_interval_ms;
  o.checkpoint_interval_bytes = c.store_checkpoint_interval_bytes;
  o.checkpoint_interval_ms = c.store_checkpoint_interval_ms;
  o.recovery_verify_bytes = c.store_recovery_verify_bytes;
  o.page_cache_retain_bytes = c.store_pagecache_retain_bytes;
  o.preallocate = c.log_preallocate;
  o.tail_cache_bytes = c.store_tail_cache_bytes;
  o.direct_io = c.store_direct_io;
  o.max_append_bytes = c.message_max_bytes;
  return o;
}

coordinator::CoordinatorOptions Broker::coordinator_options(const BrokerConfig& c) {
  coordinator::CoordinatorOptions o;
  o.min_session_timeout_ms = c.group_min_session_timeout_ms;
  o.max_session_timeout_ms = c.group_max_session_timeout_ms;
  o.initial_rebalance_delay_ms = c.group_initial_rebalance_delay_ms;
  o.max_group_size = c.group_max_size;
  o.offsets_retention_ms = int64_t{c.offsets_retention_minutes} * 60 * 1000;
  o.offsets_retention_check_interval_ms = c.offsets_retention_check_interval_ms;
  o.offset_metadata_max_bytes = c.offset_metadata_max_bytes;
  o.consumer_heartbeat_interval_ms = c.group_consumer_heartbeat_interval_ms;
  o.consumer_session_timeout_ms = c.group_consumer_session_timeout_ms;
  o.consumer_max_size = c.group_consumer_max_size;
  o.consumer_assignors = consumer_assignor_names(c);
  o.consumer_migration_upgrade =
      c.group_consumer_migration_policy == "upgrade" || c.group_consumer_migration_policy == "bidirectional";
  o.consumer_migration_downgrade =
      c.group_consumer_migration_policy == "downgrade" || c.group_consumer_migration_policy == "bidirectional";
  return o;
}

coordinator::TxnCoordinatorOptions Broker::txn_options(const BrokerConfig& c) {
  coordinator::TxnCoordinatorOptions o;
  o.max_timeout_ms = c.transaction_max_timeout_ms;
  o.id_expiration_ms = c.transactional_id_expiration_ms;
  o.offset_metadata_max_bytes = c.offset_metadata_max_bytes;
  return o;
}

AuthorizerOptions Broker::authorizer_options(const BrokerConfig& c) {
  AuthorizerOptions o;
  o.enabled = !c.authorizer_class_name.empty();
  o.allow_everyone_if_no_acl_found = c.allow_everyone_if_no_acl_found;
  o.super_users = parse_super_users(c.super_users);
  return o;
}

storage::Result<std::unique_ptr<Broker>> Broker::open(const BrokerConfig& config) {
  auto store = storage::Store::open(store_options(config));
  if (!store.ok()) return store.status();
  return open(config, std::move(store).value());
}

storage::Result<std::unique_ptr<Broker>> Broker::open(const BrokerConfig& config,
                                                      std::unique_ptr<storage::Store> store, Metrics* metrics,
                                                      std::vector<ExtraStore> extra,
                                                      TopicRegistry::StoreFor store_for) {
  std::unique_ptr<Broker> b(new Broker(config));
  b->store_ = std::move(store);
  b->extra_stores_ = std::move(extra);
  b->stores_.add("root", *b->store_, b->config_.log_dirs);
  for (ExtraStore& e : b->extra_stores_) b->stores_.add(e.name, *e.store, e.dir);
  if (auto s = b->load_cluster_id(); !s.ok()) return s;
  if (auto s = b->open_group_stores(); !s.ok()) return s;

  b->topics_ = std::make_unique<TopicRegistry>(b->stores_, b->config_, std::move(store_for));
  if (auto s = b->topics_->load(); !s.ok()) return s;

  b->producer_ids_ = std::make_unique<ProducerIds>(b->store_->meta());
  if (auto s = b->producer_ids_->load(); !s.ok()) return s;
  if (b->cluster_)  // no id is ever given out by two brokers
    b->producer_ids_->set_block_source([link = b->cluster_.get()](auto done) { link->reserve_producer_ids(done); });

  if (auto s = b->open_shared_meta(); !s.ok()) return s;
  const bool from_etcd = b->cluster_ != nullptr;  // records anyone may have written: skip what does not decode
  b->authorizer_ = std::make_unique<Authorizer>(*b->shared_meta_, authorizer_options(b->config_));
  if (auto s = b->authorizer_->load(from_etcd); !s.ok()) return s;

  b->scram_ = std::make_unique<ScramCredentials>(*b->shared_meta_);
  if (auto s = b->scram_->load(from_etcd); !s.ok()) return s;

  b->client_quotas_ = std::make_unique<ClientQuotas>(*b->shared_meta_);
  if (auto s = b->client_quotas_->load(from_etcd); !s.ok()) return s;
  b->quota_manager_ = std::make_unique<QuotaManager>(
      *b->client_quotas_, QuotaWindow{b->config_.quota_window_num, b->config_.quota_window_size_seconds * 1000LL});

  b->dynamic_config_ = std::make_unique<DynamicBrokerConfig>(*b->shared_meta_, b->config_.broker_id);
  if (auto s = b->dynamic_config_->load(); !s.ok()) return s;
  b->group_configs_ = std::make_unique<GroupConfigs>(*b->shared_meta_, b->config_);
  if (auto s = b->group_configs_->load(); !s.ok()) return s;
  b->follow_shared_meta();

  for (size_t slot = 0; slot < b->stores_.size(); ++slot) {
    b->stores_.entries()[slot].store->set_append_listener(
        [w = &b->fetch_waiters_, at = static_cast<StoreSlot>(slot)](std::span<const storage::PartitionId> grown) {
          w->notify(at, grown);
        });
  }

  b->server_ = std::make_unique<Server>(b->config_, *b->dynamic_config_);
  if (b->cluster_) {  // markers for partitions other brokers lead go to them
    auto peers = InterBrokerClient::create(b->server_->context(0).get_executor(), b->config_,
                                           b->server_->security(), *b->cluster_);
    if (!peers.ok()) return peers.status();
    b->peers_ = std::move(peers).value();
    b->marker_sender_ = std::make_unique<TxnMarkerSender>(b->server_->context(0).get_executor(), *b->topics_,
                                                          *b->cluster_, *b->peers_);
  }
  // The coordinators' strand lives on the first network thread. With replication groups the
  // coordinator shards are on the groups, and a pair runs for each lead of this broker's group.
  auto build = [b = b.get()](storage::MetaStore& meta, const std::shared_ptr<InFlight>& in) {
    Coordinators::Built out;
    out.groups = std::make_unique<coordinator::GroupService>(b->server_->context(0).get_executor(), meta,
                                                             coordinator_options(b->config_));
    out.groups->set_topic_exists(
        [topics = b->topics_.get()](const std::string& topic) { return topics->find(topic) != nullptr; });
    out.groups->set_topic_catalog(consumer_topic_catalog(*b->topics_, b->cluster_.get(), b->config_.broker_rack));
    out.groups->set_group_timeouts([configs = b->group_configs_.get()](const std::string& group) {
      return coordinator::ConsumerGroupTimeouts{configs->effective(group, cfg::kConsumerSessionTimeoutMs),
                                                configs->effective(group, cfg::kConsumerHeartbeatIntervalMs)};
    });
    out.txns = std::make_unique<coordinator::TransactionService>(
        *out.groups, meta, txn_options(b->config_),
        [ids = b->producer_ids_.get(), in](auto done) { ids->allocate(tracked(in, std::move(done))); },
        [b, in](coordinator::MarkerRequest req, auto done) {
          auto answer = tracked(in, std::move(done));
          if (b->marker_sender_) return b->marker_sender_->write(std::move(req), std::move(answer));
          write_txn_markers(*b->topics_, req, std::move(answer));
        });
    return out;
  };
  const bool on_groups = b->cluster_ && !b->cluster_->replication_groups().empty();
  b->coordinators_ = std::make_unique<Coordinators>(std::move(build), b->store_->meta(), on_groups);
  if (on_groups)
    b->cluster_->set_group_role_listener([c = b->coordinators_.get()](GroupMember& m) { c->on_role(m); });
  // A deleted topic takes its committed offsets with it (answered once that is durable).
  b->topics_->set_removal_listener([c = b->coordinators_.get()](const std::string& topic, std::function<void()> done) {
    const std::shared_ptr<CoordinatorPair> pair = c->current();
    pair->groups().remove_topic_offsets(topic, [pair, done = std::move(done)] { done(); });
  });
  for (size_t slot = 0; slot < b->stores_.size(); ++slot) {
    LogCleanerOptions o = cleaner_options(b->config_);
    if (slot != kRootSlot && b->cluster_) {  // a group store: compacted by the group's leader only
      o.may_rewrite = [cluster = b->cluster_.get(), slot = static_cast<StoreSlot>(slot)] {
        const GroupMember* m = cluster->member_of(slot);  // members exist from join(), before the cleaners start
        return m != nullptr && m->role() == GroupRole::kLeader;
      };
    }
    b->cleaners_.push_back(std::make_unique<LogCleaner>(*b->stores_.entries()[slot].store, *b->topics_, std::move(o),
                                                        static_cast<StoreSlot>(slot)));
  }
  b->services_.reset(new Services{.config = b->config_,
                                  .stores = b->stores_,
                                  .topics = *b->topics_,
                                  .fetch_waiters = b->fetch_waiters_,
                                  .producer_ids = *b->producer_ids_,
                                  .authorizer = *b->authorizer_,
                                  .scram = *b->scram_,
                                  .client_quotas = *b->client_quotas_,
                                  .quotas = *b->quota_manager_,
                                  .dynamic_config = *b->dynamic_config_,
                                  .group_configs = *b->group_configs_,
                                  .listener_security = b->server_->security(),
                                  .coordinators = *b->coordinators_,
                                  .metrics = metrics,
                                  .cluster = b->cluster_.get(),
                                  .cluster_id = b->cluster_id_,
                                  .request_memory = RequestMemory(b->config_.queued_max_request_bytes)});
  return b;
}

LogCleanerOptions Broker::cleaner_options(const BrokerConfig& c) {
  LogCleanerOptions o;
  o.enable = c.log_cleaner_enable;
  o.backoff_ms = c.log_cleaner_backoff_ms;
  // Retained partitions pin the shared log: copy them forward twice per retention period.
  o.copy_forward_ms = c.log_retention_ms >= 0 ? std::max<int64_t>(c.log_retention_ms / 2, 1) : INT64_MAX;
  return o;
}

std::string Broker::local_cluster_id() {
  for (auto& [key, value] : store_->meta().scan(kClusterIdKey))
    if (key == kClusterIdKey) return value;
  return {};
}

storage::Status Broker::save_cluster_id() {
  std::promise<storage::Status> written;
  store_->meta().write({{std::string(kClusterIdKey), cluster_id_, false}},
                       [&written](storage::Status s) { written.set_value(std::move(s)); });
  return written.get_future().get();
}

// A single broker's cluster id is its own (made at its first start); in cluster mode it is
// etcd's, and this broker's data must belong to that cluster.
storage::Status Broker::load_cluster_id() {
  const std::string local = local_cluster_id();
  if (!config_.cluster_etcd_endpoints.empty()) {
    auto link = ClusterLink::connect(config_);
    if (!link.ok()) return link.status();
    cluster_ = std::move(link).value();
    auto id = cluster_->agree_cluster_id(local);
    if (!id.ok()) return id.status();
    cluster_id_ = std::move(id).value();
    return local.empty() ? save_cluster_id() : storage::Status{};
  }
  cluster_id_ = local;
  if (!cluster_id_.empty()) return {};
  cluster_id_ = wire::random_cluster_id();
  auto s = save_cluster_id();
  if (s.ok()) broker_log().info("new cluster: cluster_id={}", cluster_id_);
  return s;
}

// Cluster mode: the store of each replication group this broker is a member of, in
// log.dirs/groups/<g>/, fenced before anything can write it; the ClusterLink gives it the
// role the group's state names once the broker has joined (broker/link/group_member.h).
storage::Status Broker::open_group_stores() {
  if (!cluster_) return {};
  const std::vector<std::string> groups = cluster_->member_groups();
  if (groups.empty()) return {};
  // One ReplicationServer per group store, each with its own acceptor: one port serves one group.
  if (groups.size() > 1)
    return storage::Status::invalid_argument(
        "broker " + std::to_string(config_.broker_id) + " is a member of " + std::to_string(groups.size()) +
        " replication groups (" + groups[0] + ", " + groups[1] +
        (groups.size() > 2 ? ", ..." : "") + "): a broker may be a member of one group only for now");
  if (!config_.replication_listener || config_.replication_listener->port == 0)
    return storage::Status::invalid_argument(
        "config rokka.replication.listener must name a port other than 0: broker " +
        std::to_string(config_.broker_id) + " is a member of replication group " + groups[0] +
        ", and its registration tells the other members where to connect");
  for (const std::string& group : groups) {
    storage::StoreOptions o = store_options(config_);
    o.dir = std::filesystem::path(config_.log_dirs) / "groups" / group;
    std::error_code ec;
    std::filesystem::create_directories(o.dir, ec);
    if (ec) return storage::Status::io_error("cannot create " + o.dir.string() + ": " + ec.message());
    auto store = storage::Store::open(o);
    if (!store.ok()) return store.status();
    std::promise<storage::Status> fenced;
    (*store)->set_role(storage::Role::kFenced, 0, [&fenced](storage::Status s) { fenced.set_value(std::move(s)); });
    if (auto s = fenced.get_future().get(); !s.ok()) {
      (void)(*store)->close();
      return s;
    }
    broker_log().info("replication group {}: store opened fenced: dir={} log_end={}", group, o.dir.string(),
                      (*store)->log_end());
    extra_stores_.push_back({group, std::move(store).value(), o.dir});
    ExtraStore& e = extra_stores_.back();
    const StoreSlot slot = stores_.add(e.name, *e.store, e.dir);
    cluster_->add_group_store(group, slot, *e.store, o);
  }
  return {};
}

// ACLs, SCRAM credentials, client quotas and dynamic broker configs: this broker's MetaStore
// alone, or in cluster mode etcd's, shared by every broker (a founding broker first publishes
// its own, as it publishes its topics).
storage::Status Broker::open_shared_meta() {
  if (!cluster_) {
    shared_meta_ = std::make_unique<LocalSharedMeta>(store_->meta());
    return {};
  }
  auto etcd = std::make_unique<EtcdSharedMeta>(*cluster_);
  if (cluster_->founded()) {
    if (auto s = etcd->publish(store_->meta(), kSharedPrefixes); !s.ok()) return s;
  }
  shared_meta_ = std::move(etcd);
  return {};
}

// A change made on any broker reloads the part it belongs to here (cluster mode only).
void Broker::follow_shared_meta() {
  auto reload = [](const char* what, std::function<storage::Status()> load) {
    return [what, load = std::move(load)] {
      if (auto s = load(); !s.ok()) {
        broker_log().error("cluster: {} not reloaded, the old ones stay: error={}", what, s.to_string());
      } else {
        broker_log().debug("cluster: {} reloaded", what);
      }
    };
  };
  namespace prefix = storage::meta_prefix;
  shared_meta_->subscribe(std::string(prefix::kAcls),
                          reload("acls", [a = authorizer_.get()] { return a->load(true); }));
  shared_meta_->subscribe(std::string(prefix::kScramCredentials),
                          reload("scram credentials", [c = scram_.get()] { return c->load(true); }));
  shared_meta_->subscribe(std::string(prefix::kClientQuotas),
                          reload("client quotas", [q = client_quotas_.get()] { return q->load(true); }));
  shared_meta_->subscribe(std::string(prefix::kDynamicConfig),
                          reload("dynamic broker configs", [d = dynamic_config_.get()] { return d->load(); }));
  shared_meta_->subscribe(std::string(prefix::kGroupConfigs),
                          reload("group configs", [g = group_configs_.get()] { return g->load(); }));
  shared_meta_->start();
}

storage::Status Broker::start() {
  if (auto s = server_->listen(); !s.ok()) return s;
  services_->advertised = config_.effective_advertised_listeners();
  if (config_.advertised_listeners.empty()) {
    const auto ports = server_->ports();  // a listener on port 0 got a free port
    for (size_t i = 0; i < services_->advertised.size() && i < ports.size(); ++i) services_->advertised[i].port = ports[i];
  }
  if (cluster_) {  // registered, and the topics as etcd has them, before the first request
    if (auto s = cluster_->join(services_->advertised, *topics_); !s.ok()) return s;
  }
  coordinators_->start();  // the root store's load (a group's pairs load when this broker leads it)
  server_->start(*services_);
  for (auto& cleaner : cleaners_) cleaner->start();
  if (services_->metrics) {
    services_->metrics->attach(services_.get(), coordinators_.get());
    services_->metrics->set_listening(true);
  }
  return {};
}

storage::Status Broker::stop() {
  if (stopped_) return {};
  stopped_ = true;
  broker_log().info("shutting down");
  if (services_ && services_->metrics) services_->metrics->detach();
  fetch_waiters_.notify_all();
  // A broker whose open() failed part way has only some of its parts.
  if (marker_sender_) marker_sender_->stop();
  if (coordinators_) coordinators_->stop();  // parked joins, syncs and EndTxns get COORDINATOR_NOT_AVAILABLE
  if (server_) server_->stop();
  if (coordinators_) coordinators_->strands_stopped();
  if (cluster_) cluster_->stop();  // leaves the cluster at once (the lease is revoked)
  for (auto& cleaner : cleaners_) cleaner->stop();  // a rewrite in progress completes first
  storage::Status s;
  for (ExtraStore& e : extra_stores_) {
    if (auto closed = e.store->close(); !closed.ok() && s.ok()) s = closed;
  }
  if (auto closed = store_->close(); !closed.ok() && s.ok()) s = closed;
  if (s.ok()) {
    broker_log().info("shut down cleanly");
  } else {
    broker_log().error("store close failed: error={}", s.to_string());
  }
  return s;
}

}  // namespace rokka::broker
