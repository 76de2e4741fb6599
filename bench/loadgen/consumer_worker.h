// ConsumerWorker: one librdkafka consumer that counts what it reads, and (given the run id of
// the producers in this process) measures send -> consume latency from each message's stamp.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/loadgen/kafka.h"
#include "bench/loadgen/options.h"
#include "bench/loadgen/run_stats.h"

namespace rokka::bench {

class ConsumerWorker {
 public:
  enum class StartAt {
    kBeginning,  // every partition from its log start; stop when all reach their end (or --count)
    kEnd,        // every partition from its current end offset (e2e: only what is produced next)
  };

  // run_id 0: count every message (a backlog of earlier runs); otherwise count only messages
  // stamped with run_id, and record their latency.
  ConsumerWorker(const LoadgenOptions& options, const TopicLayout& layout, uint32_t run_id);
  ConsumerWorker(const ConsumerWorker&) = delete;
  ConsumerWorker& operator=(const ConsumerWorker&) = delete;

  // Creates the consumer and assigns every partition (or, with --group, subscribes).
  bool connect(StartAt start, std::string* error);

  // Consumes until the target count is reached, until every partition reached its end
  // (kBeginning without a target), or until nothing arrives for --timeout (an error if the
  // target was not reached). Run on the worker's own thread.
  void run();

  // Thread-safe: the e2e run sets the target once its producers know how many were delivered.
  void set_target(uint64_t msgs) { target_.store(msgs, std::memory_order_release); }

  const RunStats& stats() const { return stats_; }
  uint64_t start_ns() const { return start_ns_; }

 private:
  bool assign(StartAt start, std::string* error);
  void handle(const rd_kafka_message_t* msg, uint64_t now);
  bool done() const;

  const LoadgenOptions& options_;
  const TopicLayout& layout_;
  const uint32_t run_id_;
  bool stop_at_end_ = false;
  ClientPtr client_;
  struct Slots {
    int64_t first = 0;  // index of the topic's partition 0 in at_end_
    int32_t count = 0;
  };
  std::unordered_map<std::string, Slots> slots_;  // by topic name
  std::vector<char> at_end_;         // per partition: reached the end and nothing came since
  int64_t partitions_at_end_ = 0;
  std::atomic<uint64_t> target_{std::numeric_limits<uint64_t>::max()};
  uint64_t start_ns_ = 0;
  RunStats stats_;
};

}  // namespace rokka::bench
