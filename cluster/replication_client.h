// ReplicationClient: the follower's side of one group's replication stream (SCALE-OUT §3.5,
// §3.9; docs/cluster.md "The replication stream").
//
// Connects to the leader's replication listener and says HELLO with its log's ends and epochs.
// On WELCOME it cuts its log to truncate_to (log->truncate_to) -- or, when truncate_to is
// above its log end (it ends below the leader's log_begin), receives the SNAPSHOT pieces and
// resets its log to start there (log->reset_to: re-bootstrap) --, then applies each DATA in order
// (log->append_replicated at exactly the position it has reached), passes the frame's C to
// log->set_confirmed (capped at its own end) and answers every DATA, heartbeats included, with
// ACK {written_end, durable_end}. It refuses a leader whose epoch is below the highest it has
// seen (its own log's last epoch, earlier WELCOMEs, observe_epoch()), at WELCOME and on every
// DATA. Any error, REJECT or silence longer than idle_timeout ends the session; it reconnects
// after a backoff that doubles from backoff_min to backoff_max (reset by a session that got its
// WELCOME, and by set_leader: the failures were another endpoint's).
//
// Threading: create and start anywhere; stop, observe_epoch and set_leader may be called from
// any thread (posted to the executor); the counters from any thread.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "cluster/replicated_log.h"
#include "cluster/replication_protocol.h"

namespace rokka::cluster {

namespace repl {
struct Connection;
}
class Signal;

struct ReplicationClientOptions {
  std::string cluster_id;
  std::string group;
  int32_t follower_id = 0;
  int64_t broker_epoch = 0;
  int64_t segment_bytes = 0;
  boost::asio::ip::tcp::endpoint leader;
  // The largest log entry, as the leader was given it (StoreLog::max_entry_bytes()): DATA up to
  // data_bound() of it is accepted, a larger one ends the session before it is allocated.
  int64_t max_entry_bytes = static_cast<int64_t>(repl::kDataFrameBytes);
  std::chrono::milliseconds connect_timeout{2000};
  // The leader heartbeats every 100 ms: this much silence means it is gone.
  std::chrono::milliseconds idle_timeout{5000};
  std::chrono::milliseconds backoff_min{50};
  std::chrono::milliseconds backoff_max{2000};
};

class ReplicationClient : public std::enable_shared_from_this<ReplicationClient> {
 public:
  static std::shared_ptr<ReplicationClient> create(boost::asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                                                   ReplicationClientOptions options);
  ~ReplicationClient();

  void start();
  // Ends the session and stops reconnecting. running() turns false once the loop has ended.
  void stop();
  // The highest epoch this follower knows of (the group state it read): a leader below it is
  // refused, and a running session with one is ended.
  void observe_epoch(int32_t epoch);
  // The group's leader moved: the current session ends and the next one goes there, at once and
  // then after backoff_min, doubling afresh (a new leader may bind its listener just after the
  // state naming it is read).
  void set_leader(boost::asio::ip::tcp::endpoint leader);

  // ---- any thread ----
  bool running() const { return running_.load(); }
  int32_t highest_epoch() const { return highest_epoch_.load(); }
  uint64_t welcomes() const { return welcomes_.load(); }    // sessions that got a WELCOME
  uint64_t rejects() const { return rejects_.load(); }      // REJECTs received
  uint64_t refusals() const { return refusals_.load(); }    // leaders refused for a lower epoch
  uint64_t truncations() const { return truncations_.load(); }
  uint64_t rebootstraps() const { return rebootstraps_.load(); }  // snapshots applied (reset_to)
  int64_t confirmed() const { return confirmed_.load(); }   // the last C passed to set_confirmed
  std::string last_error() const;

 private:
  ReplicationClient(boost::asio::any_io_executor ex, std::shared_ptr<ReplicatedLog> log,
                    ReplicationClientOptions options);
  boost::asio::awaitable<void> run();
  // One connection, until it fails. `welcomed` tells whether it got past WELCOME.
  boost::asio::awaitable<storage::Status> session(bool& welcomed);
  boost::asio::awaitable<storage::Status> stream(repl::Connection& c, const repl::Welcome& welcome);
  // After a WELCOME above its log end: the SNAPSHOT pieces, then log->reset_to at truncate_to.
  boost::asio::awaitable<storage::Status> rebootstrap(repl::Connection& c, const repl::Welcome& welcome);
  void set_error(const storage::Status& s);

  boost::asio::any_io_executor ex_;
  std::shared_ptr<ReplicatedLog> log_;
  ReplicationClientOptions options_;
  bool stopped_ = false;
  bool leader_moved_ = false;  // set_leader since the last session ended: the backoff restarts
  std::shared_ptr<repl::Connection> current_;  // the connection in use, closed by stop/set_leader
  std::unique_ptr<Signal> backoff_wake_;

  std::atomic<bool> running_{false};
  std::atomic<int32_t> highest_epoch_{-1};
  std::atomic<uint64_t> welcomes_{0};
  std::atomic<uint64_t> rejects_{0};
  std::atomic<uint64_t> refusals_{0};
  std::atomic<uint64_t> truncations_{0};
  std::atomic<uint64_t> rebootstraps_{0};
  std::atomic<int64_t> confirmed_{0};
  mutable std::mutex error_mu_;
  std::string last_error_;
};

}  // namespace rokka::cluster
