// Writes transaction markers for the TransactionCoordinator: one COMMIT or ABORT
// control batch (protocol/control_batch.h) per partition of the transaction, appended
// in ONE request per store holding some of them (StoreSet::append), so every marker is
// queued behind the data the producer appended before (TransactionService::check_produce
// queues on the same strand).
#pragma once

#include <functional>

#include "coordinator/txn_types.h"
#include "storage/store.h"

namespace rokka::broker {

class TopicRegistry;

// Calls `done` (on the storage writer thread, or at once) when every marker is stored
// (durable per store.flush.mode), or with the first error. A topic or partition that
// no longer exists counts as written: there is nothing left to mark.
// The partitions' stores are those of `topics` (TopicRegistry::stores()).
void write_txn_markers(const TopicRegistry& topics, const coordinator::MarkerRequest& request,
                       std::function<void(storage::Status)> done);

}  // namespace rokka::broker
