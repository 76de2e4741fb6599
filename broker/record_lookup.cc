#include "broker/record_lookup.h"

namespace rokka::broker {

// TODO(record-level): refine within the batch once protocol/ can iterate records.
storage::Result<storage::TimestampOffset> first_record_at_or_after(const storage::Store& store,
                                                                   storage::PartitionId pid, int64_t ts) {
  return store.lookup_timestamp(pid, ts);
}

storage::Result<storage::TimestampOffset> max_timestamp_record(const storage::Store& store, storage::PartitionId pid) {
  return store.max_timestamp(pid);
}

}  // namespace rokka::broker
