// ClusterView: every broker's watched, immutable picture of the cluster's metadata in etcd,
// so that request handlers never wait on etcd (SCALE-OUT.md §3.2).
//
// It reads everything under the root at one revision R (paged, every page at R), publishes a
// ClusterSnapshot, then watches the prefix from R+1 and publishes a new snapshot after each
// watch message. If the watch's revision was compacted away, it reads everything again.
// snapshot() is a cheap atomic load from any thread; a snapshot never changes once published.
//
// Each publication rebuilds the snapshot from the key map: O(keys) per change, which is fine
// for metadata that changes a few times a second at most.
//
// Threading: create, start, stop and subscribe on the client's executor; subscribers run there.
// snapshot() from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "cluster/records.h"
#include "cluster/signal.h"
#include "cluster/watcher.h"

namespace rokka::cluster {

struct BrokerInfo {
  int32_t id = -1;
  int64_t epoch = 0;  // the registration's create_revision
  int64_t lease = 0;
  BrokerRegistration registration;
};

struct ControllerInfo {
  int32_t broker_id = -1;
  int64_t epoch = 0;  // the controller key's create_revision
};

struct TopicInfo {
  std::string name;
  TopicRecord record;
  int64_t create_revision = 0;  // changes when a topic is deleted and created again
  int64_t mod_revision = 0;
};

// One replication group's two keys. A key whose value does not decode counts as present (its
// mod_revision is kept, so a guarded write can replace it) with no value (and is in `malformed`).
struct GroupInfo {
  std::string name;
  std::optional<GroupSpec> spec;
  int64_t spec_mod_revision = 0;   // 0: no spec key
  std::optional<GroupState> state;
  int64_t state_mod_revision = 0;  // 0: no state key (a bootstrap compares it absent)
};

using KeyMap = std::map<std::string, KeyValue, std::less<>>;

struct ClusterSnapshot {
  int64_t revision = 0;  // the etcd revision this picture is complete at; 0 before the first read
  std::optional<std::string> cluster_id;
  std::map<int32_t, BrokerInfo> brokers;  // registered (= live) brokers
  std::optional<ControllerInfo> controller;
  std::map<std::string, TopicInfo, std::less<>> topics;
  std::map<std::string, GroupInfo, std::less<>> groups;  // every group with a spec or a state key
  std::optional<int32_t> epoch_counter;   // <root>/epoch; nullopt when absent or malformed
  int64_t epoch_counter_mod_revision = 0; // 0: no counter key
  KeyMap raw;                          // every key under the root, as stored (the shared broker state, ...)
  std::vector<std::string> malformed;  // keys whose value did not decode: left out of the maps above

  const BrokerInfo* broker(int32_t id) const;
  const TopicInfo* topic(std::string_view name) const;
  const GroupInfo* group(std::string_view name) const;
  // The raw entries under `prefix` (e.g. Keys::meta_prefix()), in key order.
  std::vector<const KeyValue*> with_prefix(std::string_view prefix) const;
};

// Builds the typed picture from the raw keys (pure: no etcd).
std::shared_ptr<const ClusterSnapshot> build_snapshot(const Keys& keys, KeyMap kvs, int64_t revision);

struct ClusterViewOptions {
  int64_t page_size = 500;  // keys per range page of a full read (each answer also under the client's cap)
  std::chrono::milliseconds retry_backoff{200};
};

class ClusterView : public std::enable_shared_from_this<ClusterView> {
 public:
  using SnapshotPtr = std::shared_ptr<const ClusterSnapshot>;
  using SnapshotFn = std::function<void(const SnapshotPtr&)>;

  static std::shared_ptr<ClusterView> create(std::shared_ptr<EtcdClient> client, Keys keys,
                                             ClusterViewOptions options = {});
  ~ClusterView();

  void subscribe(SnapshotFn fn) { subscribers_.push_back(std::move(fn)); }
  void start();
  void stop();

  // Any thread: the latest snapshot (revision 0 and empty until the first read finished).
  SnapshotPtr snapshot() const { return snapshot_.load(std::memory_order_acquire); }
  // Any thread: complete reads of every key so far; snapshot() already holds the last one.
  uint64_t full_reads() const { return full_reads_.load(); }

  // Test hooks: stop watching (as during a long disconnection), then resume from where the
  // watch stopped.
  void pause_watch_for_test();
  void resume_watch_for_test();

 private:
  ClusterView(std::shared_ptr<EtcdClient> client, Keys keys, ClusterViewOptions options);
  boost::asio::awaitable<void> run();
  boost::asio::awaitable<bool> read_all();
  void apply(const WatchResponse& msg);
  void publish();

  std::shared_ptr<EtcdClient> client_;
  Keys keys_;
  ClusterViewOptions options_;
  std::vector<SnapshotFn> subscribers_;
  Signal wake_;
  std::shared_ptr<Watcher> watcher_;
  KeyMap kvs_;
  std::map<std::string, int64_t> warned_;  // malformed keys already logged, at their mod_revision
  int64_t revision_ = 0;
  bool stopped_ = false;
  bool started_ = false;
  bool compacted_ = false;
  bool paused_ = false;
  std::atomic<SnapshotPtr> snapshot_;
  std::atomic<uint64_t> full_reads_{0};
};

}  // namespace rokka::cluster
