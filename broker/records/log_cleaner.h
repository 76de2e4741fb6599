// LogCleaner: log compaction (cleanup.policy=compact) on a shared CommitLog.
//
// One per store (broker/records/store_set.h), on its own thread: every
// log.cleaner.backoff.ms it visits each partition of every topic held in its store: a pure-compact topic's partitions are marked retained in the store (retention
// never deletes their segments); a compacting topic's partition that is due is cleaned:
//  - the cleanable range runs from the first batch to the newest one (excluded, like
//    Kafka's active segment), stopping earlier at the last stable offset and at
//    batches younger than min.compaction.lag.ms;
//  - key -> latest offset over the range; each batch is rewritten keeping the records
//    that are their key's latest (records without a key stay), and dropping tombstones
//    whose timestamp is more than delete.retention.ms old (broker/records/batch_rewriter.h);
//  - a batch left empty is dropped, unless it is the last batch of its producer id
//    (kept empty, as Kafka does, for the producer's sequence state);
//  - transactional and control batches are left as they are and supersede nothing;
//  - Store::rewrite replaces the range at the original offsets (storage/FORMAT.md).
// Due: never cleaned, or dirty bytes (after the cleaned range) / all bytes >=
// min.cleanable.dirty.ratio, or the oldest dirty batch is older than
// max.compaction.lag.ms -- with at least one dirty batch besides the newest. A retained
// partition is also rewritten (copied forward, freeing the old segments for
// retention) when its last rewrite is older than copy_forward_ms.
// Cleaner state is in memory: after a restart every partition is cleaned once again.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "broker/meta/topic_registry.h"
#include "storage/store.h"

namespace rokka::broker {

struct LogCleanerOptions {
  bool enable = true;                         // log.cleaner.enable
  int64_t backoff_ms = 15000;                 // log.cleaner.backoff.ms
  int64_t copy_forward_ms = 3600 * 1000;      // rewrite retained partitions at least this often
  std::function<int64_t()> clock_ms;          // empty = system clock
  // Whether the store may be rewritten now (asked before each partition's compaction; empty =
  // always). A replication group's store is compacted only by the group's leader: a follower
  // copies the leader's rewrites (RKW1) through the stream and its store refuses its own; its
  // cleaner keeps only marking compacted partitions retained (set_retained), so that a promoted
  // follower holds their segments.
  std::function<bool()> may_rewrite;
};

struct CleanStats {
  int64_t batches_in = 0, records_in = 0;     // read from the cleanable range
  int64_t batches_out = 0, records_dropped = 0;
  bool rewritten = false;                     // Store::rewrite replaced the range
};

class LogCleaner {
 public:
  // Cleans the partitions of `topics` that live in `store`, the one in slot `slot`.
  LogCleaner(storage::Store& store, const TopicRegistry& topics, LogCleanerOptions options, StoreSlot slot = kRootSlot);
  ~LogCleaner();
  void start();
  void stop();  // idempotent; waits for a pass in progress

  // One pass over every topic (the thread's loop; tests call it directly).
  void run_pass();
  // Cleans one partition now, due or not. kConflict when the partition changed under it.
  storage::Result<CleanStats> clean(storage::PartitionId pid, const TopicSettings& settings);

 private:
  struct PartitionState {
    int64_t clean_end = -1;   // the cleaned range ended here (next batch's base offset)
    int64_t clean_bytes = 0;  // bytes it holds after cleaning
    int64_t last_rewrite_ms = 0;  // or when the cleaner first saw the partition
  };
  PartitionState& state_for(storage::PartitionId pid, int64_t now);
  bool copy_forward_due(const PartitionState& st, const TopicSettings& settings, int64_t now) const;
  bool due(storage::PartitionId pid, const TopicSettings& settings, int64_t now);
  int64_t now_ms() const;
  void run();

  storage::Store& store_;
  const TopicRegistry& topics_;
  LogCleanerOptions options_;
  const StoreSlot slot_;
  std::unordered_map<storage::PartitionId, PartitionState> state_;  // store_'s pids; pass thread only
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rokka::broker
