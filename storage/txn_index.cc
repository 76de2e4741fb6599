#include "storage/txn_index.h"

#include <algorithm>

namespace rokka::storage {

void TxnIndex::on_batch(std::span<const std::byte> batch, int64_t base_offset) {
  namespace fb = format::batch;
  if (!fb::is_transactional(batch)) return;
  const int64_t producer_id = fb::i64(batch, fb::kProducerId);
  if (!fb::is_control(batch)) {
    open_.try_emplace(producer_id, base_offset);
    return;
  }
  const auto it = open_.find(producer_id);
  if (it == open_.end()) return;  // nothing of this producer here: the marker closes nothing
  if (fb::control_record_type(batch) == fb::kControlAbort) {
    std::lock_guard lock(mu_);
    add_aborted({producer_id, it->second, base_offset});
  }
  open_.erase(it);
}

void TxnIndex::add_aborted(const AbortedTxn& t) {
  aborted_.push_back(t);
  longest_ = std::max(longest_, t.last_offset - t.first_offset);
}

void TxnIndex::publish() {
  int64_t first = -1;
  for (const auto& [id, offset] : open_)
    if (first < 0 || offset < first) first = offset;
  first_unstable_.store(first, std::memory_order_release);
}

void TxnIndex::truncate(int64_t next_offset) {
  std::erase_if(open_, [&](const auto& kv) { return kv.second >= next_offset; });
  std::lock_guard lock(mu_);
  while (!aborted_.empty() && aborted_.back().last_offset >= next_offset) {
    const AbortedTxn t = aborted_.back();
    aborted_.pop_back();
    if (t.first_offset < next_offset) open_.try_emplace(t.producer_id, t.first_offset);
  }
}

void TxnIndex::trim(int64_t log_start) {
  std::lock_guard lock(mu_);
  while (!aborted_.empty() && aborted_.front().last_offset < log_start) aborted_.pop_front();
}

int64_t TxnIndex::open_first_offset(int64_t producer_id) const {
  const auto it = open_.find(producer_id);
  return it == open_.end() ? -1 : it->second;
}

bool TxnIndex::empty() const {
  std::lock_guard lock(mu_);
  return open_.empty() && aborted_.empty();
}

std::vector<AbortedTxn> TxnIndex::aborted_overlapping(int64_t from, int64_t to) const {
  std::vector<AbortedTxn> out;
  std::lock_guard lock(mu_);
  auto it = std::lower_bound(aborted_.begin(), aborted_.end(), from,
                             [](const AbortedTxn& t, int64_t offset) { return t.last_offset < offset; });
  // first_offset >= last_offset - longest_: past this point no entry can start before `to`.
  for (; it != aborted_.end() && it->last_offset - longest_ < to; ++it)
    if (it->first_offset < to) out.push_back(*it);
  return out;
}

void TxnIndex::encode(format::Encoder& e) const {
  e.u32(static_cast<uint32_t>(open_.size()));
  for (const auto& [id, offset] : open_) {
    e.i64(id);
    e.i64(offset);
  }
  std::lock_guard lock(mu_);
  e.u32(static_cast<uint32_t>(aborted_.size()));
  for (const AbortedTxn& t : aborted_) {
    e.i64(t.producer_id);
    e.i64(t.first_offset);
    e.i64(t.last_offset);
  }
}

bool TxnIndex::decode(format::Decoder& d) {
  for (uint32_t n = d.count(16); n > 0 && d.ok(); --n) {
    const int64_t id = d.i64();
    open_[id] = d.i64();
  }
  std::lock_guard lock(mu_);
  for (uint32_t n = d.count(24); n > 0 && d.ok(); --n) {
    AbortedTxn t;
    t.producer_id = d.i64();
    t.first_offset = d.i64();
    t.last_offset = d.i64();
    if (t.first_offset > t.last_offset || (!aborted_.empty() && aborted_.back().last_offset >= t.last_offset))
      return false;  // the index must stay sorted for the binary search
    add_aborted(t);
  }
  return d.ok();
}

}  // namespace rokka::storage
