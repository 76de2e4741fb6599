// ReplicatedLog: one group's log on this broker, as the replication stream sees it. The stream
// (cluster/replication_server.h, replication_client.h) is written against this interface; an
// adapter over storage::Store implements it (SCALE-OUT §3.6).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "storage/status.h"
#include "storage/types.h"

namespace rokka::cluster {

// An epoch and the log position its first entry was written at: the Store's own type, so the
// adapter (store_log.h) hands Store::epochs() over as it is.
using EpochStart = storage::EpochStart;

// A re-bootstrap snapshot as the stream carries it: the log position it starts the follower's
// log at (the leader's log_begin) and its bytes (StoreLog: storage::replication::encode_snapshot).
struct LogSnapshot {
  int64_t begin = 0;
  std::vector<std::byte> bytes;
};

class ReplicatedLog {
 public:
  virtual ~ReplicatedLog() = default;
  virtual int64_t log_begin() const = 0;
  virtual int64_t log_end() const = 0;      // end of written, readable entries
  virtual int64_t durable_end() const = 0;  // end synced to disk
  virtual std::vector<EpochStart> epochs() const = 0;
  // Whole entries from one segment starting at `from` (an entry boundary); at most max_bytes unless the
  // first entry alone is larger; empty at log_end; kOutOfRange below log_begin or above log_end.
  virtual storage::Result<storage::LogSlice> read_log(int64_t from, int64_t max_bytes) const = 0;
  // Follower: writes `bytes` (whole entries as read_log gave them) at `from` (== log_end, else kConflict).
  // done may run on another thread.
  virtual void append_replicated(int64_t from, std::span<const std::byte> bytes, storage::StatusCallback done) = 0;
  virtual void truncate_to(int64_t position, storage::StatusCallback done) = 0;
  virtual void set_confirmed(int64_t position) = 0;
  // The leader's server hands its wake-up here (an empty function takes it back): the log calls
  // it, from any thread, whenever its readable end moved, so new entries go out at once instead of
  // at the next heartbeat. A log that cannot tell (the default) leaves them to the heartbeat and to
  // whoever calls ReplicationServer::notify_appended().
  virtual void set_append_notifier(std::function<void()> /*notify*/) {}
  // Re-bootstrap (docs/cluster.md "Re-bootstrap"). Leader: a snapshot of its state from which a
  // follower below its log_begin starts its log there. Follower: replaces its log and state with
  // such a snapshot (`bytes` are hostile: decoded with every length bounded), its log then empty
  // and ending at `begin`, where DATA continues. A log that cannot (the default) answers
  // kInvalidArgument: the leader then refuses such a follower (too_far_behind), as before.
  // `done` may run on another thread.
  virtual void bootstrap_snapshot(std::function<void(storage::Result<LogSnapshot>)> done) {
    done(storage::Status::invalid_argument("this log cannot give a re-bootstrap snapshot"));
  }
  virtual void reset_to(int64_t /*begin*/, std::span<const std::byte> /*bytes*/, storage::StatusCallback done) {
    done(storage::Status::invalid_argument("this log cannot be re-bootstrapped"));
  }
};

// RocketMQ's truncation rule: where a follower must cut its log before it takes the leader's
// entries. The last epoch both lists agree on (same epoch number, same start position) ends at
// the earlier of its two ends (an epoch ends where the next one starts, the last one at its log's
// end); the follower cuts there, capped at its own end. When they agree on no epoch, everything
// the follower holds is suspect: the answer is follower_begin (the follower keeps nothing). The
// answer is never below follower_begin nor above follower_end.
int64_t truncation_point(std::span<const EpochStart> leader_epochs, int64_t leader_end,
                         std::span<const EpochStart> follower_epochs, int64_t follower_begin, int64_t follower_end);

}  // namespace rokka::cluster
