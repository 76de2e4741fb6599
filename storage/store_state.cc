#include "storage/store_state.h"

#include <algorithm>

#include "storage/checkpoint.h"

namespace rokka::storage {

std::vector<std::byte> encode_checkpoint(const StoreState& state, int64_t confirmed) {
  std::vector<std::pair<int64_t, int64_t>> ages;
  for (const auto& seg : state.log.segments()) ages.emplace_back(seg.start.value, seg.last_append_ms);
  CheckpointWriter w(state.log.write_end(), state.index.next_chunk(), state.index.free_chunks(), ages,
                     state.index.chunk_units(), state.index.first_chunk_units(), state.index.free_small_chunks(),
                     confirmed < 0 ? -1 : confirmed);
  state.partitions.for_each([&](PartitionId id, const Partition& p) {
    if (!p.live.load(std::memory_order_relaxed)) return;
    const int64_t hw = confirmed < 0 ? -1 : std::max<int64_t>(-1, p.hw.load(std::memory_order_relaxed));
    w.add_partition(id, p.queue.state(), p.producers.get(), p.txn_index.get(), hw);
  });
  return w.finish();
}

Result<LogPosition> checkpoint_inline(const StoreState& state, int64_t confirmed) {
  if (Status s = state.log.flush(); !s.ok()) return s;
  if (Status s = state.index.sync(); !s.ok()) return s;
  if (Status s = state.journal.sync(); !s.ok()) return s;
  if (Status s = write_file_atomic(state.fs(), checkpoint_path(state.options), encode_checkpoint(state, confirmed)); !s.ok()) return s;
  return state.log.write_end();
}

}  // namespace rokka::storage
