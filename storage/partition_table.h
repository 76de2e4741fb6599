// Partition and PartitionTable: the store's in-memory partitions, shared by the
// writer thread (which adds and changes them) and readers on any thread.
//
// A Partition is one Kafka topic-partition: its ConsumeQueue (offsets -> log
// positions) and the producer and transaction state derived from its batches.
// Members say which thread may touch them: the atomics and the ConsumeQueue's
// published side are for any thread; the rest is the writer's (StoreWriter), or
// recovery's before the writer starts.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "storage/consume_queue.h"
#include "storage/producer_state.h"
#include "storage/txn_index.h"
#include "storage/types.h"

namespace rokka::storage {

// (Members in this order keep the struct at its size: the flags share one word.)
struct Partition {
  ConsumeQueue queue;
  std::atomic<bool> live{true};                      // any thread: false once deleted (never freed)
  std::atomic<bool> retained{false};                 // any thread: set_retained, retention keeps its segments
  // ---- writer thread (recovery before it) ----
  bool touched = false;                              // grew in the current group
  std::unique_ptr<ProducerStateTable> producers;     // null until an idempotent batch
  std::unique_ptr<TxnIndex> txn_index;               // null until a transactional batch
  // Any thread: the transaction index for readers, null until the first transactional
  // batch, then txn_index (never freed before the store closes).
  std::atomic<const TxnIndex*> txns{nullptr};
  // Any thread (written by the writer): the high watermark in the replicated roles, -1
  // until the first confirmation covers the partition (readers then use the start offset).
  std::atomic<int64_t> hw{-1};

  TxnIndex& writer_txns();  // creates the index and publishes it in `txns`
  // The producer checks of an append (producer_state.h): the original append of an
  // idempotent retry, nullopt for a batch to store, or the error.
  Result<std::optional<AppendInfo>> check_producer(std::span<const std::byte> batch) const;
  // Records a stored batch in the producer and transaction state (append, log replay).
  void apply_producer_batch(std::span<const std::byte> batch, int64_t base_offset, int64_t append_time);
};

// PartitionId -> Partition, readable from any thread while the writer adds entries.
// Two levels of 65,536 slots; a block is allocated when its first id is. Partition
// objects live until the store closes (a deleted one is marked, not freed), so a
// reader's pointer never dangles.
class PartitionTable {
 public:
  PartitionTable() : top_(new std::atomic<Block*>[kSlots]()) {}
  ~PartitionTable();
  PartitionTable(const PartitionTable&) = delete;
  PartitionTable& operator=(const PartitionTable&) = delete;

  Partition* get(PartitionId id) const {  // any thread
    Block* b = top_[id >> kBits].load(std::memory_order_acquire);
    return b ? (*b)[id & (kSlots - 1)].load(std::memory_order_acquire) : nullptr;
  }
  // Any thread: the partition if it exists and is not deleted.
  Partition* live(PartitionId id) const {
    Partition* p = get(id);
    return p && p->live.load(std::memory_order_acquire) ? p : nullptr;
  }
  Partition* add(PartitionId id);  // writer
  template <typename F>
  void for_each(F&& f) const {  // writer: every partition ever added, by id
    for (PartitionId id : ids_)
      if (Partition* p = get(id)) f(id, *p);
  }

 private:
  static constexpr int kBits = 16;
  static constexpr size_t kSlots = size_t{1} << kBits;
  using Block = std::array<std::atomic<Partition*>, kSlots>;
  std::unique_ptr<std::atomic<Block*>[]> top_;
  std::vector<PartitionId> ids_;  // writer
};

}  // namespace rokka::storage
