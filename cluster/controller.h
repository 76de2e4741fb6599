// ControllerElection: one broker of the cluster is the controller (SCALE-OUT.md §3.3).
//
// A serving broker campaigns with its membership lease:
//   txn(If create_revision(<root>/controller) == 0  Then put(controller, {"broker":id}, lease)
//       Else range(controller))
// The winner's key create_revision is the controller epoch. Every controller write carries
// controller_guard(epoch): Compare create_revision(<root>/controller) == epoch, so a broker
// that lost the key (its lease ended, someone else won) cannot write as controller any more.
// Losers watch the key and campaign again when it is deleted. Because the key shares the
// membership lease, a broker that dies loses both at once; a broker that fences (no keepalive
// answer in time) stops being controller at that instant, before its lease can end.
//
// Threading: the client's executor; events run there. is_controller()/epoch() from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "cluster/membership.h"
#include "cluster/signal.h"
#include "cluster/watcher.h"

namespace rokka::cluster {

// Prepends the controller fence to `txn`: it applies only while `epoch` is the controller epoch.
Txn controller_guard(const Keys& keys, int64_t epoch, Txn txn);

struct ControllerEvent {
  enum class Kind { kElected, kLost };
  Kind kind;
  int64_t epoch = 0;  // the controller epoch won or lost
};

class ControllerElection : public std::enable_shared_from_this<ControllerElection> {
 public:
  using EventFn = std::function<void(const ControllerEvent&)>;

  static std::shared_ptr<ControllerElection> create(std::shared_ptr<EtcdClient> client, Keys keys,
                                                    std::shared_ptr<Membership> membership);
  ~ControllerElection();

  void subscribe(EventFn fn) { subscribers_.push_back(std::move(fn)); }
  void start();
  // Stops campaigning. With `resign`, deletes the key if it is still this broker's (guarded),
  // so another broker takes over without waiting for the lease.
  boost::asio::awaitable<void> stop(bool resign);

  bool is_controller() const { return epoch_.load() != 0; }
  int64_t epoch() const { return epoch_.load(); }  // 0 unless controller
  // The guarded txn for this controller; fails (not succeeded) once the epoch is lost.
  Txn guard(Txn txn) const { return controller_guard(keys_, epoch(), std::move(txn)); }

 private:
  ControllerElection(std::shared_ptr<EtcdClient> client, Keys keys, std::shared_ptr<Membership> membership);
  boost::asio::awaitable<void> run();
  void on_membership(const MembershipEvent& e);
  void lose(const char* why);
  void emit(const ControllerEvent& e);

  std::shared_ptr<EtcdClient> client_;
  Keys keys_;
  std::shared_ptr<Membership> membership_;
  std::vector<EventFn> subscribers_;
  Signal wake_;
  std::shared_ptr<Watcher> watcher_;
  bool stopped_ = false;
  bool started_ = false;
  bool key_changed_ = false;  // the watched controller key was deleted or replaced
  std::atomic<int64_t> epoch_{0};
};

}  // namespace rokka::cluster
