// Coordinators: the group and transaction coordinators handlers talk to (issue 24, plan24 S9;
// docs/cluster.md "Coordinators in the replication groups").
//
// A CoordinatorPair is one GroupService and the TransactionService on its strand, over one
// MetaStore. Handlers reach the pair in use through current(), never null:
//   - a single broker, or a cluster without replication groups: the root store's pair, from
//     start() to stop(), as before;
//   - a cluster with replication groups: the coordinator shards are on the groups, and their
//     records are in the group store's meta. While this broker leads its group, the pair of that
//     lead: built when the member becomes leader of epoch E, over the store's meta wrapped in
//     ConfirmedMeta (a write is answered once the group's C covers it: it survives a failover),
//     started (it loads what replication brought, answering COORDINATOR_LOAD_IN_PROGRESS
//     meanwhile), and stopped when the member leaves that role (demoted, fenced, stopping:
//     parked requests get COORDINATOR_NOT_AVAILABLE). Otherwise a stand-in that never started
//     and is stopped: it answers COORDINATOR_NOT_AVAILABLE (serving() is false).
// Handlers first ask ClusterLink::coordinator_of, as before: a broker that does not coordinate a
// key answers NOT_COORDINATOR and never reaches the pair.
//
// Lifetime: a handler keeps the shared_ptr it got across its co_awaits. A retired pair is
// destroyed on its own strand, once no handler holds it and every callback its services handed
// out (meta writes, transaction markers, producer-id blocks: tracked()) has run, so nothing
// queued on the strand can find it gone.
//
// Threading: current() from any thread; on_role on the cluster thread; start/stop/
// destroy_all from the broker's start and stop.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "broker/records/confirmed_meta.h"
#include "coordinator/group_service.h"
#include "coordinator/transaction_service.h"
#include "storage/meta_store.h"

namespace rokka::broker {

class GroupMember;  // broker/link/group_member.h
class CoordinatorPair;

// The callbacks a pair's services handed out and that have not run yet; a retired pair is kept
// until there are none.
class InFlight {
 public:
  void enter();
  void leave();
  // Stopped: the pair is released once nothing is in flight (at once if nothing is).
  void retire(std::shared_ptr<CoordinatorPair> pair);

 private:
  std::mutex mu_;
  int64_t count_ = 0;
  bool retired_ = false;
  std::shared_ptr<CoordinatorPair> hold_;  // retired with callbacks in flight
};

// `fn` wrapped so that its pair stays until it ran (call it exactly once).
template <typename Fn>
auto tracked(const std::shared_ptr<InFlight>& in, Fn fn) {
  in->enter();
  return [in, fn = std::move(fn)](auto&&... args) mutable {
    fn(std::forward<decltype(args)>(args)...);
    in->leave();
  };
}

class CoordinatorPair {
 public:
  coordinator::GroupService& groups() const { return *groups_; }
  coordinator::TransactionService& txns() const { return *txns_; }
  // False for the stand-in of a broker leading no group: it answers COORDINATOR_NOT_AVAILABLE,
  // and ListGroups / ListTransactions list nothing here.
  bool serving() const { return serving_; }
  const std::string& group() const { return group_; }  // "" for the root store's pair
  int32_t epoch() const { return epoch_; }               // the lead's group epoch (-1: root)

 private:
  friend class Coordinators;
  std::string group_;
  int32_t epoch_ = -1;
  bool serving_ = true;
  std::shared_ptr<InFlight> in_flight_ = std::make_shared<InFlight>();
  std::unique_ptr<ConfirmedMeta> confirmed_;     // group pairs: the store's meta, confirmed
  std::unique_ptr<storage::MetaStore> counted_;  // what the services write to (tracked)
  std::unique_ptr<coordinator::GroupService> groups_;
  std::unique_ptr<coordinator::TransactionService> txns_;  // on groups_' strand; destroyed first
};

class Coordinators {
 public:
  // Builds a pair's services over `meta` (the broker's options, topic hooks, marker writer);
  // callbacks they hand out other than meta writes go through tracked(in, ...).
  struct Built {
    std::unique_ptr<coordinator::GroupService> groups;
    std::unique_ptr<coordinator::TransactionService> txns;
  };
  using Build = std::function<Built(storage::MetaStore& meta, const std::shared_ptr<InFlight>& in)>;

  // `root_meta`: the root store's. With `on_groups` the pairs are built per lead of a group
  // (the stand-in is built over root_meta and never writes it); otherwise the root pair is.
  Coordinators(Build build, storage::MetaStore& root_meta, bool on_groups);
  ~Coordinators();

  std::shared_ptr<CoordinatorPair> current() const { return current_.load(std::memory_order_acquire); }
  bool on_groups() const { return on_groups_; }

  // Broker::start: the root pair loads (the group pairs start with their lead).
  void start();
  // Cluster thread, after each role `member` takes: builds, starts, stops pairs as above.
  void on_role(GroupMember& member);
  // Broker::stop, before the server stops: the current pair stops (no more leads are taken).
  void stop();
  // Broker::stop, once the server's io_contexts have stopped: pairs released from now on are
  // destroyed at once (their strands run no more).
  void strands_stopped() { strands_stopped_->store(true); }

 private:
  std::shared_ptr<CoordinatorPair> make_pair(std::unique_ptr<CoordinatorPair> pair, storage::MetaStore& meta);
  void install(std::shared_ptr<CoordinatorPair> next);  // retires the one it replaces

  Build build_;
  const bool on_groups_;
  std::shared_ptr<std::atomic<bool>> strands_stopped_ = std::make_shared<std::atomic<bool>>(false);
  std::atomic<std::shared_ptr<CoordinatorPair>> current_;
  std::mutex mu_;  // on_role and stop
  bool stopped_ = false;
};

}  // namespace rokka::broker
