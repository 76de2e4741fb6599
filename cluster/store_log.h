// StoreLog: the ReplicatedLog (replicated_log.h) of a broker's storage::Store, the adapter the
// replication stream runs on (SCALE-OUT §3.6; docs/cluster.md "The Store adapter").
//
// Every call maps 1:1 onto the Store's replication API (storage/store.h): log_begin, log_end,
// durable_end, epochs, read_log and set_confirmed are the Store's any-thread calls; append_replicated
// and truncate_to queue on the Store's writer thread, whose callback only hands the Status over
// (the stream awaits it through repl::await_status, which posts it to its executor). The Store's
// role (kLeader with its epoch, kFollower) is set by whoever owns the Store, not here.
//
// Threading: any thread. The Store must outlive the StoreLog and every call in flight: stop the
// ReplicationServer / ReplicationClient using it (and, for a client, wait until !running()) before
// the Store is closed or destroyed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cluster/replicated_log.h"
#include "storage/store.h"

namespace rokka::cluster {

class StoreLog final : public ReplicatedLog {
 public:
  // `max_append_bytes`: the Store's StoreOptions::max_append_bytes (a Store does not report it).
  StoreLog(std::shared_ptr<storage::Store> store, int64_t max_append_bytes);

  int64_t log_begin() const override;
  int64_t log_end() const override;
  int64_t durable_end() const override;
  std::vector<EpochStart> epochs() const override;
  storage::Result<storage::LogSlice> read_log(int64_t from, int64_t max_bytes) const override;
  void append_replicated(int64_t from, std::span<const std::byte> bytes, storage::StatusCallback done) override;
  void truncate_to(int64_t position, storage::StatusCallback done) override;
  void set_confirmed(int64_t position) override;
  // Through Store::set_log_listener (the Store has one such slot: one server per Store).
  void set_append_notifier(std::function<void()> notify) override;
  // Store::bootstrap_snapshot, encoded; Store::reset_to of the decoded bytes (kCorruption when
  // they do not decode, kInvalidArgument when their begin is not `begin`).
  void bootstrap_snapshot(std::function<void(storage::Result<LogSnapshot>)> done) override;
  void reset_to(int64_t begin, std::span<const std::byte> bytes, storage::StatusCallback done) override;

  // The largest log entry this Store writes (a batch of max_append_bytes and its entry header):
  // what ReplicationServerOptions::max_entry_bytes and ReplicationClientOptions::max_entry_bytes
  // are given, so that one such entry fits a DATA frame.
  int64_t max_entry_bytes() const { return max_entry_bytes_; }
  storage::Store& store() const { return *store_; }

 private:
  std::shared_ptr<storage::Store> store_;
  int64_t max_entry_bytes_;
};

}  // namespace rokka::cluster
