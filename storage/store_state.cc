#include "storage/store_state.h"

#include "storage/checkpoint.h"

namespace rokka::storage {

std::vector<std::byte> encode_checkpoint(const StoreState& state) {
  std::vector<std::pair<int64_t, int64_t>> ages;
  for (const auto& seg : state.log.segments()) ages.emplace_back(seg.start.value, seg.last_append_ms);
  CheckpointWriter w(state.log.write_end(), state.index.next_chunk(), state.index.free_chunks(), ages,
                     state.index.chunk_units(), state.index.first_chunk_units(), state.index.free_small_chunks());
  state.partitions.for_each([&](PartitionId id, const Partition& p) {
    if (p.live.load(std::memory_order_relaxed))
      w.add_partition(id, p.queue.state(), p.producers.get(), p.txn_index.get());
  });
  return w.finish();
}

Result<LogPosition> checkpoint_inline(const StoreState& state) {
  if (Status s = state.log.flush(); !s.ok()) return s;
  if (Status s = state.index.sync(); !s.ok()) return s;
  if (Status s = state.journal.sync(); !s.ok()) return s;
  if (Status s = write_file_atomic(state.fs(), checkpoint_path(state.options), encode_checkpoint(state)); !s.ok()) return s;
  return state.log.write_end();
}

}  // namespace rokka::storage
