// ClusterLink: the broker's side of cluster mode (rokka.cluster.etcd.endpoints set;
// docs/cluster.md). It owns the `rokka-cluster` thread and, on it, the cluster room's parts:
// the etcd client, this broker's Membership (registration under a lease, the fence clock),
// the ControllerElection and the ClusterView. From the view it keeps
//   - the TopicRegistry following etcd's topic records (topics created, grown, reconfigured
//     and deleted on any broker are applied here, one change at a time), and
//   - a ClusterPicture for the handlers: the live brokers, the controller, the coordinator shards,
// and it gives the shared broker state (ACLs, SCRAM credentials, dynamic broker configs, client
// quotas: broker/meta/etcd_shared_meta.h) the view and etcd txns answered once the view has them.
// Handlers never wait on etcd to read; the topic changes they ask for (TopicAuthority) are
// compare-guarded etcd writes, answered once this broker's registry has applied them.
//
// A topic of replication factor 1 has one copy per partition, on the broker its topic's
// placement names (cluster/placement.h). Every broker holds every such topic's partitions in
// its registry (empty where it does not lead), so a partition's data stays where it was written.
// A topic of replication factor > 1 lives in a replication group's store (its placement names
// the group): only the member leading the group creates, grows and deletes its partitions
// there; the other members' stores receive them through replication and their registries
// publish what their store holds (docs/cluster.md "Topics in a group's store").
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "broker/config/config.h"
#include "broker/link/cluster_group.h"
#include "broker/link/group_controller.h"
#include "broker/meta/etcd_shared_meta.h"
#include "broker/meta/topic_registry.h"
#include "broker/records/store_set.h"
#include "cluster/cluster_view.h"
#include "cluster/confirm_waiters.h"
#include "cluster/controller.h"
#include "cluster/membership.h"
#include "cluster/producer_id_blocks.h"

namespace rokka::broker {

class GroupMember;  // broker/link/group_member.h

struct ClusterBroker {
  int32_t id = -1;
  int64_t epoch = 0;  // its registration's create_revision (cluster::BrokerInfo::epoch)
  std::vector<cluster::Listener> listeners;
  std::optional<std::string> rack;
  // The listener named `name` (the one a request came in on), or nullptr: Kafka lists a
  // broker to a client only on the listener the client used.
  const cluster::Listener* listener(std::string_view name) const;
};

// What handlers read of the cluster; immutable once published.
struct ClusterPicture {
  std::map<int32_t, ClusterBroker> brokers;  // registered, i.e. alive
  int32_t controller = -1;
  int32_t coordinator_shards = 0;      // 0 until the shards are placed (the first FindCoordinator)
  std::vector<int32_t> coordinators;  // each shard's broker (v1 record: no replication groups)
  std::vector<std::string> coordinator_groups;  // v2 record: shard s is on [s % size]'s leader
  std::map<std::string, ClusterGroup, std::less<>> groups;  // every group with a spec or a state
  bool live(int32_t id) const { return brokers.count(id) != 0; }
  const ClusterGroup* group(std::string_view name) const {
    auto it = groups.find(name);
    return it == groups.end() ? nullptr : &it->second;
  }
};
// The picture's view of one group from the snapshot's spec and state, given the live brokers.
ClusterGroup picture_group(const cluster::GroupInfo& info, const std::map<int32_t, ClusterBroker>& brokers);

class ClusterLink final : public TopicAuthority, public ClusterMetaAccess {
 public:
  // The coordinator shards (Kafka's offsets.topic.num.partitions default).
  static constexpr int32_t kCoordinatorShards = 50;

  // Starts the thread and the etcd client and reads the whole view (waits for etcd up to
  // about a minute). Nothing is registered yet.
  static storage::Result<std::unique_ptr<ClusterLink>> connect(const BrokerConfig& config);
  ~ClusterLink() override;

