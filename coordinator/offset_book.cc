#include "coordinator/offset_book.h"

#include <map>

#include "coordinator/log.h"

namespace rokka::coordinator {

namespace {

// A write failed: every partition that had no error of its own gets `error`.
void fail_written(std::vector<TopicErrors>& topics, GroupError error) {
  for (TopicErrors& t : topics) {
    for (PartitionError& p : t.partitions) {
      if (p.error == GroupError::kNone) p.error = error;
    }
  }
}

PartitionOffset to_partition_offset(int32_t partition, const CommittedOffset* committed) {
  PartitionOffset p;
  p.partition = partition;
  if (committed != nullptr) {
    p.offset = committed->offset;
    p.leader_epoch = committed->leader_epoch;
    p.metadata = committed->metadata;
  }
  return p;
}

}  // namespace

OffsetBook::OffsetBook(const CoordinatorOptions& options, DurableWriter& writer)
    : options_(options), writer_(writer), store_(writer) {}

// ---------------------------------------------------------------------------------------
// OffsetCommit, OffsetFetch

void OffsetBook::commit(const OffsetCommitArgs& args, int64_t now_ms, std::function<void(OffsetCommitResult)> done) {
  OffsetCommitResult result{partition_errors(args.topics, GroupError::kNone)};
  std::vector<std::pair<TopicPartition, CommittedOffset>> batch;
  for (size_t t = 0; t < args.topics.size(); ++t) {
    for (size_t p = 0; p < args.topics[t].partitions.size(); ++p) {
      const PartitionCommit& pc = args.topics[t].partitions[p];
      const std::string metadata = pc.metadata.value_or("");
      if (metadata.size() > static_cast<size_t>(options_.offset_metadata_max_bytes)) {
        result.topics[t].partitions[p].error = GroupError::kOffsetMetadataTooLarge;
        continue;
      }
      CommittedOffset c{pc.offset, pc.leader_epoch, metadata, now_ms,
                        args.retention_time_ms >= 0 ? now_ms + args.retention_time_ms : -1};
      batch.emplace_back(TopicPartition{args.topics[t].topic, pc.partition}, std::move(c));
    }
  }
  if (batch.empty()) return done(std::move(result));
  store_.commit(args.group_id, std::move(batch),
                [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
                  if (!status.ok()) {
                    log().warn("offset commit not stored: error={}", status.to_string());
                    fail_written(result.topics, GroupError::kStorageError);
                  }
                  done(std::move(result));
                });
}

OffsetFetchResult OffsetBook::fetch(const OffsetFetchArgs& args) const {
  OffsetFetchResult result;
  if (!args.topics) {
    // Every committed offset, sorted for a stable answer.
    if (const OffsetStore::Offsets* all = store_.offsets(args.group_id)) {
      std::map<std::string, std::map<int32_t, const CommittedOffset*>> sorted;
      for (const auto& [tp, offset] : *all) sorted[tp.topic][tp.partition] = &offset;
      for (const auto& [topic, partitions] : sorted) {
        TopicOffsets& t = result.topics.emplace_back();
        t.topic = topic;
        for (const auto& [partition, offset] : partitions)
          t.partitions.push_back(to_partition_offset(partition, offset));
      }
    }
    return result;
  }
  for (const TopicPartitions& requested : *args.topics) {
    TopicOffsets& t = result.topics.emplace_back();
    t.topic = requested.topic;
    for (int32_t partition : requested.partitions) {
      const TopicPartition tp{requested.topic, partition};
      if (args.require_stable && (store_.has_pending(args.group_id, tp) || has_txn_staged(args.group_id, tp))) {
        PartitionOffset& p = t.partitions.emplace_back();
        p.partition = partition;
        p.error = GroupError::kUnstableOffsetCommit;
        continue;
      }
      t.partitions.push_back(to_partition_offset(partition, store_.find(args.group_id, tp)));
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Removal and expiry

std::vector<TopicErrors> OffsetBook::remove(const std::string& group_id, const std::vector<TopicPartitions>& topics,
                                            const TopicFilter& in_use, Mutations& out) {
  std::vector<TopicErrors> result = partition_errors(topics, GroupError::kNone);
  std::vector<TopicPartition> doomed;
  for (TopicErrors& t : result) {
    for (PartitionError& p : t.partitions) {
      if (in_use && in_use(t.topic)) {
        p.error = GroupError::kGroupSubscribedToTopic;
      } else {
        doomed.push_back({t.topic, p.partition});
      }
    }
  }
  const size_t removed = store_.remove(group_id, doomed, out);
  log().info("offsets deleted: group={} partitions={} removed={}", group_id, doomed.size(), removed);
  return result;
}

size_t OffsetBook::expire(const std::string& group_id, const OffsetRetention& retention, int64_t now_ms,
                          Mutations& out) {
  if (retention.since == OffsetRetention::Since::kNever) return 0;
  const int64_t retention_ms = options_.offsets_retention_ms;
  return store_.remove_if(group_id, [&](const TopicPartition& tp, const CommittedOffset& c) {
    if (retention.in_use && retention.in_use(tp.topic)) return false;
    if (c.expire_timestamp_ms >= 0) return now_ms >= c.expire_timestamp_ms;
    const int64_t since =
        retention.since == OffsetRetention::Since::kEmpty ? retention.empty_since_ms : c.commit_timestamp_ms;
    return now_ms - since >= retention_ms;
  }, out);
}

void OffsetBook::store_removals(Mutations batch, std::vector<TopicErrors> topics,
                                std::function<void(std::vector<TopicErrors>)> done) {
  if (batch.empty()) return done(std::move(topics));
  writer_.write(std::move(batch), [topics = std::move(topics), done = std::move(done)](storage::Status status) mutable {
    if (!status.ok()) {
      log().warn("offset deletion not stored: error={}", status.to_string());
      fail_written(topics, GroupError::kStorageError);
    }
    done(std::move(topics));
  });
}

// ---------------------------------------------------------------------------------------
// Transactional offsets

void OffsetBook::stage_txn(const std::string& group_id, const std::vector<TopicPartition>& partitions) {
  if (partitions.empty()) return;
  auto& staged = txn_staged_[group_id];
  for (const TopicPartition& tp : partitions) ++staged[tp];
}

void OffsetBook::release_txn(const std::string& group_id, const std::vector<TopicPartition>& partitions) {
  auto git = txn_staged_.find(group_id);
  if (git == txn_staged_.end()) return;
  for (const TopicPartition& tp : partitions) {
    auto it = git->second.find(tp);
    if (it != git->second.end() && --it->second == 0) git->second.erase(it);
  }
  if (git->second.empty()) txn_staged_.erase(git);
}

bool OffsetBook::has_txn_staged(const std::string& group_id, const TopicPartition& tp) const {
  auto git = txn_staged_.find(group_id);
  return git != txn_staged_.end() && git->second.count(tp) != 0;
}

void OffsetBook::commit_txn(const std::string& group_id,
                            std::vector<std::pair<TopicPartition, CommittedOffset>> offsets, DurableCallback done) {
  const size_t count = offsets.size();
  store_.commit(group_id, std::move(offsets), [group_id, count, done = std::move(done)](storage::Status status) {
    if (!status.ok()) log().warn("transactional offsets not stored: group={} error={}", group_id, status.to_string());
    SPDLOG_LOGGER_DEBUG(&log(), "transactional offsets committed: group={} partitions={}", group_id, count);
    done(std::move(status));
  });
}

}  // namespace rokka::coordinator
