// TopicRegistry: Kafka topics on top of the store's partitions.
//
// name <-> topic id <-> partition index -> (store slot, storage::PartitionId), plus each
// topic's configs, over the broker's stores (broker/records/store_set.h). Persisted under
// "t/<name>" in the MetaStore of every store holding some of the topic's partitions, each
// record naming that store's partitions; loaded at start.
// Lookups are cheap and lock-shared from any thread; changes (create, delete,
// add partitions, alter configs) are asynchronous and durable before their
// callback runs (on the storage writer thread: hop back before touching asio state).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker/config/config.h"
#include "broker/records/store_set.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "storage/store.h"

namespace rokka::broker {

// The values a topic's configs resolve to (topic setting, else broker default).
struct TopicSettings {
  int64_t retention_ms = -1;
  int64_t retention_bytes = -1;
  int32_t max_message_bytes = 1048588;
  storage::TimestampType timestamp_type = storage::TimestampType::kCreateTime;
  // CreateTime: how far a record's timestamp may lie behind / ahead of the broker's
  // clock (message.timestamp.{before,after}.max.ms; while one is at its default,
  // the deprecated message.timestamp.difference.max.ms applies, as in Kafka 3.6+).
  int64_t timestamp_before_max_ms = INT64_MAX;
  int64_t timestamp_after_max_ms = INT64_MAX;
  // Log compaction (broker/records/log_cleaner.h): cleanup.policy holds "compact" / "delete".
  bool compact = false;
  bool delete_retention = true;
  int64_t delete_retention_ms = 86400000;
  double min_cleanable_dirty_ratio = 0.5;
  int64_t min_compaction_lag_ms = 0;
  int64_t max_compaction_lag_ms = INT64_MAX;
  // acks=all: the fewest in-sync copies a produce needs (min.insync.replicas, 1 to 32767).
  // Not read yet: every topic has one copy until replication (issue 24, stage S7).
  int32_t min_insync_replicas = 1;
};

struct Topic {
  std::string name;
  protocol::Uuid id{};
  std::vector<PartitionLoc> partitions;         // index = Kafka partition number
  std::map<std::string, std::string> configs;    // set explicitly on this topic
  TopicSettings settings;
  bool internal = false;
  // Cluster mode: the broker leading each partition (index = partition), from the topic's
  // placement in etcd; not stored locally. Empty on a single broker, which leads them all.
  std::vector<int32_t> leaders;
};
using TopicPtr = std::shared_ptr<const Topic>;

// A failure a client sees: a Kafka error code and a message for it.
struct TopicError {
  protocol::ErrorCode code = protocol::ErrorCode::kNone;
  std::string message;
  bool ok() const { return code == protocol::ErrorCode::kNone; }
};

// Where topic changes are decided in cluster mode (broker/link/cluster_link.h): in etcd, whose
// topic records every broker's registry then follows (TopicRegistry::apply_*). The registry
// checks a change first (name, partition limit, configs), then hands it over. Callbacks may
// run on any thread.
class TopicAuthority {
 public:
  virtual ~TopicAuthority() = default;
  // `assignment`: each partition's broker, or empty to spread them over the live brokers.
  // `group`: a replicated topic's replication group (then `assignment` is empty), else empty.
  virtual void create(std::string name, int32_t partitions, std::map<std::string, std::string> configs,
                      std::vector<int32_t> assignment, std::string group, std::function<void(TopicError)> done) = 0;
  virtual void remove(std::string name, std::function<void(TopicError)> done) = 0;
  // `assignment`: the new partitions' brokers, or empty.
  virtual void add_partitions(std::string name, int32_t new_total, std::vector<int32_t> assignment,
                              std::function<void(TopicError)> done) = 0;
  virtual void set_configs(std::string name, std::map<std::string, std::string> configs,
                           std::function<void(TopicError)> done) = 0;
};

class TopicRegistry {
 public:
  // Which store a new partition goes to (`index`: its Kafka partition number); it must
  // name a slot of `stores`. Empty: the root store, for every partition.
  using StoreFor = std::function<StoreSlot(std::string_view topic, int32_t index)>;
  // `stores` outlives the registry.
  TopicRegistry(const StoreSet& stores, const BrokerConfig& config, StoreFor store_for = {});

  const StoreSet& stores() const { return stores_; }

  // Loads every topic from the MetaStores of every store (start-up, before serving).
  storage::Status load();

  TopicPtr find(std::string_view name) const;
  TopicPtr find(const protocol::Uuid& id) const;
  std::vector<TopicPtr> all() const;
  size_t size() const;

  // Kafka's rules: 1-249 chars of [a-zA-Z0-9._-], not "." or "..".
  static TopicError validate_name(std::string_view name);
  // Validates a config change against the keys Rokka knows; fills `settings`.
  TopicError validate_configs(const std::map<std::string, std::string>& configs, TopicSettings* settings) const;
  // The effective value of every topic config key (DescribeConfigs), and whether it is a default.
  std::vector<std::tuple<std::string, std::string, bool>> describe_configs(const Topic& topic) const;
  // Every topic key's default: its broker synonym's value (cfg::Row::synonym), else the schema's default.
  std::map<std::string, std::string> broker_default_configs() const;

  using TopicCallback = std::function<void(TopicError, TopicPtr)>;
  using DoneCallback = std::function<void(TopicError)>;

