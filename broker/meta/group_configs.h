// GroupConfigs: per-group configs (Kafka 4's GROUP config resources, set with
// IncrementalAlterConfigs / AlterConfigs and read with DescribeConfigs):
// consumer.session.timeout.ms and consumer.heartbeat.interval.ms, which override
// group.consumer.session.timeout.ms / group.consumer.heartbeat.interval.ms for one
// consumer group (KIP-848). A group's configs exist whether or not the group does, as in
// Kafka. Persisted in the MetaStore, one record per group ("gc/<group>"), loaded at start.
//
// Thread-safety: reads take a shared lock and may run on any thread (the coordinator's
// strand asks for a group's timeouts at each heartbeat); alter() is durable before its
// callback runs, on the storage writer thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "broker/config/config.h"
#include "storage/meta_store.h"

namespace rokka::broker {

namespace cfg {
struct Row;
}  // namespace cfg

class GroupConfigs {
 public:
  using Changes = std::map<std::string, std::optional<std::string>>;

  GroupConfigs(storage::MetaStore& meta, const BrokerConfig& config) : meta_(meta), config_(config) {}

  storage::Status load();
  // Kafka's checks of a change to `group`'s configs (after it, replacing or merging): an
  // error message for INVALID_CONFIG, or empty.
  std::string validate(const std::string& group, const Changes& changes, bool replace) const;
  void alter(const std::string& group, Changes changes, bool replace, std::function<void(storage::Status)> done);
  // The values set on `group`.
  std::map<std::string, std::string> values(const std::string& group) const;
  // The effective value of a group key (cfg::kConsumerSessionTimeoutMs, ...) for `group`:
  // its own, else the broker key it overrides (its synonym).
  int32_t effective(const std::string& group, const cfg::Row& key) const;
  // The broker's value of the key a group key overrides.
  int32_t broker_default(const cfg::Row& key) const;

 private:
  static std::map<std::string, std::string> apply(std::map<std::string, std::string> values, const Changes& changes,
                                                  bool replace);

  storage::MetaStore& meta_;
  const BrokerConfig& config_;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::map<std::string, std::string>> groups_;  // GUARDED_BY(mu_)
};

}  // namespace rokka::broker
