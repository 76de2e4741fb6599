#include "bench/loadgen/consumer_worker.h"

#include <algorithm>
#include <memory>
#include <span>

#include "bench/loadgen/payload.h"

namespace rokka::bench {
namespace {

constexpr int kPollMs = 100;

using PartitionListPtr = RdPtr<rd_kafka_topic_partition_list_t, rd_kafka_topic_partition_list_destroy>;

PartitionListPtr all_partitions(const TopicLayout& layout) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(layout.total_partitions())));
  for (size_t t = 0; t < layout.names.size(); ++t) {
    for (int32_t p = 0; p < layout.partitions[t]; ++p) {
      rd_kafka_topic_partition_list_add(list.get(), layout.names[t].c_str(), p);
    }
  }
  return list;
}

}  // namespace

ConsumerWorker::ConsumerWorker(const LoadgenOptions& options, const TopicLayout& layout, uint32_t run_id)
    : options_(options), layout_(layout), run_id_(run_id) {
  int64_t slot = 0;
  for (size_t t = 0; t < layout.names.size(); ++t) {
    slots_.emplace(layout.names[t], Slots{slot, layout.partitions[t]});
    slot += layout.partitions[t];
  }
  at_end_.assign(static_cast<size_t>(slot), 0);
  if (options.count > 0 && run_id == 0) set_target(static_cast<uint64_t>(options.count));
}

bool ConsumerWorker::connect(StartAt start, std::string* error) {
  stop_at_end_ = start == StartAt::kBeginning && options_.count == 0;
  Properties props = {
      {"enable.auto.commit", "false"},
      {"auto.offset.reset", "earliest"},
      {"enable.partition.eof", stop_at_end_ ? "true" : "false"},
  };
  // librdkafka's assign() needs a group.id even though assign-only consumers never join it.
  props.emplace_back("group.id", options_.group.empty() ? "loadgen-assign" : options_.group);
  props.insert(props.end(), options_.consumer_props.begin(), options_.consumer_props.end());
  ConfPtr conf = make_conf(options_.bootstrap, props, error);
  if (!conf) return false;
  client_ = make_client(RD_KAFKA_CONSUMER, std::move(conf), error);
  if (!client_) return false;
  rd_kafka_poll_set_consumer(client_.get());
  start_ns_ = monotonic_ns();
  return assign(start, error);
}

bool ConsumerWorker::assign(StartAt start, std::string* error) {
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  if (!options_.group.empty()) {
    PartitionListPtr topics(rd_kafka_topic_partition_list_new(static_cast<int>(layout_.names.size())));
    for (const std::string& name : layout_.names) {
      rd_kafka_topic_partition_list_add(topics.get(), name.c_str(), RD_KAFKA_PARTITION_UA);
    }
    err = rd_kafka_subscribe(client_.get(), topics.get());
  } else {
    PartitionListPtr list = all_partitions(layout_);
    const int timeout_ms = static_cast<int>(options_.timeout_s * 1000);
    for (int i = 0; i < list->cnt && err == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      rd_kafka_topic_partition_t& tp = list->elems[i];
      int64_t low = 0;
      int64_t high = 0;
      if (start == StartAt::kEnd) {
        err = rd_kafka_query_watermark_offsets(client_.get(), tp.topic, tp.partition, &low, &high, timeout_ms);
      }
      tp.offset = start == StartAt::kEnd ? high : RD_KAFKA_OFFSET_BEGINNING;
    }
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) err = rd_kafka_assign(client_.get(), list.get());
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    *error = std::string("assign: ") + rd_kafka_err2str(err);
    return false;
  }
  return true;
}

void ConsumerWorker::run() {
  uint64_t last_activity = monotonic_ns();
  const auto idle_limit = static_cast<uint64_t>(options_.timeout_s * 1e9);
  while (!done()) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(client_.get(), kPollMs);
    const uint64_t now = monotonic_ns();
    if (msg == nullptr) {
      if (now - last_activity < idle_limit) continue;
      const uint64_t target = target_.load(std::memory_order_acquire);
      stats_.add_error("nothing consumed for --timeout after " + std::to_string(stats_.msgs) + " messages" +
                       (target == std::numeric_limits<uint64_t>::max() ? "" : " of " + std::to_string(target)));
      break;
    }
    last_activity = now;
    handle(msg, now);
    rd_kafka_message_destroy(msg);
  }
  rd_kafka_consumer_close(client_.get());
}

bool ConsumerWorker::done() const {
  if (stats_.msgs >= target_.load(std::memory_order_acquire)) return true;
  return stop_at_end_ && partitions_at_end_ == static_cast<int64_t>(at_end_.size());
}

void ConsumerWorker::handle(const rd_kafka_message_t* msg, uint64_t now) {
  const bool is_eof = msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF;
  if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR && !is_eof) {
    stats_.add_error(rd_kafka_message_errstr(msg));
    return;
  }
  if (stop_at_end_ && msg->rkt != nullptr) {
    const auto it = slots_.find(rd_kafka_topic_name(msg->rkt));
    if (it != slots_.end() && msg->partition >= 0 && msg->partition < it->second.count) {
      char& flag = at_end_[static_cast<size_t>(it->second.first + msg->partition)];
      partitions_at_end_ += (is_eof ? 1 : 0) - flag;
      flag = is_eof ? 1 : 0;
    }
  }
  if (is_eof) return;

  const auto stamp = read_stamp(std::span(static_cast<const std::byte*>(msg->payload), msg->len));
  if (run_id_ == 0) {
    if (!stamp) stats_.add_error("message without a loadgen stamp");
    stats_.count_message(msg->len, now);
    return;
  }
  if (!stamp || stamp->run_id != run_id_) return;  // another run's message: not ours to count
  stats_.count_message(msg->len, now);
  stats_.latency.record(now - std::min(now, stamp->send_ns));
}

}  // namespace rokka::bench
