// GroupController: the controller's part of the replication groups (docs/cluster.md,
// "Replication groups in etcd"; issue 24, plan stage S5b). While this broker is the controller
// (ControllerElection), from each cluster snapshot, for every group configured here
// (rokka.replication.groups) or present in etcd:
//   - a configured group without a spec in etcd: writes the spec (create-only; a spec already
//     there wins, a mismatch with this broker's configuration is logged);
//   - a spec and no state: writes the first state (cluster::bootstrap; it waits until a live
//     member has published a hint for the group, i.e. opened its group store);
//   - a state whose leader is unregistered or registered again (another broker epoch): writes
//     the next state (cluster::elect, with unclean.leader.election.enable).
// Every write is one guarded txn (the controller's epoch, the state's and the epoch counter's
// mod_revisions as seen): at most one in flight per group; one that did not apply changed
// nothing, and the next snapshot decides again; after one that applied, the group waits for a
// snapshot that includes it. An etcd error retries after a backoff. Losing the controller role
// stops it at once (a txn still in flight fails its controller compare).
//
// Threading: the cluster thread (the etcd client's executor) only.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "broker/config/config.h"
#include "cluster/cluster_view.h"
#include "cluster/controller.h"
#include "cluster/etcd_client.h"
#include "cluster/group_decisions.h"
#include "cluster/keys.h"

namespace rokka::broker {

// What the controller does next for one group, decided from a snapshot (pure).
struct GroupStep {
  enum class Kind { kNothing, kWriteSpec, kBootstrap, kElect };
  Kind kind = Kind::kNothing;
  cluster::GroupSpec spec;      // kWriteSpec: the configured spec
  cluster::GroupState state;    // kBootstrap, kElect: the state to write
  cluster::SeenRevisions seen;  // kBootstrap, kElect: what the decision was made on
  // Worth a log line: why nothing can be done (yet), or a spec differing from the
  // configuration (then the step is still etcd's). Empty: nothing to say.
  std::string note;
};

// The next step for `group` in `snap`. `configured`: the group's spec in this broker's
// rokka.replication.groups, or nullptr. A state or counter that does not decode is left alone
// (an operator deletes it; a newer format must not be overwritten): kNothing with a note.
GroupStep next_group_step(const cluster::ClusterSnapshot& snap, std::string_view group,
                          const cluster::GroupSpec* configured, bool unclean_allowed);

class GroupController : public std::enable_shared_from_this<GroupController> {
 public:
  struct Options {
    std::map<std::string, cluster::GroupSpec, std::less<>> configured;  // rokka.replication.groups
    bool unclean_allowed = false;                                       // unclean.leader.election.enable
    std::chrono::milliseconds retry_backoff{500};                       // after an etcd error
  };
  static Options options_from(const BrokerConfig& config);

  static std::shared_ptr<GroupController> create(std::shared_ptr<cluster::EtcdClient> client, cluster::Keys keys,
                                                 Options options);

  void on_controller(const cluster::ControllerEvent& e);
  void on_snapshot(const cluster::ClusterView::SnapshotPtr& snap);
  // Stops deciding; a txn in flight completes unobserved.
  void stop();

 private:
  GroupController(std::shared_ptr<cluster::EtcdClient> client, cluster::Keys keys, Options options);
  struct Group {
    bool in_flight = false;
    int64_t settle_revision = 0;  // decide again only on a snapshot at or past this revision
    std::string note;             // the last note logged
  };
  void decide();
  void send(const std::string& group, GroupStep step);
  void done(const std::string& group, int64_t epoch, int64_t decided_at, const GroupStep& step,
            const storage::Result<cluster::TxnResult>& r);
  void retry_later();

  std::shared_ptr<cluster::EtcdClient> client_;
  cluster::Keys keys_;
  Options options_;
  boost::asio::steady_timer retry_;
  bool retry_pending_ = false;
  bool stopped_ = false;
  int64_t epoch_ = 0;  // the controller epoch while this broker is the controller, else 0
  cluster::ClusterView::SnapshotPtr latest_;
  std::map<std::string, Group, std::less<>> groups_;  // while controller; cleared on a change of role
};

}  // namespace rokka::broker
