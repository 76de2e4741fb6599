// ProducerWorker: one librdkafka producer instance driven by one thread, on a shared schedule.
//
// Global message index j belongs to run r = j / run_length, which goes to topic r % T,
// partition (r / T) % partitions, so load spreads evenly over every partition of every topic.
// With N workers, worker k sends runs k, k+N, k+2N, ... (when N divides the partition count,
// each worker touches only its share of the partitions, which keeps librdkafka's per-partition
// work per instance down). Closed loop (rate 0): each message is stamped when it is handed to librdkafka.
// Open loop (rate R): index j is due at t0 + j / R whatever the broker does; it is stamped
// with that due time, so a stall shows up as latency of every message scheduled during it
// (no coordinated omission).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/loadgen/kafka.h"
#include "bench/loadgen/options.h"
#include "bench/loadgen/run_stats.h"

namespace rokka::bench {

class ProducerWorker {
 public:
  ProducerWorker(const LoadgenOptions& options, const TopicLayout& layout, int index, uint32_t run_id);
  ProducerWorker(const ProducerWorker&) = delete;
  ProducerWorker& operator=(const ProducerWorker&) = delete;

  // Creates the client and topic handles and waits for metadata, so that setup is not timed.
  bool connect(std::string* error);

  // Sends on the schedule starting at t0_ns until --count or --duration is reached, then
  // waits (up to --timeout) for every delivery report. Run on the worker's own thread.
  void run(uint64_t t0_ns);

  const RunStats& stats() const { return stats_; }
  // Open loop only: messages that were due before the end but never handed to librdkafka
  // because it was still full when the run ended (the offered rate was not sustained).
  uint64_t unsent_due() const { return unsent_due_; }
  // One past the highest global index handed to librdkafka (0: none).
  uint64_t index_end() const { return index_end_; }

 private:
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);

  // Stamps and enqueues message j. False if librdkafka's queue was full (retry the same j).
  bool send(uint64_t j, uint64_t send_ns);
  uint64_t due_ns(uint64_t j) const;
  uint64_t global_index(uint64_t i) const;
  uint64_t indexes_below(uint64_t end) const;
  void wait_until(uint64_t due_ns, uint64_t now_ns);
  void drain();

  const LoadgenOptions& options_;
  const TopicLayout& layout_;
  const int index_;
  const uint32_t run_id_;
  uint64_t t0_ns_ = 0;
  ClientPtr client_;
  std::vector<TopicPtr> topics_;
  std::vector<std::byte> payload_;
  RunStats stats_;
  uint64_t unsent_due_ = 0;
  uint64_t index_end_ = 0;
};

}  // namespace rokka::bench
