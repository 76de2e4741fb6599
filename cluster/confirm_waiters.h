// ConfirmWaiters: acks=all produce requests waiting for the confirm position C (SCALE-OUT §3.8),
// and the computation of C itself (§3.7).
//
// C is the smallest end acknowledged by every member of the in-sync set (SSS), the leader
// counting its own: durable ends, or written ones when the leader runs with
// ReplicationServerOptions::confirm_written (async flush: "in every member's page cache").
// A waiter registered for log position P succeeds once C >= P, told the size of the in-sync set
// C covered it with (Produce answers NOT_ENOUGH_REPLICAS_AFTER_APPEND when that is below the
// topic's min.insync.replicas); it fails when its deadline passes (kTimedOut:
// REQUEST_TIMED_OUT), when the group's store is demoted or fenced (kNotLeader:
// NOT_LEADER_OR_FOLLOWER), by fail_all() with the kind given, or at shutdown.
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
  // kConfirmed: the size of the in-sync set C was computed over when it covered the position
  // (the leader counted once). Produce checks min.insync.replicas against it, as Kafka's
  // Partition.checkEnoughReplicasReachOffset checks the ISR when the high watermark reaches the
  // offset: a shrink that lets C move answers a waiter NOT_ENOUGH_REPLICAS_AFTER_APPEND.
  size_t in_sync = 0;
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

  // C over an in-sync set of `in_sync` members: answers every waiter at or below it (in position
  // order) with that size. C never moves back: a lower position answers nobody, but the size is
  // kept for the waiters add() answers at once.
  void confirm(int64_t position, size_t in_sync);
  int64_t confirmed() const;
  // Fails every waiter whose deadline is at or before `now` with kTimedOut. Returns the earliest
  // deadline still waiting (time_point::max() when none), for the caller's timer.
  Clock::time_point expire(Clock::time_point now);
  // Fails every waiter with `kind` (demotion, fencing, the SSS shrinking below the minimum).
  void fail_all(ConfirmOutcome::Kind kind, const std::string& reason);
  // Fails every waiter and every later add() with `kind` until reopen() (demotion, shutdown).
  void close(ConfirmOutcome::Kind kind, const std::string& reason);
  // Accepts waiters again (this broker leads again), with C restarting at `confirmed` over an
  // in-sync set of `in_sync` members.
  void reopen(int64_t confirmed, size_t in_sync);

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
  size_t in_sync_ = 0;  // the in-sync set's size of the last confirm()
  uint64_t next_id_ = 1;
  bool closed_ = false;
  ConfirmOutcome closed_with_;
};

}  // namespace rokka::cluster
