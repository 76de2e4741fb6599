// ProducerStateTable: idempotent-producer state of one partition, checked on the
// writer thread atomically with offset assignment. The rules follow Kafka's
// ProducerStateManager / ProducerAppendInfo (client appends):
//
//  1. Duplicate first: if the batch's epoch equals the producer's current epoch and
//     its [first seq, last seq] equals one of the last 5 batches kept, it is a retry:
//     the ORIGINAL batch's offsets are returned and nothing is stored.
//  2. Epoch: an epoch older than the current one => kInvalidProducerEpoch
//     (Kafka >= 2.7 answers INVALID_PRODUCER_EPOCH rather than PRODUCER_FENCED).
//  3. A newer epoch than a known one must start at sequence 0, else kOutOfOrderSequence
//     (this is how a KIP-360 epoch bump resets the sequence).
//  4. A producer with no state here (never seen, expired, or all its batches removed)
//     is accepted at ANY sequence: since KIP-360 the broker no longer answers
//     UNKNOWN_PRODUCER_ID for this, so storage never returns kUnknownProducerId.
//  5. Same epoch: first seq must be last seq + 1, where INT32_MAX is followed by 0;
//     anything else (a gap or an older non-duplicate) => kOutOfOrderSequence.
//  6. A new epoch clears the kept batches. A batch's last sequence is its base
//     sequence plus its last offset delta, wrapping past INT32_MAX to 0.
//  7. A transaction marker (a control batch the transaction coordinator writes; it has
//     no sequence) passes rule 2 only, and moves the producer to its epoch (rule 6)
//     without adding a batch: a marker written with a bumped epoch fences the old one.
// The state is snapshotted with each checkpoint and rebuilt from the log tail after.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "storage/format.h"
#include "storage/status.h"
#include "storage/types.h"

namespace rokka::storage {

struct ProducerBatch {
  int32_t first_seq = 0;
  int32_t last_seq = 0;
  int64_t base_offset = 0;
  int64_t log_append_time = -1;  // what the original append reported
};

struct ProducerEntry {
  static constexpr int kKeep = 5;
  int16_t epoch = -1;
  int64_t last_append_ms = 0;
  std::vector<ProducerBatch> batches;  // oldest first, at most kKeep
};

// Sequence arithmetic with Kafka's wrap: INT32_MAX + 1 == 0.
int32_t increment_sequence(int32_t seq, int32_t delta);

class ProducerStateTable {
 public:
  // Rules 1-5. Returns the original batch for a duplicate, nullopt for a new batch,
  // or an error Status.
  Result<std::optional<ProducerBatch>> check(int64_t producer_id, int16_t epoch, int32_t first_seq,
                                             int32_t last_seq) const;
  // Records an appended batch (after check() accepted it, or while replaying the log).
  void update(int64_t producer_id, int16_t epoch, const ProducerBatch& batch, int64_t now_ms);
  // Rule 7, for a transaction marker.
  Status check_marker(int64_t producer_id, int16_t epoch) const;
  void update_marker(int64_t producer_id, int16_t epoch, int64_t now_ms);
  // Forgets producers idle for longer than `max_idle_ms`.
  void expire(int64_t now_ms, int64_t max_idle_ms);
  // Drops kept batches at or after `next_offset` (the log was cut there).
  void truncate(int64_t next_offset);
  bool empty() const { return producers_.empty(); }
  // Every producer held, by id: epoch, last sequence written, last append time.
  std::vector<ActiveProducer> active() const;

  void encode(format::Encoder& e) const;
  bool decode(format::Decoder& d);

 private:
  std::unordered_map<int64_t, ProducerEntry> producers_;
};

}  // namespace rokka::storage
