// GroupMember: one replication group's store on this broker, in the role the group's state in
// etcd gives it (issue 24, plan24 S5a; docs/cluster.md "Roles from the group state").
//
// It follows the ClusterView's snapshots (the group's state, the leader's registration) and this
// broker's Membership, and moves the store between three roles, one change at a time, always
// towards what the latest inputs say:
//   - leader of epoch E: the state names this broker AND its broker epoch (the registration's
//     create_revision), so an earlier incarnation named there never leads (a restart always comes
//     back as follower). The follower client is stopped and gone first, then set_role(kLeader, E),
//     then a ReplicationServer on rokka.replication.listener with the state's SSS as in-sync set
//     and C from where the store and the client left it; leading_epoch() says E from then on;
//   - follower of epoch E: the state names another leader. No server; set_role(kFollower, E); a
//     StoreLog and a ReplicationClient to the leader's published replication endpoint, told E
//     (observe_epoch) and moved when the leader moves (set_leader);
//   - fenced: the membership is fenced or not registered, the state names nobody, names this
//     broker as another incarnation, or is missing. The server stops (waiters fail kNotLeader),
//     the client stops, set_role(kFenced, E) with the epoch it had (a fenced leader may later
//     resume it).
// The Store opens fenced (Broker::open) and is not written by anything else in these roles.
//
// Threading: create, start, on_snapshot, on_membership and stop on the control executor (the
// `rokka-cluster` thread), which never blocks: the store's writer answers through callbacks
// awaited with repl::await_status. The server and client run on the stream executor (their own
// thread: their reads of mapped log files may fault). role(), epoch() and leading_epoch() from
// any thread.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_view.h"
#include "cluster/membership.h"
#include "cluster/records.h"
#include "cluster/signal.h"
#include "storage/store.h"

namespace rokka::cluster {
class ReplicationClient;
class ReplicationServer;
class StoreLog;
}  // namespace rokka::cluster

namespace rokka::broker {

struct GroupMemberOptions {
  std::string cluster_id;
  std::string group;
  int32_t self = -1;                            // broker.id
  boost::asio::ip::tcp::endpoint listen_at;     // rokka.replication.listener
  int64_t segment_bytes = 0;                    // the store's (every member's must be equal)
  int64_t max_append_bytes = 0;                 // the store's StoreOptions::max_append_bytes
  bool confirm_written = false;                 // store.flush.mode=async: C over written ends
  std::chrono::milliseconds heartbeat{100};     // rokka.replication.heartbeat.ms
  std::chrono::milliseconds idle_timeout{5000}; // rokka.replication.idle.timeout.ms
};

enum class GroupRole { kFenced, kFollower, kLeader };
const char* group_role_name(GroupRole role);

class GroupMember : public std::enable_shared_from_this<GroupMember> {
 public:
  // `store` must outlive the member until stop() has completed.
  static std::shared_ptr<GroupMember> create(boost::asio::any_io_executor control,
                                             boost::asio::any_io_executor stream, storage::Store& store,
                                             std::shared_ptr<cluster::Membership> membership,
                                             GroupMemberOptions options);
  ~GroupMember();

  // ---- control executor ----
  void start();
  void on_snapshot(const std::shared_ptr<const cluster::ClusterSnapshot>& snap);
  void on_membership(const cluster::MembershipEvent& event);
  // `fn` runs on the control executor after each role this member takes (leading_epoch() set
  // for a leader): the topic registry follows it (broker/link/cluster_link.cc). Before start().
  void set_role_listener(std::function<void()> fn) { role_listener_ = std::move(fn); }
  // Stops the server and the client (waiting until the client has stopped) and the role loop;
  // the store is not used afterwards. The store keeps its role (a graceful stop of a leader
  // then closes a leading store; the next open fences it).
  boost::asio::awaitable<void> stop();

  // ---- any thread ----
  const std::string& group() const { return options_.group; }
  GroupRole role() const { return role_.load(); }
  int32_t epoch() const { return epoch_.load(); }  // the epoch of the role held (-1: none yet)
  // The epoch this store leads, -1 unless it leads: what routing compares with the state's.
  int32_t leading_epoch() const { return leading_epoch_.load(); }
  storage::Store& store() const { return store_; }

 private:
  struct Target {
    GroupRole role = GroupRole::kFenced;
    int32_t epoch = -1;   // the state's (kFenced: -1, keep the store's)
    int32_t leader = cluster::kNoLeader;
    std::vector<int32_t> sss;
    std::optional<cluster::ReplicationEndpoint> leader_at;  // kFollower: the leader's published endpoint
    std::string why;      // kFenced: for the log
  };

  GroupMember(boost::asio::any_io_executor control, boost::asio::any_io_executor stream, storage::Store& store,
              std::shared_ptr<cluster::Membership> membership, GroupMemberOptions options);
  Target target() const;
  boost::asio::awaitable<void> run();
  // Each returns false when the store refused or the listener could not bind: retried later.
  boost::asio::awaitable<bool> become_fenced(const Target& t);
  boost::asio::awaitable<bool> become_follower(const Target& t);
  boost::asio::awaitable<bool> become_leader(const Target& t);
  boost::asio::awaitable<void> stop_client();
  void stop_server();
  boost::asio::awaitable<storage::Status> set_role(storage::Role role, int32_t epoch);
  boost::asio::awaitable<std::optional<boost::asio::ip::tcp::endpoint>> resolve(cluster::ReplicationEndpoint at);

  boost::asio::any_io_executor control_;
  boost::asio::any_io_executor stream_;
  storage::Store& store_;
  std::shared_ptr<cluster::Membership> membership_;
  GroupMemberOptions options_;
  std::shared_ptr<cluster::StoreLog> log_;

  // ---- control executor ----
  cluster::Signal wake_;
  std::shared_ptr<const cluster::ClusterSnapshot> snapshot_;
  std::shared_ptr<cluster::ReplicationServer> server_;
  std::shared_ptr<cluster::ReplicationClient> client_;
  std::optional<boost::asio::ip::tcp::endpoint> client_leader_;  // where client_ connects
  std::vector<int32_t> in_sync_;  // the server's in-sync set (kLeader)
  std::function<void()> role_listener_;
  bool started_ = false;
  bool stopping_ = false;
  bool running_ = false;  // run() has not returned
  cluster::Signal ended_;  // -> stop(): run() returned

  std::atomic<GroupRole> role_{GroupRole::kFenced};
  std::atomic<int32_t> epoch_{-1};
  std::atomic<int32_t> leading_epoch_{-1};
};

}  // namespace rokka::broker
