// SharedMeta: where the broker state that belongs to the cluster, not to one broker, is
// kept: ACLs (broker/meta/authorizer.h), SCRAM credentials (scram_credentials.h), dynamic broker
// configs (dynamic_config.h), client quotas (client_quotas.h) and group configs
// (group_configs.h). Each of them keeps its
// records under its own MetaStore prefix (storage/meta_keys.h), scans them at load() and
// writes them in batches, and keeps taking a storage::MetaStore&: a SharedMeta is one.
//
//   - One broker: LocalSharedMeta, this broker's MetaStore itself; nothing else changes
//     the records, so nothing is ever notified.
//   - Cluster mode: EtcdSharedMeta (broker/meta/etcd_shared_meta.h), the records under
//     <root>/meta/ in etcd. scan() reads this broker's view of etcd (never waits on etcd), a
//     write is one etcd txn answered once the view has it, and a change made by any broker
//     notifies the subscribers of its prefix, which reload (the Broker wires each
//     component's load() to its prefix).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/meta_store.h"

namespace rokka::broker {

class SharedMeta : public storage::MetaStore {
 public:
  // Calls `fn` after the records under `prefix` changed, by this broker's writes or another
  // broker's (cluster mode; on the cluster thread, one call at a time). Subscribe before
  // the broker starts serving; never called for a single broker.
  virtual void subscribe(std::string prefix, std::function<void()> fn) = 0;
  // Notifications begin (after every subscribe()).
  virtual void start() = 0;
};

// One broker: its own MetaStore, unchanged.
class LocalSharedMeta final : public SharedMeta {
 public:
  explicit LocalSharedMeta(storage::MetaStore& meta) : meta_(meta) {}
  void write(std::vector<Mutation> batch, storage::StatusCallback done) override {
    meta_.write(std::move(batch), std::move(done));
  }
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override {
    return meta_.scan(prefix);
  }
  void subscribe(std::string, std::function<void()>) override {}  // nobody else writes here
  void start() override {}

 private:
  storage::MetaStore& meta_;
};

}  // namespace rokka::broker
