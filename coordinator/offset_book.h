// OffsetBook: every group's committed offsets as the Kafka APIs see them -- OffsetCommit's
// own checks (offset.metadata.max.bytes, retention time), OffsetFetch (stable or not),
// OffsetDelete, removal with a deleted topic or group, expiry (offsets.retention.minutes)
// and the offsets transactions stage until they end. What is durable, and when, is the
// OffsetStore's that it wraps: a commit is served and acknowledged only once durable.
//
// It knows groups by id only, so one book serves every kind of group. Whether a member may
// commit, which topics a group still uses and from when its offsets age are questions for
// the group's kind: GroupCoordinator asks them and passes the answers in (a validated
// commit, a TopicFilter, an OffsetRetention).
//
// Removals take effect in memory at once and append erase mutations for the caller to
// write (with whatever else belongs in the same batch, such as a group's tombstone);
// store_removals() writes them. Not thread-safe: the coordinator's strand only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coordinator/committed_offset.h"
#include "coordinator/coordinator_options.h"
#include "coordinator/durable_writer.h"
#include "coordinator/group_types.h"
#include "coordinator/offset_store.h"

namespace rokka::coordinator {

// Whether a topic is one a group still uses (its offsets are kept).
using TopicFilter = std::function<bool(const std::string& topic)>;

// From when a group's committed offsets age (Kafka's offset expiration condition), as the
// group's kind decides. A commit that carried its own retention time (OffsetCommit v2-4)
// expires at that time instead -- unless the group keeps every offset (kNever).
struct OffsetRetention {
  enum class Since : uint8_t {
    kNever,   // keep every offset (a group in the middle of a rebalance, say)
    kEmpty,   // from empty_since_ms, when the group lost its last member
    kCommit,  // from each offset's commit time
  };
  Since since = Since::kNever;
  int64_t empty_since_ms = -1;
  TopicFilter in_use;  // topics whose offsets never expire (may be empty: none)
};

// One result per partition of `topics` (TopicCommit or TopicPartitions), all `error`.
template <typename Topics>
std::vector<TopicErrors> partition_errors(const Topics& topics, GroupError error) {
  std::vector<TopicErrors> out;
  out.reserve(topics.size());
  for (const auto& t : topics) {
    TopicErrors& te = out.emplace_back();
    te.topic = t.topic;
    for (const auto& p : t.partitions) {
      if constexpr (std::is_same_v<std::decay_t<decltype(p)>, int32_t>) {
        te.partitions.push_back({p, error});
      } else {
        te.partitions.push_back({p.partition, error});
      }
    }
  }
  return out;
}

class OffsetBook {
 public:
  using Mutations = OffsetStore::Mutations;

  OffsetBook(const CoordinatorOptions& options, DurableWriter& writer);
  OffsetBook(const OffsetBook&) = delete;
  OffsetBook& operator=(const OffsetBook&) = delete;

  // ---- OffsetCommit, OffsetFetch ----
  // Stores the offsets of a commit whose committer the group's kind accepted, stamped
  // `now_ms`; a partition whose metadata is too large gets kOffsetMetadataTooLarge and is
  // not stored. `done` once durable; a failed write answers kStorageError.
  void commit(const OffsetCommitArgs& args, int64_t now_ms, std::function<void(OffsetCommitResult)> done);
  // The committed offsets asked for (every one, sorted, if args.topics is nullopt). With
  // require_stable, a partition with a commit in flight or staged by a transaction
  // answers kUnstableOffsetCommit.
  OffsetFetchResult fetch(const OffsetFetchArgs& args) const;

  // ---- removal ----
  // OffsetDelete: forgets the asked partitions, except those of topics `in_use` claims
  // (they answer kGroupSubscribedToTopic). One result per asked partition.
  std::vector<TopicErrors> remove(const std::string& group_id, const std::vector<TopicPartitions>& topics,
                                  const TopicFilter& in_use, Mutations& out);
  // Every offset of the group (DeleteGroups); of `topic` (a deleted topic). Committed or
  // in flight. Return how many committed offsets went.
  size_t remove_group(const std::string& group_id, Mutations& out) { return store_.remove_group(group_id, out); }
  size_t remove_topic(const std::string& group_id, const std::string& topic, Mutations& out) {
    return store_.remove_topic(group_id, topic, out);
  }
  // The group's offsets that have expired at `now_ms` under `retention`; a partition with
  // a commit in flight stays. Returns how many went.
  size_t expire(const std::string& group_id, const OffsetRetention& retention, int64_t now_ms, Mutations& out);
  // Writes `batch`; `done(topics)` once durable, or with kStorageError in every partition
  // of `topics` that had no error of its own. An empty batch is answered at once.
  void store_removals(Mutations batch, std::vector<TopicErrors> topics,
                      std::function<void(std::vector<TopicErrors>)> done);
  // Whether the group has committed offsets or commits in flight (an Empty group with
  // neither may be dropped).
  bool holds(const std::string& group_id) const {
    return store_.has_offsets(group_id) || store_.has_pending(group_id);
  }

  // ---- transactional offsets (TxnOffsetCommit) ----
  // A transaction stages offsets in its own record; here they only count as unstable
  // (once per stage) until released, and are committed when the transaction commits.
  void stage_txn(const std::string& group_id, const std::vector<TopicPartition>& partitions);
  void release_txn(const std::string& group_id, const std::vector<TopicPartition>& partitions);
  bool has_txn_staged(const std::string& group_id, const TopicPartition& tp) const;
  // Commits a transaction's offsets as they are; `done` once durable.
  void commit_txn(const std::string& group_id, std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
                  DurableCallback done);

  // ---- start-up, introspection ----
  void restore(const std::string& group_id, TopicPartition tp, CommittedOffset offset) {
    store_.restore(group_id, std::move(tp), std::move(offset));
  }
  size_t size() const { return store_.size(); }
  const OffsetStore& store() const { return store_; }

 private:
  const CoordinatorOptions& options_;
  DurableWriter& writer_;
  OffsetStore store_;
  // Partitions with offsets staged by transactions: group -> partition -> stage count.
  std::unordered_map<std::string, std::unordered_map<TopicPartition, int, TopicPartitionHash>> txn_staged_;
};

}  // namespace rokka::coordinator
