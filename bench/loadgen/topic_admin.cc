#include "bench/loadgen/topic_admin.h"

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "bench/loadgen/kafka.h"
#include "bench/loadgen/payload.h"

namespace rokka::bench {
namespace {

constexpr size_t kTopicsPerRequest = 1000;
constexpr int kMetadataRetryMs = 200;

using NewTopicPtr = RdPtr<rd_kafka_NewTopic_t, rd_kafka_NewTopic_destroy>;
using AdminOptionsPtr = RdPtr<rd_kafka_AdminOptions_t, rd_kafka_AdminOptions_destroy>;
using QueuePtr = RdPtr<rd_kafka_queue_t, rd_kafka_queue_destroy>;
using EventPtr = RdPtr<rd_kafka_event_t, rd_kafka_event_destroy>;

double seconds_since(uint64_t start_ns) { return static_cast<double>(monotonic_ns() - start_ns) / 1e9; }

// Sends one CreateTopics request for `names` and tallies its per-topic results.
void create_batch(rd_kafka_t* rk, const LoadgenOptions& options, std::span<const std::string> names,
                  CreateTopicsOutcome* out) {
  char errstr[512];
  std::vector<NewTopicPtr> owned;
  std::vector<rd_kafka_NewTopic_t*> raw;
  for (const std::string& name : names) {
    owned.emplace_back(rd_kafka_NewTopic_new(name.c_str(), options.partitions, options.replication, errstr,
                                             sizeof errstr));
    if (!owned.back()) {
      out->error = "topic " + name + ": " + errstr;
      return;
    }
    raw.push_back(owned.back().get());
  }
  const int timeout_ms = static_cast<int>(options.timeout_s * 1000);
  AdminOptionsPtr admin(rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS));
  rd_kafka_AdminOptions_set_request_timeout(admin.get(), timeout_ms, errstr, sizeof errstr);
  rd_kafka_AdminOptions_set_operation_timeout(admin.get(), timeout_ms, errstr, sizeof errstr);
  QueuePtr queue(rd_kafka_queue_new(rk));
  rd_kafka_CreateTopics(rk, raw.data(), raw.size(), admin.get(), queue.get());

  EventPtr event(rd_kafka_queue_poll(queue.get(), timeout_ms + 5000));
  if (!event) {
    out->error = "CreateTopics: no response within --timeout";
    return;
  }
  if (rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    out->error = std::string("CreateTopics: ") + rd_kafka_event_error_string(event.get());
    return;
  }
  size_t count = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &count);
  for (size_t i = 0; i < count; ++i) {
    const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ++out->created;
    } else if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      ++out->existed;
    } else if (out->error.empty()) {
      const char* detail = rd_kafka_topic_result_error_string(results[i]);
      out->error = std::string("topic ") + rd_kafka_topic_result_name(results[i]) + ": " +
                   (detail != nullptr ? detail : rd_kafka_err2str(err));
    }
  }
}

// Polls metadata until every topic is listed, or --timeout passes.
void wait_visible(rd_kafka_t* rk, const LoadgenOptions& options, const std::vector<std::string>& names,
                  CreateTopicsOutcome* out) {
  const uint64_t deadline = monotonic_ns() + static_cast<uint64_t>(options.timeout_s * 1e9);
  std::string error;
  TopicLayout layout;
  while (!fetch_layout(rk, names, static_cast<int>(options.timeout_s * 1000), &layout, &error)) {
    if (monotonic_ns() >= deadline) {
      out->error = "topics not visible in metadata: " + error;
      return;
    }
    rd_kafka_poll(rk, kMetadataRetryMs);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (layout.partitions[i] != options.partitions) {
      out->error = "topic " + names[i] + " has " + std::to_string(layout.partitions[i]) + " partitions, not " +
                   std::to_string(options.partitions);
      return;
    }
  }
}

}  // namespace

CreateTopicsOutcome create_topics(const LoadgenOptions& options) {
  CreateTopicsOutcome out;
  ConfPtr conf = make_conf(options.bootstrap, {}, &out.error);
  if (!conf) return out;
  ClientPtr client = make_client(RD_KAFKA_PRODUCER, std::move(conf), &out.error);
  if (!client) return out;

  const std::vector<std::string> names = topic_names(options);
  const uint64_t start = monotonic_ns();
  for (size_t i = 0; i < names.size() && out.error.empty(); i += kTopicsPerRequest) {
    const size_t n = std::min(kTopicsPerRequest, names.size() - i);
    create_batch(client.get(), options, std::span(names).subspan(i, n), &out);
  }
  out.request_s = seconds_since(start);
  if (out.error.empty()) wait_visible(client.get(), options, names, &out);
  out.visible_s = seconds_since(start);
  return out;
}

}  // namespace rokka::bench
