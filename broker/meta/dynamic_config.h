// DynamicBrokerConfig: broker configs changed at runtime through AlterConfigs and
// IncrementalAlterConfigs on BROKER resources (Kafka's dynamic broker configs).
//
// Two scopes, as in Kafka: this broker (resource name = its broker.id) and the
// cluster-wide default (resource name ""). A per-broker value wins over the default,
// which wins over server.properties. Values are persisted in the MetaStore, one key per
// config ("d/broker/<id>/<name>", "d/default/<name>"), and loaded at start.
//
// Which keys may change follows Kafka's split, the scope column of the config schema
// (broker/config/config_schema.h; see is_dynamic()): the keys Kafka updates at runtime are accepted; a static key refuses the whole resource with "Cannot update
// these configs dynamically: Set(...)"; a key neither Kafka nor Rokka knows is accepted
// and stored as a custom config, as Kafka does. Rokka stores and reports these values; the
// server applies max.connections and max.connections.per.ip live (effective_int()), and
// the listeners' SSL/SASL keys (ListenerSecurityTable, after each change); the others are
// stored only (README lists them).
//
// Thread-safety: reads take a shared lock and may run on any thread. alter() is durable
// before its callback runs, on the storage writer thread (hop back before touching asio
// state).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "storage/meta_store.h"

namespace rokka::broker {

struct BrokerConfig;
namespace cfg {
struct Row;
}  // namespace cfg

enum class DynamicScope : uint8_t { kBroker, kClusterDefault };

class DynamicBrokerConfig {
 public:
  // name -> new value; nullopt removes the dynamic value (back to the static one).
  using Changes = std::map<std::string, std::optional<std::string>>;

  DynamicBrokerConfig(storage::MetaStore& meta, int32_t broker_id);

  // Loads this broker's and the cluster default's values (start-up, before serving).
  storage::Status load();

  // Kafka's checks of a change to `scope`: an error message for INVALID_REQUEST, or empty.
  static std::string validate(DynamicScope scope, const Changes& changes);

  // Stores validated changes durably. replace (AlterConfigs): the scope's values become
  // exactly the non-null ones of `changes`; otherwise (IncrementalAlterConfigs) merged.
  void alter(DynamicScope scope, Changes changes, bool replace, std::function<void(storage::Status)> done);

  // The scope's dynamic values.
  std::map<std::string, std::string> values(DynamicScope scope) const;

  // The effective value of an integer broker key: this broker's dynamic value, else the
  // cluster default's, else `config`'s (server.properties).
  int64_t effective_int(const cfg::Row& key, const BrokerConfig& config) const;

  // Whether Kafka can update `name` at runtime.
  static bool is_dynamic(std::string_view name);
  // Whether `name` is list-typed (IncrementalAlterConfigs APPEND/SUBTRACT apply).
  static bool is_list(std::string_view name);
  // Whether `name` holds a secret (DescribeConfigs reports it with a null value).
  static bool is_sensitive(std::string_view name);

  // The MetaStore key of a scope's config (exposed for tests).
  std::string key(DynamicScope scope, std::string_view name) const;

 private:
  std::string prefix(DynamicScope scope) const;
  std::map<std::string, std::string>& scope_values(DynamicScope scope);  // REQUIRES: mu_ held

  storage::MetaStore& meta_;
  const int32_t broker_id_;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::string> broker_;         // GUARDED_BY(mu_)
  std::map<std::string, std::string> cluster_default_;  // GUARDED_BY(mu_)
};

}  // namespace rokka::broker