  // Start-up, on the caller's thread (blocking). The cluster id: etcd's, or `local` (this
  // broker's data, may be empty: then a new one) when this broker founds the cluster. A
  // broker whose data belongs to another cluster is refused, as Kafka refuses it.
  storage::Result<std::string> agree_cluster_id(const std::string& local);
  // Start-up, after agree_cluster_id: the replication groups this broker is a member of, by
  // their spec in etcd, else (no spec there yet) by rokka.replication.groups. A config group
  // whose spec in etcd differs is logged: etcd's wins.
  std::vector<std::string> member_groups() const;
  // Start-up, before join: the store of group `group` (opened and fenced by the broker, which
  // closes it only after stop()). From join on, a GroupMember gives it the role the group's
  // state names (broker/link/group_member.h), and the registration publishes its hints.
  // `slot` is the store's place in the broker's StoreSet (member_of).
  void add_group_store(std::string group, StoreSlot slot, storage::Store& store, const storage::StoreOptions& options);
  // Registers this broker under its lease with `advertised`, campaigns for controller, and
  // makes `topics` follow etcd (a founding broker first publishes the topics it already had).
  // Returns once registered and the registry matches the view.
  storage::Status join(const std::vector<Listener>& advertised, TopicRegistry& topics);
  // Resigns as controller, revokes the lease (the others see this broker leave at once),
  // stops the thread. Idempotent.
  void stop();

  // ---- any thread ----
  std::shared_ptr<const ClusterPicture> picture() const { return picture_.load(std::memory_order_acquire); }
  // True while this broker may not act as a leader: its lease may have ended.
  bool fenced() const { return !membership_ || membership_->fenced(); }
  int32_t self() const { return self_; }
  // The broker coordinating `key` (a group or transactional id), or -1 while none can: the
  // shards are being placed (first use), or their broker is down. With replication groups the
  // shards are on the groups: the broker the shard's group state names leader, while that
  // incarnation is registered (ClusterGroup::leader).
  int32_t coordinator_of(std::string_view key);
  // The replication group of `key`'s coordinator shard, or "" (the shards are on brokers, or
  // not placed yet).
  std::string coordinator_group(std::string_view key) const;
  // `fn(member)` runs on the cluster thread after each role a member of this broker takes
  // (after the topic registry has been told). Before join().
  void set_group_role_listener(std::function<void(GroupMember&)> fn) { group_role_listener_ = std::move(fn); }
  // This broker's replication group members (fixed once join() returned).
  const std::vector<std::shared_ptr<GroupMember>>& group_members() const { return members_; }
  // The member owning the group store at `slot` of the broker's StoreSet, or nullptr (the root
  // store, a slot of no group, before join()).
  GroupMember* member_of(StoreSlot slot) const;
  // For the store of a replication group at `slot`: the ConfirmWaiters of this broker's lead of
  // the group (kept alive with its replication server), nullptr while it does not lead it;
  // nullopt when `slot` is no group's store (nothing to confirm).
  std::optional<std::shared_ptr<cluster::ConfirmWaiters>> confirm_waiters(StoreSlot slot) const;
  // The replication groups this cluster has, by name, with their members: etcd's specs, and
  // rokka.replication.groups' groups etcd has no spec of.
  std::map<std::string, std::vector<int32_t>> replication_groups() const;
  // A new topic of `replication_factor` (> 1) copies: the group it goes to (the groups of that
  // size in turn by the topic's name), else INVALID_REPLICATION_FACTOR.
  std::pair<TopicError, std::string> group_for(int32_t replication_factor, std::string_view topic) const;
  // The group whose members are exactly `brokers` (in any order), else INVALID_REPLICA_ASSIGNMENT.
  std::pair<TopicError, std::string> group_with(std::vector<int32_t> brokers) const;
  // A block of producer ids no other broker gets (ProducerIds::BlockSource).
  void reserve_producer_ids(std::function<void(storage::Result<std::pair<int64_t, int64_t>>)> done);

  // ---- TopicAuthority (any thread; callbacks on the cluster thread) ----
  void create(std::string name, int32_t partitions, std::map<std::string, std::string> configs,
              std::vector<int32_t> assignment, std::string group, std::function<void(TopicError)> done) override;
  void remove(std::string name, std::function<void(TopicError)> done) override;
  void add_partitions(std::string name, int32_t new_total, std::vector<int32_t> assignment,
                      std::function<void(TopicError)> done) override;
  void set_configs(std::string name, std::map<std::string, std::string> configs,
                   std::function<void(TopicError)> done) override;

  // ---- ClusterMetaAccess: the shared broker state (any thread; callbacks on the cluster thread) ----
  const cluster::Keys& keys() const override { return keys_; }
  SnapshotPtr view() const override { return view_->snapshot(); }
  void follow_view(std::function<void(const SnapshotPtr&)> fn) override;
  void commit(cluster::Txn txn, TxnCallback done) override;
  // Whether this broker created the cluster id (agree_cluster_id): it publishes what it had.
  bool founded() const { return founded_; }

