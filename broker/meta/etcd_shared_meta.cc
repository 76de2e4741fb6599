#include "broker/meta/etcd_shared_meta.h"

#include <future>
#include <map>
#include <memory>

#include "broker/logging.h"
#include "cluster/records.h"

namespace rokka::broker {
namespace {

// Whether the keys under `prefix` are the same, each at the same revision, in both snapshots.
bool same_under(const cluster::ClusterSnapshot& a, const cluster::ClusterSnapshot& b, std::string_view prefix) {
  auto x = a.raw.lower_bound(prefix);
  auto y = b.raw.lower_bound(prefix);
  for (;; ++x, ++y) {
    const bool x_done = x == a.raw.end() || !x->first.starts_with(prefix);
    const bool y_done = y == b.raw.end() || !y->first.starts_with(prefix);
    if (x_done || y_done) return x_done && y_done;
    if (x->first != y->first || x->second.mod_revision != y->second.mod_revision) return false;
  }
}

// Blocks the calling (non-cluster) thread until `cluster` has committed `txn`.
storage::Result<cluster::TxnResult> commit_and_wait(ClusterMetaAccess& cluster, cluster::Txn txn) {
  auto result = std::make_shared<std::promise<storage::Result<cluster::TxnResult>>>();
  auto future = result->get_future();
  cluster.commit(std::move(txn), [result](storage::Result<cluster::TxnResult> r) { result->set_value(std::move(r)); });
  return future.get();
}

}  // namespace

EtcdSharedMeta::EtcdSharedMeta(ClusterMetaAccess& cluster)
    : cluster_(cluster), keys_(cluster.keys()), seen_(cluster.view()) {}

cluster::Txn EtcdSharedMeta::txn_of(const cluster::Keys& keys, std::vector<Mutation> batch) {
  std::map<std::string, Mutation*> last;  // etcd refuses a key twice in one txn: the last mutation wins
  for (Mutation& m : batch) last[m.key] = &m;
  cluster::Txn txn;
  for (auto& [key, m] : last) {
    if (m->erase) {
      txn.success.emplace_back(cluster::DeleteRequest{.key = keys.meta(key)});
    } else {
      txn.success.emplace_back(cluster::PutRequest{.key = keys.meta(key), .value = cluster::encode_meta_value(m->value)});
    }
  }
  return txn;
}

void EtcdSharedMeta::write(std::vector<Mutation> batch, storage::StatusCallback done) {
  std::vector<std::string> touched;  // the MetaStore keys the batch changes
  for (const Mutation& m : batch) touched.push_back(m.key);
  cluster_.commit(txn_of(keys_, std::move(batch)),
                  [this, touched = std::move(touched), done = std::move(done)](storage::Result<cluster::TxnResult> r) {
                    done(r.ok() ? storage::Status() : r.status());
                    if (!r.ok()) return;  // a write whose outcome is unknown comes through the view, if it was made
                    // The writer has applied its own change over what it knew; reloading from the
                    // view (which has the write) keeps a later change of another broker that the
                    // view may have brought first.
                    for (const Subscriber& s : subscribers_)
                      for (const std::string& key : touched)
                        if (key.starts_with(s.prefix)) {
                          s.fn();
                          break;
                        }
                  });
}

std::vector<std::pair<std::string, std::string>> EtcdSharedMeta::scan(std::string_view prefix) const {
  const auto snap = cluster_.view();
  const std::string from = keys_.meta(prefix);
  const size_t root = keys_.meta_prefix().size();
  std::vector<std::pair<std::string, std::string>> out;
  for (const cluster::KeyValue* kv : snap->with_prefix(from)) {
    auto value = cluster::decode_meta_value(kv->value);
    if (!value.ok()) {
      broker_log().warn("cluster: shared broker state skipped, its value does not decode: key={} revision={} error={}",
                        kv->key, kv->mod_revision, value.status().to_string());
      continue;
    }
    out.emplace_back(kv->key.substr(root), std::move(value).value());
  }
  return out;
}

void EtcdSharedMeta::subscribe(std::string prefix, std::function<void()> fn) {
  subscribers_.push_back({std::move(prefix), std::move(fn)});
}

void EtcdSharedMeta::start() {
  cluster_.follow_view([this](const ClusterMetaAccess::SnapshotPtr& snap) { on_view(snap); });
}

void EtcdSharedMeta::on_view(const ClusterMetaAccess::SnapshotPtr& snap) {
  const auto before = std::exchange(seen_, snap);
  if (before == snap) return;
  for (const Subscriber& s : subscribers_)
    if (!same_under(*before, *snap, keys_.meta(s.prefix))) s.fn();
}

storage::Status EtcdSharedMeta::publish(const storage::MetaStore& local, std::span<const std::string_view> prefixes) {
  size_t published = 0, kept = 0;
  for (const std::string_view prefix : prefixes) {
    for (auto& [key, value] : local.scan(prefix)) {
      const std::string etcd_key = keys_.meta(key);
      cluster::Txn txn{{cluster::Compare::absent(etcd_key)},
                       {cluster::PutRequest{.key = etcd_key, .value = cluster::encode_meta_value(value)}},
                       {}};
      auto r = commit_and_wait(cluster_, std::move(txn));
      if (!r.ok()) return storage::Status::io_error("publishing this broker's " + std::string(prefix) +
                                                    " records to etcd failed: " + r.status().to_string());
      ++(r->succeeded ? published : kept);
    }
  }
  broker_log().info("cluster: published this broker's shared state: records={} already_in_etcd={}", published, kept);
  return {};
}

}  // namespace rokka::broker
