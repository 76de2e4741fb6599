// Writes transaction markers for the TransactionCoordinator: one COMMIT or ABORT
// control batch (protocol/control_batch.h) per partition of the transaction, appended
// in ONE request per store holding some of them (StoreSet::append), so every marker is
// queued behind the data the producer appended before (TransactionService::check_produce
// queues on the same strand).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "broker/records/store_set.h"
#include "cluster/confirm_waiters.h"
#include "coordinator/txn_types.h"
#include "storage/store.h"

namespace rokka::broker {

class TopicRegistry;

// For a replication group's store at a slot: the waiters of this broker's lead of the group, or
// nullptr while it does not lead it; nullopt for a store of no group (ClusterLink::confirm_waiters).
using ConfirmWaitersOf = std::function<std::optional<std::shared_ptr<cluster::ConfirmWaiters>>(StoreSlot)>;

// How long markers in a group store wait for the group's confirmed position (Kafka appends
// them with acks=all under request.timeout.ms, 30 s by default).
inline constexpr std::chrono::milliseconds kMarkerConfirmTimeout{30000};

// Calls `done` (on the storage writer thread, the replication stream's, or at once) when
// every marker is stored (durable per store.flush.mode), or with the first error. A topic or
// partition that no longer exists counts as written: there is nothing left to mark.
// The partitions' stores are those of `topics` (TopicRegistry::stores()). With `confirm`,
// markers in a replication group's store (slot != kRootSlot) are written only once the
// group's confirmed position covers them; not confirmed (no lead, demoted, timed out) is a
// kNotLeader error. Markers in other stores are answered once stored.
void write_txn_markers(const TopicRegistry& topics, const coordinator::MarkerRequest& request,
                       std::function<void(storage::Status)> done, ConfirmWaitersOf confirm = {});

}  // namespace rokka::broker