 private:
  explicit ClusterLink(const BrokerConfig& config);
  void on_snapshot(const cluster::ClusterView::SnapshotPtr& snap);  // cluster thread
  void sync_topics();                                               // cluster thread
  void resync();  // cluster thread: sync_topics() again, the view unchanged (a group store changed)
  void synced(int64_t revision);                                    // cluster thread
  // Calls `done` once the registry has applied etcd's revision `revision` and `ready` (when
  // given) holds, or after a deadline.
  void when_synced(int64_t revision, std::function<void(TopicError)> done,
                   std::function<bool()> ready = {});  // cluster thread
  // Whether the registry shows topic `name` as etcd has it now: for a topic in a group store
  // this broker follows, that waits for replication to bring it (cluster thread).
  bool settled(const std::string& name) const;
  // The slot of group `group`'s store, if this broker holds one.
  std::optional<StoreSlot> slot_of(std::string_view group) const;
  // Calls `done` once the view has etcd's revision `revision` (or after a deadline).
  void when_seen(int64_t revision, std::function<void(storage::Status)> done);  // cluster thread
  boost::asio::awaitable<void> publish_local_topics(TopicRegistry& topics);
  boost::asio::awaitable<void> place_coordinators();
  // join(): a v1 coordinators record (shards on brokers) in a cluster with replication groups
  // refuses the start.
  storage::Status check_coordinators_record() const;
  // Updates the record of topic `name` with `change` (compare-and-swap on its revision, retried).
  void update_topic(std::string name, std::function<TopicError(cluster::TopicRecord&)> change,
                    std::function<void(TopicError)> done);
  std::vector<int32_t> live_brokers() const;
  storage::Status start_group_members();  // join(): after the membership exists

  const BrokerConfig& config_;
  const int32_t self_;
  cluster::Keys keys_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  std::shared_ptr<cluster::EtcdClient> client_;
  std::shared_ptr<cluster::ClusterView> view_;
  std::shared_ptr<cluster::Membership> membership_;
  std::shared_ptr<cluster::ControllerElection> election_;
  std::unique_ptr<cluster::ProducerIdBlocks> producer_ids_;
  std::shared_ptr<GroupController> group_controller_;  // the replication groups' bootstrap and elections
  std::atomic<std::shared_ptr<const ClusterPicture>> picture_;
  bool founded_ = false;  // this broker created the cluster id (start-up only)
  std::string cluster_id_;  // agree_cluster_id's answer

  // Replication groups: their stores (start-up), a member each (from join on), and the thread
  // their replication streams run on (reads of mapped log files must not delay a keepalive).
  struct GroupStore {
    std::string group;
    StoreSlot slot = kRootSlot;
    storage::Store* store = nullptr;
    int64_t segment_bytes = 0;
    int64_t max_append_bytes = 0;
    bool flush_async = false;
  };
  std::vector<GroupStore> group_stores_;
  const StoreSet* stores_ = nullptr;  // the registry's, set by join()
  boost::asio::io_context stream_io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> stream_work_;
  std::thread stream_thread_;
  std::vector<std::shared_ptr<GroupMember>> members_;  // destroyed before the io_contexts they run on
  bool stopped_ = false;

  // ---- cluster thread ----
  TopicRegistry* topics_ = nullptr;  // set by join()
  cluster::ClusterView::SnapshotPtr latest_;
  bool syncing_ = false;
  bool resync_ = false;  // a group store's topics or role changed since the last sync began
  int64_t synced_revision_ = 0;
  // Topics a follower's registry dropped because its group store no longer holds them while etcd still
  // had them (replication brought the leader's deletion first), by name, with the id dropped: their
  // committed offsets go once etcd no longer has that id, as the leader's go at its deletion.
  std::map<std::string, protocol::Uuid> unpublished_;
  struct SyncWaiter {
    std::function<bool()> ready;  // empty: the revision is enough
    std::function<void(TopicError)> done;
    std::chrono::steady_clock::time_point expires;  // dropped after (done has answered by then)
  };
  std::multimap<int64_t, SyncWaiter> sync_waiters_;
  bool placing_coordinators_ = false;
  std::function<void(GroupMember&)> group_role_listener_;  // set before join()
  std::multimap<int64_t, std::function<void(storage::Status)>> seen_waiters_;
  std::vector<std::function<void(const SnapshotPtr&)>> view_followers_;
};

}  // namespace rokka::broker
