// OffsetStore: committed offsets per (group, topic, partition), in memory and durable in
// storage::MetaStore (records: coordinator/meta_records.h).
//
// A commit is written first and becomes visible (find) only once the MetaStore reports
// it durable; `done` fires after that, so an acknowledged commit survives a crash and an
// unacknowledged one is never served. While a commit of a partition is in flight,
// has_pending() is true (OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT).
// Removing offsets (OffsetDelete, DeleteGroups, topic deletion, expiry) takes effect in memory at once
// and returns the erase mutations for the caller to write; a commit still in flight for
// a removed partition is then not applied when it completes (its record is erased after
// it, in MetaStore order).
//
// Validation is not its job: metadata size and retention are OffsetBook's, who may commit
// is the group's kind's (Membership). Not thread-safe: the coordinator's strand only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coordinator/committed_offset.h"
#include "coordinator/durable_writer.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

class OffsetStore {
 public:
  using Offsets = std::unordered_map<TopicPartition, CommittedOffset, TopicPartitionHash>;
  using Mutations = std::vector<storage::MetaStore::Mutation>;

  explicit OffsetStore(DurableWriter& writer) : writer_(writer) {}

  // Writes `offsets` of `group_id` as one atomic batch; applies them and calls `done`
  // once durable, or calls `done` with the error (and applies nothing).
  void commit(const std::string& group_id, std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
              DurableCallback done);

  const CommittedOffset* find(const std::string& group_id, const TopicPartition& tp) const;
  // Every committed offset of the group (nullptr if none).
  const Offsets* offsets(const std::string& group_id) const;
  bool has_offsets(const std::string& group_id) const;
  bool has_pending(const std::string& group_id, const TopicPartition& tp) const;
  bool has_pending(const std::string& group_id) const;

  // Forget offsets now; erase mutations for the caller to write are appended to `out`.
  // Returns how many committed offsets were removed.
  size_t remove(const std::string& group_id, const std::vector<TopicPartition>& tps, Mutations& out);
  size_t remove_group(const std::string& group_id, Mutations& out);
  // Every offset of the group for `topic`, committed or in flight (a deleted topic).
  size_t remove_topic(const std::string& group_id, const std::string& topic, Mutations& out);
  // Removes every committed offset of the group for which `expired` is true, except
  // partitions with a commit in flight.
  size_t remove_if(const std::string& group_id, const std::function<bool(const TopicPartition&, const CommittedOffset&)>& expired,
                   Mutations& out);

  // Start-up: installs an offset read back from the MetaStore.
  void restore(const std::string& group_id, TopicPartition tp, CommittedOffset offset);
  size_t size() const { return total_; }

 private:
  struct Pending {
    uint32_t in_flight = 0;
    uint64_t generation = 0;  // a commit applies only if its partition was not removed meanwhile
  };
  struct GroupOffsets {
    Offsets committed;
    std::unordered_map<TopicPartition, Pending, TopicPartitionHash> pending;
  };

  void apply(const std::string& group_id, std::vector<std::pair<TopicPartition, CommittedOffset>>& offsets,
             const std::vector<uint64_t>& generations, bool durable);
  void erase_committed(GroupOffsets& g, const std::string& group_id, const TopicPartition& tp, Mutations& out,
                       size_t& removed);
  void drop_if_unused(const std::string& group_id);
  // Removes the group's offsets, committed or in flight, of every partition `match` accepts.
  size_t remove_matching(const std::string& group_id, const std::function<bool(const TopicPartition&)>& match,
                         Mutations& out);

  DurableWriter& writer_;
  std::unordered_map<std::string, GroupOffsets> groups_;
  uint64_t next_generation_ = 1;
  size_t total_ = 0;
};

}  // namespace rokka::coordinator
