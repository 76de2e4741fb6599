// TxnIndex: one partition's transactions, derived from its stored batches alone.
//
// A transactional data batch (attributes bit 4) opens a transaction of its producer
// on this partition at the batch's base offset, unless one is already open; a control
// batch (bit 5) carrying an ABORT or COMMIT marker closes it. From that:
//  - the first unstable offset: the first offset of the earliest open transaction;
//    the last stable offset (LSO) is that, or the high watermark when none is open;
//  - the aborted-transaction index: (producer id, first offset, marker offset) of every
//    transaction closed by an ABORT marker, in marker order, which Fetch at
//    read_committed returns so consumers can drop the aborted batches.
// Kafka's ProducerStateManager (ongoing transactions) and .txnindex play these parts.
//
// Threading: on_batch/publish/truncate/trim/restore on the writer thread only.
// first_unstable() and aborted_overlapping() may run on any thread. publish() stores
// the first unstable offset with release order, and the writer calls it BEFORE it
// publishes the partition's next offset; an ABORT's index entry is added (under the
// mutex) before publish(). So a reader that loads the next offset, then the first
// unstable offset, then the aborted entries never sees a batch as stable whose abort
// it cannot also see.
//
// Survives restarts through the checkpoint (encode/decode) plus a replay of the log
// written after it, exactly like producer state.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <deque>
#include <unordered_map>
#include <vector>

#include "storage/format.h"
#include "storage/types.h"

namespace rokka::storage {

class TxnIndex {
 public:
  // ---- writer thread ----
  // Applies one stored batch (its header; a control batch's marker type is read from
  // its record). Batches without the transactional bit are ignored.
  void on_batch(std::span<const std::byte> batch, int64_t base_offset);
  // Makes the open transactions' first offset visible to readers.
  void publish();
  // The log was cut at `next_offset`: forget what starts there or later. An ABORT
  // marker that was cut reopens its transaction when its data survived.
  void truncate(int64_t next_offset);
  // Forgets aborted transactions whose marker is below `log_start` (retention).
  void trim(int64_t log_start);
  bool empty() const;
  // The first offset of `producer_id`'s open transaction here, -1 when none is open.
  int64_t open_first_offset(int64_t producer_id) const;

  void encode(format::Encoder& e) const;
  bool decode(format::Decoder& d);  // into an empty index; false if malformed

  // ---- any thread ----
  // The first offset of the earliest open transaction, or -1 when none is open.
  int64_t first_unstable() const { return first_unstable_.load(std::memory_order_acquire); }
  // Aborted transactions that overlap [from, to): marker at or after `from` and first
  // offset before `to`, in marker order.
  std::vector<AbortedTxn> aborted_overlapping(int64_t from, int64_t to) const;

 private:
  void add_aborted(const AbortedTxn& t);  // REQUIRES: mu_ held

  std::unordered_map<int64_t, int64_t> open_;  // writer: producer id -> first offset
  mutable std::mutex mu_;
  std::deque<AbortedTxn> aborted_;   // GUARDED_BY(mu_): ascending last_offset
  int64_t longest_ = 0;              // GUARDED_BY(mu_): max last - first over aborted_
  std::atomic<int64_t> first_unstable_{-1};
};

}  // namespace rokka::storage