  // Creates a topic with `partitions` partitions. validate_only checks without creating.
  // `assignment` (cluster mode): each partition's broker; empty = spread over the live brokers.
  // `group` (cluster mode): the replication group holding a replicated topic's partitions.
  void create(std::string name, int32_t partitions, std::map<std::string, std::string> configs, bool validate_only,
              TopicCallback done, std::vector<int32_t> assignment = {}, std::string group = {});
  void remove(std::string_view name, DoneCallback done);
  void add_partitions(std::string_view name, int32_t new_total, bool validate_only, DoneCallback done,
                      std::vector<int32_t> assignment = {});
  // Replaces (incremental=false) or merges (true; empty value = delete) the topic's configs.
  void alter_configs(std::string_view name, std::map<std::string, std::optional<std::string>> changes,
                     bool incremental, bool validate_only, DoneCallback done);

  // Runs after a topic's deletion is durable and before remove()'s callback, which waits
  // for `done` (the group coordinator drops the topic's committed offsets here). Set it
  // before serving; it may run on any thread.
  using RemovalListener = std::function<void(const std::string& topic, std::function<void()> done)>;
  void set_removal_listener(RemovalListener listener) { removal_listener_ = std::move(listener); }

  // True while a create of `name` is in flight (auto-create answers LEADER_NOT_AVAILABLE).
  bool creating(std::string_view name) const;

  // Cluster mode: changes go to `authority` (set before serving; it outlives the registry's use).
  void set_authority(TopicAuthority* authority) { authority_ = authority; }
  bool follows_cluster() const { return authority_ != nullptr; }
  static protocol::Uuid new_topic_id();

  // Cluster mode: what the authority decided, applied to this broker (broker/link/cluster_link.cc,
  // one at a time). Local partitions are created, grown and deleted here; every broker holds
  // every topic's partitions, and only their leader writes to them.
  // `slot`, when given, is the store every new partition goes to (a replication group's store,
  // on the group's leader) instead of the one store_for names.
  void apply_create(std::string name, protocol::Uuid id, int32_t partitions, std::map<std::string, std::string> configs,
                    std::vector<int32_t> leaders, DoneCallback done, std::optional<StoreSlot> slot = std::nullopt);
  void apply_remove(std::string_view name, DoneCallback done);
  void apply_grow(std::string_view name, int32_t new_total, std::vector<int32_t> leaders, DoneCallback done,
                  std::optional<StoreSlot> slot = std::nullopt);
  // New configs (persisted only when they changed) and leaders.
  void apply_update(std::string_view name, std::map<std::string, std::string> configs, std::vector<int32_t> leaders,
                    DoneCallback done);

  // Cluster mode, a replication group's store (docs/cluster.md "Topics in a group's store"): only
  // the group's leader creates and deletes its partitions (apply_* with its slot); a follower's
  // store receives them, and the leader's `t/` records, through replication, and the registry
  // publishes what the store holds.
  // The topics whose `t/` records the store in `slot` holds with every partition in it, decoded
  // as load() decodes them (leaders empty).
  std::map<std::string, Topic> stored_topics(StoreSlot slot) const;
  // Publishes `t` as it is (a follower's topic, from its store's record).
  void adopt(Topic t);
  // Unpublishes `name`, touching no store (the follower's store no longer holds it). With
  // `deleted` (etcd no longer has the topic) the removal listener runs, as for apply_remove.
  void forget(std::string_view name, bool deleted = false, DoneCallback done = {});
  // Deletes the record and the partitions of `t`, a topic stored but not published, from its
  // store (a new group leader's clean-up of a topic deleted before it led).
  void drop_stored(const Topic& t, DoneCallback done);

 private:
  // INVALID_PARTITIONS when a topic would have more than rokka.max.partitions.per.topic.
  TopicError check_partition_limit(int32_t partitions) const;
  struct Record;  // one store's t/ record, decoded
  // The record of `t` for the store in `slot`: the partitions it holds there.
  std::string encode(const Topic& t, StoreSlot slot) const;
  std::optional<Record> decode(std::string_view name, std::string_view value) const;
  void publish(Topic t);                       // insert or replace, under the lock
  // New partitions for indexes [first, first + count) in the stores store_for_ names.
  void allocate(const std::string& name, int32_t first, int32_t count, std::optional<StoreSlot> slot,
                std::function<void(TopicError, std::vector<PartitionLoc>)> done);
  // New partitions in the stores, the records persisted, the topic published.
  void create_local(std::string name, protocol::Uuid id, int32_t partitions, std::map<std::string, std::string> configs,
                    TopicSettings settings, std::vector<int32_t> leaders, std::optional<StoreSlot> slot,
                    std::function<void(TopicError, std::optional<Topic>)> done);
  // Writes the topic's record (remove: its tombstone) to every store holding its partitions.
  void persist(const Topic& t, DoneCallback done, bool remove = false);

  const StoreSet& stores_;
  const BrokerConfig& config_;
  StoreFor store_for_;
  mutable std::shared_mutex mu_;
  struct NameHash {  // find() by string_view, without building a string
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, TopicPtr, NameHash, std::equal_to<>> by_name_;
  std::map<protocol::Uuid, TopicPtr> by_id_;
  std::set<std::string, std::less<>> creating_;
  // Every topic's and in-flight create's name with '.' folded to '_' -> the name:
  // Kafka refuses a name that collides with another this way (constant-time check).
  std::unordered_map<std::string, std::string> by_folded_;
  RemovalListener removal_listener_;
  TopicAuthority* authority_ = nullptr;
};

}  // namespace rokka::broker
