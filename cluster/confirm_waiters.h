// ConfirmWaiters: acks=all produce requests waiting for the confirm position C (SCALE-OUT §3.8),
// and the computation of C itself (§3.7).
//
// C is the smallest end acknowledged by every member of the in-sync set (SSS), the leader
// counting its own: durable ends, or written ones when the leader runs with
// ReplicationServerOptions::confirm_written (async flush: "in every member's page cache").
// A waiter registered for log position P succeeds once C >= P; it fails when its deadline
// passes (kTimedOut: REQUEST_TIMED_OUT), when the group's store is demoted or fenced
// (kNotLeader: NOT_LEADER_OR_FOLLOWER), when the in-sync set shrank below the minimum
// (kNotEnoughReplicas: NOT_ENOUGH_REPLICAS_AFTER_APPEND), or at shutdown.
//
// Threading: every method may be called from any thread (one mutex). Callbacks run outside the
// lock, on the thread that resolved them (confirm(), fail_all(), expire(), add() itself when
// the answer is known at once); wait() brings the answer back to the caller's executor.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rokka::cluster {

struct ConfirmOutcome {
  enum class Kind { kConfirmed, kTimedOut, kNotLeader, kNotEnoughReplicas, kShutdown };
  Kind kind = Kind::kConfirmed;
  std::string reason;
  bool ok() const { return kind == Kind::kConfirmed; }
};
const char* confirm_outcome_name(ConfirmOutcome::Kind kind);

// One member's acknowledged end that counts for C (its durable end, or its written end under
// confirm_written), as its last ACK said.
struct MemberAck {
  int32_t member = 0;
  int64_t end = 0;
};

// C over the in-sync set: min(leader_end, the end acked by each other member of in_sync), all
// ends of one kind (durable, or written). A member of in_sync with no ack in `acks` has
// acknowledged nothing: C is then `floor` (the caller keeps C monotonic). `leader` may be listed
// in in_sync; it counts once, with leader_end.
int64_t confirm_position(int32_t leader, int64_t leader_end, std::span<const int32_t> in_sync,
                         std::span<const MemberAck> acks, int64_t floor);

class ConfirmWaiters {
 public:
  using Clock = std::chrono::steady_clock;
  using Callback = std::function<void(ConfirmOutcome)>;

  // Waits for C >= position. Answers at once (on this thread) when C already is there, or when
  // closed. Returns an id for cancel().
  uint64_t add(int64_t position, Clock::time_point deadline, Callback done);
  // Removes a waiter without answering it; false when it was already answered (or never existed).
  bool cancel(uint64_t id);

  // C moved: answers every waiter at or below it (in position order). C never moves back: a
  // lower value is ignored.
  void confirm(int64_t position);
  int64_t confirmed() const;
  // Fails every waiter whose deadline is at or before `now` with kTimedOut. Returns the earliest
  // deadline still waiting (time_point::max() when none), for the caller's timer.
  Clock::time_point expire(Clock::time_point now);
  // Fails every waiter with `kind` (demotion, fencing, the SSS shrinking below the minimum).
  void fail_all(ConfirmOutcome::Kind kind, const std::string& reason);
  // Fails every waiter and every later add() with `kind` until reopen() (demotion, shutdown).
  void close(ConfirmOutcome::Kind kind, const std::string& reason);
  // Accepts waiters again (this broker leads again), with C restarting at `confirmed`.
  void reopen(int64_t confirmed);

  size_t size() const;

  // The coroutine form, on the caller's executor: the outcome, with the deadline kept by a timer
  // on that executor (so it needs nobody to call expire()).
  boost::asio::awaitable<ConfirmOutcome> wait(int64_t position, Clock::time_point deadline);

 private:
  struct Waiter {
    uint64_t id;
    Clock::time_point deadline;
    Callback done;
  };
  using Resolved = std::vector<std::pair<Callback, ConfirmOutcome>>;
  static void run(Resolved& resolved);

  mutable std::mutex mu_;
  std::multimap<int64_t, Waiter> by_position_;  // position -> waiter
  std::map<uint64_t, int64_t> positions_;       // id -> position (for cancel)
  int64_t confirmed_ = 0;
  uint64_t next_id_ = 1;
  bool closed_ = false;
  ConfirmOutcome closed_with_;
};

}  // namespace rokka::cluster
