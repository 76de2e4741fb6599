// Record-level answers to ListOffsets questions. The ConsumeQueue indexes whole
// batches (base offset, max timestamp); these refine to the exact record.
#pragma once

#include "storage/store.h"

namespace rokka::broker {

// The first record with timestamp >= ts: its offset and timestamp; offset -1 if none.
storage::Result<storage::TimestampOffset> first_record_at_or_after(const storage::Store& store,
                                                                   storage::PartitionId pid, int64_t ts);
// The record with the largest timestamp (the earliest such record on ties).
storage::Result<storage::TimestampOffset> max_timestamp_record(const storage::Store& store, storage::PartitionId pid);

}  // namespace rokka::broker
