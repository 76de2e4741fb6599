// EtcdSharedMeta: the shared broker state (broker/meta/shared_meta.h) of cluster mode, in etcd.
//
// A MetaStore key K is the etcd key <root>/meta/K (cluster/keys.h), its value the MetaStore
// value as a JSON string of base64 (cluster/records.h: encode_meta_value).
//   - scan(prefix) reads this broker's latest view of etcd (ClusterSnapshot::raw): it never
//     waits on etcd. A value that does not decode (written by hand) is skipped and logged.
//   - write(batch) is one etcd txn with every put and delete of the batch (the last mutation
//     of a key wins, as in a MetaStore batch; etcd refuses a key twice in one txn, and more
//     than its --max-txn-ops, 128 by default, operations). Its callback runs on the cluster
//     thread once this broker's view has the txn's revision, so the writer reads its own
//     write; then the subscribers of the prefixes it touched reload (a change of another
//     broker that the view applied in between is not lost under the writer's own).
//   - Every snapshot of the view whose keys under a subscribed prefix differ (key or
//     mod_revision) from the last one seen calls that subscriber: a change made on any broker
//     reaches this one within the view's propagation.
//
// Threading: construct, subscribe, publish and start on one thread before serving; write
// and scan from any thread; callbacks and notifications on the cluster thread.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/meta/shared_meta.h"
#include "cluster/cluster_view.h"
#include "cluster/etcd_types.h"
#include "cluster/keys.h"

namespace rokka::broker {

// What EtcdSharedMeta needs of cluster mode: ClusterLink provides it, tests fake it.
class ClusterMetaAccess {
 public:
  using SnapshotPtr = cluster::ClusterView::SnapshotPtr;
  using TxnCallback = std::function<void(storage::Result<cluster::TxnResult>)>;
  virtual ~ClusterMetaAccess() = default;
  virtual const cluster::Keys& keys() const = 0;
  // This broker's latest view of etcd (any thread).
  virtual SnapshotPtr view() const = 0;
  // Calls `fn` on the cluster thread with the latest snapshot, then with every later one.
  virtual void follow_view(std::function<void(const SnapshotPtr&)> fn) = 0;
  // Runs `txn` in etcd. `done` runs on the cluster thread with its result once this
  // broker's view has the txn's revision, or with an error: etcd did not answer (the outcome
  // may be unknown), or the view did not catch up within a deadline.
  virtual void commit(cluster::Txn txn, TxnCallback done) = 0;
};

class EtcdSharedMeta final : public SharedMeta {
 public:
  explicit EtcdSharedMeta(ClusterMetaAccess& cluster);

  void write(std::vector<Mutation> batch, storage::StatusCallback done) override;
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override;
  void subscribe(std::string prefix, std::function<void()> fn) override;
  // Notifications begin; a change since construction is reported at once. REQUIRES: every
  // subscribe() done.
  void start() override;

  // A founding broker keeps what it had as a single broker: its MetaStore's records under
  // `prefixes`, each written where etcd has no such key yet (blocking; before the
  // components load, never on the cluster thread).
  storage::Status publish(const storage::MetaStore& local, std::span<const std::string_view> prefixes);

  // The etcd txn of a MetaStore batch (exposed for tests).
  static cluster::Txn txn_of(const cluster::Keys& keys, std::vector<Mutation> batch);

 private:
  struct Subscriber {
    std::string prefix;  // a MetaStore prefix
    std::function<void()> fn;
  };
  void on_view(const ClusterMetaAccess::SnapshotPtr& snap);  // cluster thread

  ClusterMetaAccess& cluster_;
  const cluster::Keys keys_;
  std::vector<Subscriber> subscribers_;  // fixed once started
  ClusterMetaAccess::SnapshotPtr seen_;  // cluster thread once started: the snapshot last compared
};

}  // namespace rokka::broker
