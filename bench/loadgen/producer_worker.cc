#include "bench/loadgen/producer_worker.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "bench/loadgen/payload.h"

namespace rokka::bench {
namespace {

constexpr uint64_t kNsPerMs = 1'000'000;
constexpr unsigned kPollEvery = 64;  // serve delivery reports at least every 64 sends
constexpr int32_t kWarmupPartitions = 8;  // enough to reach every leader of a small cluster

void sleep_until(uint64_t deadline_ns) {
  const timespec ts{static_cast<time_t>(deadline_ns / 1'000'000'000u),
                    static_cast<long>(deadline_ns % 1'000'000'000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
  }
}

}  // namespace

ProducerWorker::ProducerWorker(const LoadgenOptions& options, const TopicLayout& layout, int index,
                               uint32_t run_id)
    : options_(options), layout_(layout), index_(index), run_id_(run_id),
      payload_(make_payload(static_cast<size_t>(options.message_size))) {}

bool ProducerWorker::connect(std::string* error) {
  Properties props = {
      {"acks", options_.acks},
      {"compression.type", options_.compression},
      {"linger.ms", std::to_string(options_.linger_ms)},
      {"batch.size", std::to_string(options_.batch_size)},
  };
  props.insert(props.end(), options_.producer_props.begin(), options_.producer_props.end());
  ConfPtr conf = make_conf(options_.bootstrap, props, error);
  if (!conf) return false;
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &ProducerWorker::on_delivery);
  rd_kafka_conf_set_opaque(conf.get(), this);
  client_ = make_client(RD_KAFKA_PRODUCER, std::move(conf), error);
  if (!client_) return false;

  for (const std::string& name : layout_.names) {
    topics_.emplace_back(rd_kafka_topic_new(client_.get(), name.c_str(), nullptr));
    if (!topics_.back()) {
      *error = "topic handle " + name + ": " + rd_kafka_err2str(rd_kafka_last_error());
      return false;
    }
  }
  // Before the clock starts: learn every partition's leader, and open the connection produce
  // requests use (the bootstrap connection is a different one). A ListOffsets request goes to
  // the leader of a partition without writing anything.
  const int timeout_ms = static_cast<int>(options_.timeout_s * 1000);
  TopicLayout seen;
  if (!fetch_layout(client_.get(), layout_.names, timeout_ms, &seen, error)) return false;
  for (int32_t p = 0; p < std::min(layout_.partitions[0], kWarmupPartitions); ++p) {
    int64_t low = 0;
    int64_t high = 0;
    const rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(client_.get(), layout_.names[0].c_str(), p, &low, &high, timeout_ms);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      *error = "warm-up ListOffsets: " + std::string(rd_kafka_err2str(err));
      return false;
    }
  }
  return true;
}

uint64_t ProducerWorker::due_ns(uint64_t j) const {
  return t0_ns_ + static_cast<uint64_t>(static_cast<double>(j) * 1e9 / options_.rate);
}

// The worker's i-th message. Runs of run_length consecutive global indexes are dealt to the
// workers in turn, so with K = run_length and N workers, worker k owns runs k, k+N, k+2N, ...
uint64_t ProducerWorker::global_index(uint64_t i) const {
  const auto k = static_cast<uint64_t>(options_.run_length);
  const auto n = static_cast<uint64_t>(options_.producers);
  return ((i / k) * n + static_cast<uint64_t>(index_)) * k + i % k;
}

// How many of this worker's global indexes are below `end`.
uint64_t ProducerWorker::indexes_below(uint64_t end) const {
  const auto k = static_cast<uint64_t>(options_.run_length);
  const auto n = static_cast<uint64_t>(options_.producers);
  const auto me = static_cast<uint64_t>(index_);
  const uint64_t full_runs = end / k;
  const uint64_t mine = full_runs > me ? (full_runs - me + n - 1) / n : 0;
  return mine * k + (full_runs % n == me ? end % k : 0);
}

void ProducerWorker::run(uint64_t t0_ns) {
  t0_ns_ = t0_ns;
  const uint64_t limit = options_.count > 0 ? indexes_below(static_cast<uint64_t>(options_.count))
                                            : std::numeric_limits<uint64_t>::max();
  const bool open_loop = options_.rate > 0;
  const uint64_t end_ns = t0_ns + static_cast<uint64_t>(options_.duration_s * 1e9);
  const bool timed = options_.count == 0;
  unsigned since_poll = 0;
  for (uint64_t i = 0; i < limit;) {
    const uint64_t j = global_index(i);
    const uint64_t now = monotonic_ns();
    uint64_t send_ns = now;
    if (open_loop) {
      send_ns = due_ns(j);
      if (timed && send_ns >= end_ns) break;
      if (send_ns > now) {
        wait_until(send_ns, now);
        continue;
      }
      if (timed && now >= end_ns) {  // behind schedule when time ran out
        const auto due_total = static_cast<uint64_t>(std::ceil(options_.duration_s * options_.rate));
        unsent_due_ = indexes_below(due_total) - std::min(i, indexes_below(due_total));
        break;
      }
    } else if (timed && now >= end_ns) {
      break;
    }
    if (!send(j, send_ns)) continue;
    index_end_ = j + 1;
    ++i;
    if (++since_poll == kPollEvery) {
      rd_kafka_poll(client_.get(), 0);
      since_poll = 0;
    }
  }
  drain();
}

// Waiting inside rd_kafka_poll timestamps delivery reports as they arrive; below 1 ms a plain
// sleep keeps the schedule (reports are then late by at most one send interval).
void ProducerWorker::wait_until(uint64_t due_ns, uint64_t now_ns) {
  if (due_ns - now_ns >= kNsPerMs) {
    rd_kafka_poll(client_.get(), static_cast<int>((due_ns - now_ns) / kNsPerMs));
  } else {
    rd_kafka_poll(client_.get(), 0);
    sleep_until(due_ns);
  }
}

bool ProducerWorker::send(uint64_t j, uint64_t send_ns) {
  const uint64_t run = j / static_cast<uint64_t>(options_.run_length);
  const size_t topic_count = layout_.names.size();
  const size_t t = run % topic_count;
  const auto partition = static_cast<int32_t>((run / topic_count) % static_cast<uint64_t>(layout_.partitions[t]));
  write_stamp(payload_, Stamp{run_id_, send_ns, j});
  if (rd_kafka_produce(topics_[t].get(), partition, RD_KAFKA_MSG_F_COPY, payload_.data(), payload_.size(),
                       nullptr, 0, nullptr) == 0) {
    return true;
  }
  const rd_kafka_resp_err_t err = rd_kafka_last_error();
  if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
    rd_kafka_poll(client_.get(), 1);  // returns as soon as a delivery report frees room
    return false;
  }
  stats_.add_error(rd_kafka_err2str(err));
  return true;
}

void ProducerWorker::drain() {
  rd_kafka_flush(client_.get(), static_cast<int>(options_.timeout_s * 1000));
  const int left = rd_kafka_outq_len(client_.get());
  if (left > 0) {
    stats_.add_error(std::to_string(left) + " messages not delivered within --timeout",
                     static_cast<uint64_t>(left));
  }
}

void ProducerWorker::on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* self = static_cast<ProducerWorker*>(opaque);
  const uint64_t now = monotonic_ns();
  if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    self->stats_.add_error(rd_kafka_err2str(msg->err));
    return;
  }
  self->stats_.count_message(msg->len, now);
  const auto stamp = read_stamp(std::span(static_cast<const std::byte*>(msg->payload), msg->len));
  if (stamp && stamp->run_id == self->run_id_) self->stats_.latency.record(now - std::min(now, stamp->send_ns));
}

}  // namespace rokka::bench
