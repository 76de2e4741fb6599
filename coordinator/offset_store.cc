#include "coordinator/offset_store.h"

#include "coordinator/meta_records.h"

namespace rokka::coordinator {

void OffsetStore::commit(const std::string& group_id, std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
                         DurableCallback done) {
  GroupOffsets& g = groups_[group_id];
  Mutations batch;
  batch.reserve(offsets.size());
  std::vector<uint64_t> generations;
  generations.reserve(offsets.size());
  for (const auto& [tp, offset] : offsets) {
    Pending& p = g.pending[tp];
    if (p.in_flight++ == 0) p.generation = next_generation_++;
    generations.push_back(p.generation);
    batch.push_back({encode_offset_key(group_id, tp), encode_offset_value(offset), false});
  }
  writer_.write(std::move(batch), [this, group_id, offsets = std::move(offsets), generations = std::move(generations),
                                   done = std::move(done)](storage::Status status) mutable {
    apply(group_id, offsets, generations, status.ok());
    done(std::move(status));
  });
}

void OffsetStore::apply(const std::string& group_id, std::vector<std::pair<TopicPartition, CommittedOffset>>& offsets,
                        const std::vector<uint64_t>& generations, bool durable) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return;  // the whole group was removed meanwhile
  GroupOffsets& g = git->second;
  for (size_t i = 0; i < offsets.size(); ++i) {
    auto& [tp, offset] = offsets[i];
    auto pit = g.pending.find(tp);
    if (pit == g.pending.end() || pit->second.generation != generations[i]) continue;  // removed meanwhile
    if (--pit->second.in_flight == 0) g.pending.erase(pit);
    if (!durable) continue;
    auto [it, inserted] = g.committed.insert_or_assign(std::move(tp), std::move(offset));
    if (inserted) ++total_;
  }
  drop_if_unused(group_id);
}

const CommittedOffset* OffsetStore::find(const std::string& group_id, const TopicPartition& tp) const {
  const Offsets* all = offsets(group_id);
  if (all == nullptr) return nullptr;
  auto it = all->find(tp);
  return it == all->end() ? nullptr : &it->second;
}

const OffsetStore::Offsets* OffsetStore::offsets(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second.committed;
}

bool OffsetStore::has_offsets(const std::string& group_id) const {
  const Offsets* all = offsets(group_id);
  return all != nullptr && !all->empty();
}

bool OffsetStore::has_pending(const std::string& group_id, const TopicPartition& tp) const {
  auto it = groups_.find(group_id);
  return it != groups_.end() && it->second.pending.count(tp) != 0;
}

bool OffsetStore::has_pending(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it != groups_.end() && !it->second.pending.empty();
}

void OffsetStore::erase_committed(GroupOffsets& g, const std::string& group_id, const TopicPartition& tp,
                                  Mutations& out, size_t& removed) {
  if (g.committed.erase(tp) == 0) return;
  --total_;
  ++removed;
  out.push_back({encode_offset_key(group_id, tp), std::string(), true});
}

size_t OffsetStore::remove(const std::string& group_id, const std::vector<TopicPartition>& tps, Mutations& out) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return 0;
  size_t removed = 0;
  for (const TopicPartition& tp : tps) {
    if (git->second.pending.erase(tp) != 0) {
      // A commit in flight will land on disk before our erase: erase it even if nothing
      // is committed in memory yet.
      if (git->second.committed.count(tp) == 0) out.push_back({encode_offset_key(group_id, tp), std::string(), true});
    }
    erase_committed(git->second, group_id, tp, out, removed);
  }
  drop_if_unused(group_id);
  return removed;
}

size_t OffsetStore::remove_group(const std::string& group_id, Mutations& out) {
  return remove_matching(group_id, [](const TopicPartition&) { return true; }, out);
}

size_t OffsetStore::remove_topic(const std::string& group_id, const std::string& topic, Mutations& out) {
  return remove_matching(group_id, [&topic](const TopicPartition& tp) { return tp.topic == topic; }, out);
}

size_t OffsetStore::remove_matching(const std::string& group_id, const std::function<bool(const TopicPartition&)>& match,
                                    Mutations& out) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return 0;
  std::vector<TopicPartition> tps;
  for (const auto& [tp, offset] : git->second.committed) {
    if (match(tp)) tps.push_back(tp);
  }
  for (const auto& [tp, pending] : git->second.pending) {
    if (match(tp) && git->second.committed.count(tp) == 0) tps.push_back(tp);
  }
  return remove(group_id, tps, out);
}

size_t OffsetStore::remove_if(const std::string& group_id,
                              const std::function<bool(const TopicPartition&, const CommittedOffset&)>& expired,
                              Mutations& out) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return 0;
  std::vector<TopicPartition> doomed;
  for (const auto& [tp, offset] : git->second.committed) {
    if (git->second.pending.count(tp) == 0 && expired(tp, offset)) doomed.push_back(tp);
  }
  return remove(group_id, doomed, out);
}

void OffsetStore::restore(const std::string& group_id, TopicPartition tp, CommittedOffset offset) {
  auto [it, inserted] = groups_[group_id].committed.insert_or_assign(std::move(tp), std::move(offset));
  if (inserted) ++total_;
}

void OffsetStore::drop_if_unused(const std::string& group_id) {
  auto it = groups_.find(group_id);
  if (it != groups_.end() && it->second.committed.empty() && it->second.pending.empty()) groups_.erase(it);
}

}  // namespace rokka::coordinator
