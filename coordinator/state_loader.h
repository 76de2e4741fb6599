// Start-up: reads the coordinator's records back from the MetaStore.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "coordinator/meta_records.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

struct LoadedState {
  std::vector<StoredGroup> groups;
  std::vector<ConsumerGroupSnapshot> consumer_groups;
  std::vector<std::pair<OffsetKey, CommittedOffset>> offsets;
  size_t skipped_records = 0;  // records that did not decode (logged, then ignored)
};

// Scans every "g/", "k/" and "o/" record. Touches no coordinator state, so it may run on any
// thread; GroupCoordinator::install() then takes the result on the strand.
LoadedState load_coordinator_state(const storage::MetaStore& meta);

}  // namespace rokka::coordinator
