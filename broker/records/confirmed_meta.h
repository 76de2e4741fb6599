// ConfirmedMeta: the MetaStore of a replication group's store as the broker's own state writers
// use it (issue 24, plan24 S7; docs/cluster.md "Produce on a group store"): a write is answered
// only once the group's confirmed position C covers it, so an offset commit or a transaction
// state acknowledged to a client is on every in-sync member and survives a failover, as Kafka's
// acks=all writes to __consumer_offsets do.
//
// A write goes to the store's own MetaStore (on a leader, an RKM1 entry in the log that the
// replication stream carries). Once that answered OK, the write waits for C >= the store's
// log_end() read then (at or after the end of its entry) on the waiters of this broker's current
// lead of the group, up to `timeout`. Every way it may end other than confirmed is a kNotLeader
// Status naming why (no lead, demoted or fenced meanwhile, stopping, timed out): the write is in
// the log but not known to be on the in-sync set, and the caller answers as for a failed write
// (a coordinator's "storage error": the client looks the coordinator up again and retries). An
// error of the store's own write is passed on as it is. Reads (scan) are the store's.
//
// The coordinators of a replication group's lead write their records through it
// (broker/coordinators.h, plan24 S9).
//
// Threading: write() from any thread, as MetaStore's. `done` runs on the store's writer thread
// (a refusal, or C already there), or on the thread that resolved the wait (the replication
// stream's); like every MetaStore callback it must only hand the result over.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/confirm_waiters.h"
#include "storage/meta_store.h"
#include "storage/status.h"

namespace rokka::cluster {
class ReplicationServer;
}

namespace rokka::broker {

class ConfirmedMeta final : public storage::MetaStore {
 public:
  // The waiters of this broker's current lead of the group, or nullptr while it does not lead it
  // (for a GroupMember: waiters_of(member->server())).
  using WaitersFn = std::function<std::shared_ptr<cluster::ConfirmWaiters>()>;

  // `inner` is the group store's meta(), `log_end` its Store::log_end(); both must outlive this,
  // and this must outlive the callbacks of its writes.
  ConfirmedMeta(storage::MetaStore& inner, std::function<int64_t()> log_end, WaitersFn waiters,
                std::chrono::milliseconds timeout);

  // The waiters of `server` (kept alive with it), or nullptr for no server.
  static std::shared_ptr<cluster::ConfirmWaiters> waiters_of(std::shared_ptr<cluster::ReplicationServer> server);

  void write(std::vector<Mutation> batch, storage::StatusCallback done) override;
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override {
    return inner_.scan(prefix);
  }

 private:
  storage::MetaStore& inner_;
  std::function<int64_t()> log_end_;
  WaitersFn waiters_;
  std::chrono::milliseconds timeout_;
};

}  // namespace rokka::broker
