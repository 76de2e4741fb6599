#include "storage/producer_state.h"

#include <algorithm>
#include <string>

namespace rokka::storage {
namespace {

Status stale_epoch(int64_t producer_id, int16_t epoch, int16_t current) {
  return Status(StatusCode::kInvalidProducerEpoch, "producer " + std::to_string(producer_id) + " epoch " +
                                                       std::to_string(epoch) + " < " + std::to_string(current));
}

}  // namespace

int32_t increment_sequence(int32_t seq, int32_t delta) {
  if (seq > INT32_MAX - delta) return delta - (INT32_MAX - seq) - 1;
  return seq + delta;
}

Result<std::optional<ProducerBatch>> ProducerStateTable::check(int64_t producer_id, int16_t epoch, int32_t first_seq,
                                                               int32_t last_seq) const {
  const auto it = producers_.find(producer_id);
  if (it == producers_.end()) return std::optional<ProducerBatch>{};  // rule 4
  const ProducerEntry& p = it->second;
  if (epoch == p.epoch) {  // rule 1
    for (const auto& b : p.batches)
      if (b.first_seq == first_seq && b.last_seq == last_seq) return std::optional<ProducerBatch>(b);
  }
  if (epoch < p.epoch) return stale_epoch(producer_id, epoch, p.epoch);  // rule 2
  if (epoch > p.epoch) {  // rule 3
    if (first_seq != 0 && p.epoch != -1)
      return Status(StatusCode::kOutOfOrderSequence, "new epoch must start at sequence 0");
    return std::optional<ProducerBatch>{};
  }
  if (p.batches.empty()) return std::optional<ProducerBatch>{};  // no sequence known: accept (rule 4)
  const int32_t last = p.batches.back().last_seq;  // rule 5
  const bool in_sequence = int64_t{first_seq} == int64_t{last} + 1 || (first_seq == 0 && last == INT32_MAX);
  if (!in_sequence) {
    return Status(StatusCode::kOutOfOrderSequence, "producer " + std::to_string(producer_id) + " sequence " +
                                                       std::to_string(first_seq) + " after " + std::to_string(last));
  }
  return std::optional<ProducerBatch>{};
}

void ProducerStateTable::update(int64_t producer_id, int16_t epoch, const ProducerBatch& batch, int64_t now_ms) {
  update_marker(producer_id, epoch, now_ms);  // rule 6
  ProducerEntry& p = producers_[producer_id];
  if (p.batches.size() == ProducerEntry::kKeep) p.batches.erase(p.batches.begin());
  p.batches.push_back(batch);
}

Status ProducerStateTable::check_marker(int64_t producer_id, int16_t epoch) const {
  const auto it = producers_.find(producer_id);
  if (it != producers_.end() && epoch < it->second.epoch) return stale_epoch(producer_id, epoch, it->second.epoch);
  return {};
}

void ProducerStateTable::update_marker(int64_t producer_id, int16_t epoch, int64_t now_ms) {
  ProducerEntry& p = producers_[producer_id];
  if (epoch != p.epoch) {
    p.batches.clear();
    p.epoch = epoch;
  }
  p.last_append_ms = std::max(p.last_append_ms, now_ms);
}

void ProducerStateTable::expire(int64_t now_ms, int64_t max_idle_ms) {
  std::erase_if(producers_, [&](const auto& kv) { return now_ms - kv.second.last_append_ms > max_idle_ms; });
}

std::vector<ActiveProducer> ProducerStateTable::active() const {
  std::vector<ActiveProducer> out;
  out.reserve(producers_.size());
  for (const auto& [id, e] : producers_)
    out.push_back({id, e.epoch, e.batches.empty() ? -1 : e.batches.back().last_seq, e.last_append_ms, -1});
  std::sort(out.begin(), out.end(), [](const ActiveProducer& a, const ActiveProducer& b) { return a.producer_id < b.producer_id; });
  return out;
}

void ProducerStateTable::truncate(int64_t next_offset) {
  for (auto& [id, p] : producers_)
    std::erase_if(p.batches, [&](const ProducerBatch& b) { return b.base_offset >= next_offset; });
}

void ProducerStateTable::encode(format::Encoder& e) const {
  e.u32(static_cast<uint32_t>(producers_.size()));
  for (const auto& [id, p] : producers_) {
    e.i64(id);
    e.u32(static_cast<uint32_t>(static_cast<uint16_t>(p.epoch)));
    e.i64(p.last_append_ms);
    e.u32(static_cast<uint32_t>(p.batches.size()));
    for (const auto& b : p.batches) {
      e.i32(b.first_seq);
      e.i32(b.last_seq);
      e.i64(b.base_offset);
      e.i64(b.log_append_time);
    }
  }
}

bool ProducerStateTable::decode(format::Decoder& d) {
  const uint32_t n = d.count(24);
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    const int64_t id = d.i64();
    ProducerEntry p;
    p.epoch = static_cast<int16_t>(static_cast<uint16_t>(d.u32()));
    p.last_append_ms = d.i64();
    const uint32_t nb = d.count(24);
    if (nb > ProducerEntry::kKeep) return false;
    for (uint32_t j = 0; j < nb && d.ok(); ++j) {
      ProducerBatch b;
      b.first_seq = d.i32();
      b.last_seq = d.i32();
      b.base_offset = d.i64();
      b.log_append_time = d.i64();
      p.batches.push_back(b);
    }
    producers_[id] = std::move(p);
  }
  return d.ok();
}

}  // namespace rokka::storage
