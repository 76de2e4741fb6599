// ReplicationServer: the leader's side of one group's replication stream (SCALE-OUT §3.5, §3.7;
// docs/cluster.md "The replication stream").
//
// An acceptor on the replication listener. Per follower connection, a session: HELLO is
// answered with WELCOME (the leader's epoch and epochs, and truncate_to by the epoch rule) or
// REJECT; a follower whose log ends below log_begin is WELCOMEd at log_begin and sent a
// re-bootstrap snapshot first, in SNAPSHOT frames, when the log can give one (else REJECT
// too_far_behind). Then the leader sends DATA frames of whole entries read with read_log from the
// follower's position on (never across one of the leader's epoch boundaries), an empty DATA as
// a heartbeat every `heartbeat` (and at once when C moved), each carrying C; it reads the
// follower's ACKs. C = confirm_position over the in-sync set given by set_in_sync (the leader
// counting its own end): over durable ends, or written ends with `confirm_written`; when C moves
// the server calls log->set_confirmed(C) and answers the ConfirmWaiters.
//
// Threading: create, listen on any thread before the executor runs it or on it; everything else
// may be called from any thread (it is posted to the executor), except followers(), which reads
// state kept under a mutex. The log is read on the executor's thread.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/confirm_waiters.h"
#include "cluster/replicated_log.h"
#include "cluster/replication_protocol.h"

namespace rokka::cluster {

struct ReplicationServerOptions {
  std::string cluster_id;
  std::string group;
  int32_t leader_id = 0;
  int32_t epoch = 0;          // this leader's epoch; every DATA carries it
  int64_t segment_bytes = 0;  // a follower's must be the same (segments roll at the same positions)
  std::vector<int32_t> in_sync;  // the in-sync set at start (set_in_sync changes it)
  int64_t confirmed = 0;         // C at start (the store's persisted confirmed end); it never goes below
  // What C counts. false: durable ends (the leader's durable_end and each follower's acked
  // durable_end): acks=all means "fsynced on every member" (store.flush.mode=sync). true: written
  // ends (the leader's log_end and each follower's acked written_end): "in every member's page
  // cache", SCALE-OUT §3.8's meaning with store.flush.mode=async, where a member syncs only every
  // flush interval.
  bool confirm_written = false;
  std::chrono::milliseconds heartbeat{100};
  // A follower that sends nothing (no HELLO, no ACK) for this long is disconnected. It acks every
  // DATA, heartbeats included, so this is many heartbeats.
  std::chrono::milliseconds idle_timeout{5000};
  // DATA frames are cut at about this many log bytes of whole entries (one larger entry goes alone).
  size_t max_frame_bytes = repl::kDataFrameBytes;
  // The largest entry the log holds (StoreLog::max_entry_bytes(): the store's max_append_bytes and
  // the entry header); the follower must be given the same. The DATA bound is data_bound() of it.
  int64_t max_entry_bytes = static_cast<int64_t>(repl::kDataFrameBytes);
};

// What the leader knows of one follower (tests, metrics, the SSS decisions of §3.9).
struct FollowerProgress {
  int32_t follower_id = 0;
  bool connected = false;
  int64_t sent_end = 0;      // this session's position: everything below was sent
  int64_t written_end = 0;   // as the follower's last ACK said
  int64_t durable_end = 0;
  uint64_t sessions = 0;     // sessions that got a WELCOME
  std::chrono::steady_clock::time_point last_ack{};
  // When the follower last had everything: the arrival of its last ACK whose written_end reached
  // the leader's log_end at the time the acknowledged DATA frame was sent (every DATA, heartbeats
  // included, is acked, in order). A follower that acks but lags, or stops acking, keeps an older
  // time; time_point{} until it first catches up. Kept across its sessions. (Kafka's
  // lastCaughtUpTime, for the SSS shrink: replica.lag.time.max.ms.)
  std::chrono::steady_clock::time_point caught_up_at{};
};

class ReplicationServer : public std::enable_shared_from_this<ReplicationServer> {
 public:
  static std::shared_ptr<ReplicationServer> create(boost::asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                                                   ReplicationServerOptions options);
  ~ReplicationServer();

  // Binds `at` (port 0: any) and starts accepting. Returns the bound endpoint.
  storage::Result<boost::asio::ip::tcp::endpoint> listen(const boost::asio::ip::tcp::endpoint& at);

  // The in-sync set (follower ids; the leader's own id may be included, it always counts).
  void set_in_sync(std::vector<int32_t> members);
  // The local log grew (or its durable end moved): senders wake up, C is recomputed. Heartbeats
  // would find new entries anyway, this makes it immediate. listen() hands it to the log
  // (ReplicatedLog::set_append_notifier), so a StoreLog calls it on every append; stop() takes it
  // back. Calls that come while one is still queued on the executor are merged into it.
  void notify_appended();
  // Closes the acceptor and every session; the waiters fail with `why` (kNotLeader when the
  // group's leadership was lost: demotion, fencing), later ones at once.
  void stop(ConfirmOutcome::Kind why = ConfirmOutcome::Kind::kShutdown, std::string reason = "replication server stopping");

  // ---- any thread ----
  int64_t confirmed() const { return waiters_.confirmed(); }
  ConfirmWaiters& waiters() { return waiters_; }
  std::vector<FollowerProgress> followers() const;
  std::optional<FollowerProgress> follower(int32_t id) const;
  size_t sessions() const;  // connected followers

 private:
  struct Session;
  ReplicationServer(boost::asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log, ReplicationServerOptions options);

  boost::asio::awaitable<void> accept_loop();
  boost::asio::awaitable<void> run_session(std::shared_ptr<Session> s);
  boost::asio::awaitable<void> ack_loop(std::shared_ptr<Session> s);
  boost::asio::awaitable<storage::Status> send_loop(std::shared_ptr<Session> s);
  boost::asio::awaitable<void> tick_loop();
  // The log's re-bootstrap snapshot (at most repl::kMaxSnapshotBytes), on the executor.
  boost::asio::awaitable<storage::Result<LogSnapshot>> take_snapshot();
  // The WELCOME for a HELLO, or the REJECT.
  std::variant<repl::Welcome, repl::Reject> answer(const repl::Hello& hello) const;
  void end_session(const std::shared_ptr<Session>& s, const storage::Status& why);
  void recompute_confirm();
  size_t in_sync_size() const;  // in_sync_ with the leader, each member once
  void wake_all();

  boost::asio::any_io_executor ex_;
  std::shared_ptr<ReplicatedLog> log_;
  ReplicationServerOptions options_;
  boost::asio::ip::tcp::acceptor acceptor_;
  bool stopped_ = false;
  std::vector<int32_t> in_sync_;
  std::map<int32_t, std::shared_ptr<Session>> sessions_;  // follower id -> its current session
  ConfirmWaiters waiters_;
  std::unique_ptr<boost::asio::steady_timer> tick_timer_;
  std::atomic<bool> notify_queued_{false};  // a notify_appended() is posted and has not run yet

  mutable std::mutex progress_mu_;  // guards progress_ (written on the executor, read anywhere)
  std::map<int32_t, FollowerProgress> progress_;
};

}  // namespace rokka::cluster
