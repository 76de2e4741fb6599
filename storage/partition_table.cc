#include "storage/partition_table.h"

#include "storage/format.h"

namespace rokka::storage {

TxnIndex& Partition::writer_txns() {
  if (!txn_index) {
    txn_index = std::make_unique<TxnIndex>();
    txns.store(txn_index.get(), std::memory_order_release);
  }
  return *txn_index;
}

Result<std::optional<AppendInfo>> Partition::check_producer(std::span<const std::byte> batch) const {
  namespace fb = format::batch;
  const int64_t producer_id = fb::i64(batch, fb::kProducerId);
  if (producer_id < 0 || !producers) return std::optional<AppendInfo>{};
  const int16_t epoch = fb::i16(batch, fb::kProducerEpoch);
  if (fb::is_control(batch)) {
    if (Status s = producers->check_marker(producer_id, epoch); !s.ok()) return s;
    return std::optional<AppendInfo>{};
  }
  const int32_t first_seq = fb::i32(batch, fb::kBaseSequence);
  const int32_t last_seq = increment_sequence(first_seq, fb::i32(batch, fb::kLastOffsetDelta));
  auto dup = producers->check(producer_id, epoch, first_seq, last_seq);
  if (!dup.ok()) return dup.status();
  if (!*dup) return std::optional<AppendInfo>{};
  return std::optional<AppendInfo>(AppendInfo{(*dup)->base_offset, (*dup)->log_append_time, queue.start_offset()});
}

void Partition::apply_producer_batch(std::span<const std::byte> batch, int64_t base_offset, int64_t append_time) {
  namespace fb = format::batch;
  const int64_t producer_id = fb::i64(batch, fb::kProducerId);
  if (producer_id < 0) return;
  if (!producers) producers = std::make_unique<ProducerStateTable>();
  const int16_t epoch = fb::i16(batch, fb::kProducerEpoch);
  if (fb::is_control(batch)) {
    producers->update_marker(producer_id, epoch, append_time);
  } else {
    const int32_t first_seq = fb::i32(batch, fb::kBaseSequence);
    const int32_t lod = fb::i32(batch, fb::kLastOffsetDelta);
    const bool lat = (fb::attributes(batch) & fb::kTimestampTypeBit) != 0;
    producers->update(producer_id, epoch,
                      {first_seq, increment_sequence(first_seq, lod), base_offset,
                       lat ? fb::i64(batch, fb::kMaxTimestamp) : -1},
                      append_time);
  }
  if (fb::is_transactional(batch)) writer_txns().on_batch(batch, base_offset);
}

PartitionTable::~PartitionTable() {
  for (size_t i = 0; i < kSlots; ++i) {
    Block* b = top_[i].load();
    if (!b) continue;
    for (auto& slot : *b) delete slot.load();
    delete b;
  }
}

Partition* PartitionTable::add(PartitionId id) {
  auto& top = top_[id >> kBits];
  Block* b = top.load(std::memory_order_relaxed);
  if (!b) {
    b = new Block();
    for (auto& slot : *b) slot.store(nullptr, std::memory_order_relaxed);
    top.store(b, std::memory_order_release);
  }
  auto& slot = (*b)[id & (kSlots - 1)];
  if (Partition* p = slot.load(std::memory_order_relaxed)) return p;
  auto* p = new Partition();
  slot.store(p, std::memory_order_release);
  ids_.push_back(id);
  return p;
}

}  // namespace rokka::storage
