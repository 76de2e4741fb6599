#include "bench/loadgen/producer_worker.h"

#include <time.h>

#include <algorithm>
#include <cmath>
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

void ProducerWorker::run(uint64_t t0_ns) {
  t0_ns_ = t0_ns;
  const auto stride = static_cast<uint64_t>(options_.producers);
  const bool by_count = options_.count > 0;
  const bool open_loop = options_.rate > 0;
  const uint64_t end_ns = t0_ns + static_cast<uint64_t>(options_.duration_s * 1e9);
  unsigned since_poll = 0;
  for (uint64_t j = static_cast<uint64_t>(index_);
       !by_count || j < static_cast<uint64_t>(options_.count);) {
    const uint64_t now = monotonic_ns();
    uint64_t send_ns = now;
    if (open_loop) {
      send_ns = due_ns(j);
      if (!by_count && send_ns >= end_ns) break;
      if (send_ns > now) {
        // Waiting inside rd_kafka_poll timestamps delivery reports as they arrive; below 1 ms
        // a plain sleep keeps the schedule (reports are then late by at most one interval).
        if (send_ns - now >= kNsPerMs) {
          rd_kafka_poll(client_.get(), static_cast<int>((send_ns - now) / kNsPerMs));
        } else {
          rd_kafka_poll(client_.get(), 0);
          sleep_until(send_ns);
        }
        continue;
      }
      if (!by_count && now >= end_ns) {  // behind schedule when time ran out
        const auto due_total = static_cast<uint64_t>(std::ceil(options_.duration_s * options_.rate));
        unsent_due_ = due_total > j ? (due_total - j + stride - 1) / stride : 0;
        break;
      }
    } else if (!by_count && now >= end_ns) {
      break;
    }
    if (!send(j, send_ns)) continue;
    j += stride;
    if (++since_poll == kPollEvery) {
      rd_kafka_poll(client_.get(), 0);
      since_poll = 0;
    }
  }
  drain();
}

bool ProducerWorker::send(uint64_t j, uint64_t send_ns) {
  const size_t topic_count = layout_.names.size();
  const size_t t = j % topic_count;
  const auto partition = static_cast<int32_t>((j / topic_count) % static_cast<uint64_t>(layout_.partitions[t]));
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
