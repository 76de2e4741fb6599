// Membership: this broker's registration in etcd and its self-fencing clock.
//
// The broker registers <root>/brokers/<id> (BrokerRegistration) under a lease of
// `lease_ttl`, with txn(create_revision == 0): the key's create_revision is the broker
// epoch, so a restarted broker always gets a new one. If the key is still held by an earlier
// incarnation (a restart before its lease expired), the broker waits for it to go rather
// than take it over. One keepalive goes out every keepalive_interval (TTL/3).
//
// The fence: the broker is fenced when no keepalive was answered within
//   fence_deadline = (time the last answered keepalive was SENT) + TTL - fence_margin
// on its own steady clock. etcd renewed that lease when the request arrived, after it was
// sent, so etcd cannot expire the lease (and no other broker can take over) before
// sent + TTL; the broker stops at least `fence_margin` earlier. fenced() compares the clock
// with that deadline on every call, from any thread, so it holds even if the io thread is
// late to run the fenced callback (docs/cluster.md, "Fencing").
//
// After a fence: a later answered keepalive of the same lease unfences (same epoch: the lease
// never lapsed, so nobody took over). A keepalive answered with TTL 0 means the lease is gone:
// the broker registers again with a new lease and gets a new epoch.
//
// Threading: create, start, stop and subscribe on the client's executor; events run there.
// fenced(), fence_deadline(), epoch() and lease_id() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "cluster/records.h"
#include "cluster/signal.h"

namespace rokka::cluster {

struct MembershipOptions {
  int32_t broker_id = 0;
  std::vector<Listener> listeners;
  std::optional<std::string> rack;
  std::optional<ReplicationEndpoint> replication;  // a replication group member's stream listener
  // What each of the broker's group stores holds, asked each time the registration is written
  // (at start and after a lost lease): on the client's executor, so it must not block. Empty:
  // no hints (the broker is no group's member).
  std::function<std::map<std::string, GroupHint, std::less<>>()> group_hints;
  std::chrono::seconds lease_ttl{6};           // rokka.cluster.session.timeout.ms / 1000; etcd's minimum is 2 s
  std::chrono::milliseconds fence_margin{0};   // 0: TTL / 4
  std::chrono::milliseconds keepalive_interval{0};  // 0: TTL / 3
  std::chrono::milliseconds keepalive_timeout{0};   // 0: the interval; one keepalive in flight at a time
  std::chrono::milliseconds retry_backoff{200};     // after a failed grant, registration or keepalive
};

struct MembershipEvent {
  enum class Kind { kServing, kFenced };
  Kind kind;
  int64_t epoch = 0;   // kServing: the broker epoch
  int64_t lease = 0;
  std::string reason;  // kFenced
};

class Membership : public std::enable_shared_from_this<Membership> {
 public:
  using EventFn = std::function<void(const MembershipEvent&)>;

  static std::shared_ptr<Membership> create(std::shared_ptr<EtcdClient> client, Keys keys, MembershipOptions options);
  ~Membership();

  // Every event from now on. Subscribe before start() to see the first kServing.
  void subscribe(EventFn fn) { subscribers_.push_back(std::move(fn)); }
  void start();
  // Stops keepalives and registration. With `revoke`, revokes the lease (the key goes at once:
  // a graceful shutdown); otherwise the key stays until the lease expires (as after a crash).
  boost::asio::awaitable<void> stop(bool revoke);

  // ---- any thread ----
  bool fenced() const { return Clock::now().time_since_epoch().count() >= fence_deadline_ns_.load(); }
  Clock::time_point fence_deadline() const { return Clock::time_point(Clock::duration(fence_deadline_ns_.load())); }
  int64_t epoch() const { return epoch_.load(); }        // 0 while not registered
  int64_t lease_id() const { return lease_id_.load(); }  // 0 before the first grant
  // When the last keepalive (or grant) that etcd answered was sent.
  Clock::time_point last_answered_send() const { return Clock::time_point(Clock::duration(answered_send_ns_.load())); }

  // ---- executor ----
  const MembershipOptions& options() const { return options_; }
  const std::string& incarnation() const { return incarnation_; }
  bool serving() const { return serving_; }
  // Test hook: stops sending keepalives (as if this broker's path to etcd hung).
  void pause_keepalives_for_test(bool paused) { keepalives_paused_ = paused; }

 private:
  Membership(std::shared_ptr<EtcdClient> client, Keys keys, MembershipOptions options);
  boost::asio::awaitable<void> run();
  boost::asio::awaitable<void> keepalive_loop();
  boost::asio::awaitable<void> fence_clock();
  boost::asio::awaitable<int64_t> register_key(int64_t lease);
  boost::asio::awaitable<void> wait_for_delete(const std::string& key, int64_t from_revision);
  void answered(Clock::time_point sent, int64_t ttl);
  void fence(std::string reason);
  void emit(const MembershipEvent& e);
  Clock::time_point compute_deadline() const;

  std::shared_ptr<EtcdClient> client_;
  Keys keys_;
  MembershipOptions options_;
  std::string incarnation_;
  std::vector<EventFn> subscribers_;

  // One Signal per coroutine (a Signal has one waiter).
  Signal run_wake_;        // -> run(): the lease is gone, or stop
  Signal keepalive_wake_;  // -> keepalive_loop(): a new lease, or stop
  Signal fence_changed_;   // -> fence_clock(): the deadline moved, or stop
  std::shared_ptr<WatchStream> waiting_;  // the watch of an earlier incarnation's key, if any
  bool stopped_ = false;
  bool started_ = false;
  bool registered_ = false;
  bool serving_ = false;
  bool keepalives_paused_ = false;
  bool lease_gone_ = false;  // the current lease was answered with TTL 0
  int64_t current_lease_ = 0;
  int64_t ttl_seconds_ = 0;
  Clock::time_point answered_send_{};

  std::atomic<int64_t> fence_deadline_ns_{0};  // steady clock; 0 = fenced
  std::atomic<int64_t> epoch_{0};
  std::atomic<int64_t> lease_id_{0};
  std::atomic<int64_t> answered_send_ns_{0};
};

}  // namespace rokka::cluster
