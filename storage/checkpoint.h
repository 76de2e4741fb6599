// Checkpoint: the index state as of a log position, so crash recovery re-reads only
// the log written after it. Written tmp + fsync + rename after the log and the index
// files were synced up to log_end; framed with a CRC (layout: storage/FORMAT.md).
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "storage/consume_queue.h"
#include "storage/file_system.h"
#include "storage/format.h"
#include "storage/producer_state.h"
#include "storage/types.h"
#include "storage/txn_index.h"

namespace rokka::storage {

struct PartitionCheckpoint {
  PartitionId id = 0;
  ConsumeQueue::State queue;
  ProducerStateTable producers;
  std::unique_ptr<TxnIndex> txns;  // null when the partition has no transaction state
  // Replicated roles: the high watermark as of `Checkpoint::confirmed`; -1 when none (kSingle,
  // versions 1-4).
  int64_t high_watermark = -1;
};

struct Checkpoint {
  LogPosition log_end;
  uint32_t next_chunk = 0;
  std::vector<uint32_t> free_chunks;
  // The index geometry the units were written with; 0 when not recorded (versions 1-3:
  // chunks of the configured chunk_units, no small chunks).
  uint32_t chunk_units = 0, first_chunk_units = 0;
  std::vector<uint32_t> free_small_chunks;
  std::vector<std::pair<int64_t, int64_t>> segment_ages;  // segment start, last append ms
  // The confirmed position C (Store::set_confirmed) when the checkpoint was taken; -1 when
  // none (a kSingle store; versions 1-4).
  int64_t confirmed = -1;
  std::vector<PartitionCheckpoint> partitions;
};

// Encoding is incremental so the store does not copy its state: begin, one
// add_partition per partition, then finish() returns the framed file bytes.
class CheckpointWriter {
 public:
  CheckpointWriter(LogPosition log_end, uint32_t next_chunk, const std::vector<uint32_t>& free_chunks,
                   const std::vector<std::pair<int64_t, int64_t>>& segment_ages, uint32_t chunk_units = 0,
                   uint32_t first_chunk_units = 0, const std::vector<uint32_t>& free_small_chunks = {},
                   int64_t confirmed = -1);
  void add_partition(PartitionId id, const ConsumeQueue::State& queue, const ProducerStateTable* producers,
                     const TxnIndex* txns, int64_t high_watermark = -1);
  std::vector<std::byte> finish();

 private:
  format::Encoder body_;
  uint32_t partitions_ = 0;
  size_t count_at_ = 0;
};

// kCorruption when the frame, CRC or any count is bad (hostile-input safe). Reads
// version 1 (no transaction state), 2 (no units digest), 3 (no index geometry:
// every ChunkDir in the uniform layout) and 4 (no confirmed position, no high
// watermarks).
Result<Checkpoint> decode_checkpoint(std::span<const std::byte> file);

}  // namespace rokka::storage
