// Metrics: what /metrics exports (prometheus-cpp), and what /readyz reports.
//
// Threading contract
//  - The request-path calls (request(), produced(), fetched(), connection_*()) may run on
//    every network thread at once and take no lock shared between them: counters are
//    prometheus-cpp Counters (atomics) found through fixed tables of atomic pointers (by
//    API and version, by API and error code) or a per-thread cache (by topic). A table
//    slot's first use takes a mutex once to create its series; after that, none.
//  - scrape() runs on the HTTP server's thread. What is only known at scrape time --
//    consumer lag, groups, topics, partitions, CommitLog files, connections open -- is
//    computed then, from the coordinator (through its strand), the topic registry and
//    the store.
//  - attach() once the broker is assembled, before it serves; detach() before it is
//    destroyed. Without attach(), scrape() exports the request-path series only.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include "broker/error_tally.h"
#include "broker/net/quota_manager.h"
#include "storage/latency_histogram.h"

namespace rokka::broker {

struct Services;
class Coordinators;

class Metrics {
 public:
  // `max_topic_series`: rokka.metrics.max.topic.series; topics past it count in the
  // broker-wide series only. `log_dir`: where the CommitLog segments are counted.
  Metrics(int64_t max_topic_series, std::filesystem::path log_dir);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // ---- request path (network threads) ----
  // One request handled: `took` from its frame read to its response ready.
  void request(int16_t api_key, int16_t version, std::chrono::nanoseconds took, const ErrorTally& errors);
  // Its wait before the handler started: frame read -> handler start (Kafka's RequestQueueTimeMs).
  void request_queued(int16_t api_key, std::chrono::nanoseconds waited);
  // Its response's way out: handler done -> written to the socket, with any wait behind
  // earlier responses and a quota's hold (Kafka's ResponseQueueTimeMs + ResponseSendTimeMs).
  void response_sent(int16_t api_key, std::chrono::nanoseconds took);
  // One Produce's stored batches, summed per topic (each topic once): the broker-wide
  // counters and the append latency are updated once, each topic's series once.
  struct ProducedTopic {
    std::string_view topic;
    int64_t bytes = 0, records = 0;
  };
  void produced(std::span<const ProducedTopic> topics, std::chrono::nanoseconds append_took);
  void fetched(std::string_view topic, int64_t bytes);
  void connection_accepted() { accepted_->Increment(); }
  void connection_closed(const char* reason);  // Connection::close's reason
  void connection_refused(bool per_ip);       // max.connections or max.connections.per.ip reached
  // A client's authentication ended: by SASL `mechanism`, or "SSL" for a TLS handshake
  // (its certificate) on a listener without SASL; any other name counts as "other".
  void authentication(std::string_view mechanism, bool succeeded);
  // A client over a quota was given `ms` of throttle.
  void throttled(QuotaManager::Kind kind, int32_t ms);

  // ---- lifecycle (main thread) ----
  void set_recovered(std::chrono::nanoseconds took);
  void set_listening(bool listening) { listening_.store(listening); }
  void attach(Services* services, Coordinators* coordinators);
  void detach();

  // ---- HTTP (the HTTP server's thread) ----
  // The Prometheus text exposition.
  boost::asio::awaitable<std::string> scrape();
  // Empty when ready, else why not.
  boost::asio::awaitable<std::string> not_ready_reason();

  static constexpr size_t kMaxApiKey = 128;   // API keys below this have series
  static constexpr size_t kMaxVersion = 32;   // versions below this
  static constexpr size_t kMaxErrorCode = 160;

  struct TopicSeries;

 private:
  TopicSeries* topic_series(std::string_view topic);
  prometheus::Counter* requests_counter(size_t api, size_t version);
  prometheus::Counter* errors_counter(size_t api, size_t code);

  const int64_t max_topic_series_;
  const std::filesystem::path log_dir_;
  const uint64_t generation_;  // tells this instance's per-thread topic cache from another's
  std::shared_ptr<prometheus::Registry> registry_;

  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Counter>& errors_;
  prometheus::Family<prometheus::Counter>& messages_in_;
  prometheus::Family<prometheus::Counter>& bytes_in_;
  prometheus::Family<prometheus::Counter>& bytes_out_;
  prometheus::Counter* accepted_;
  std::vector<prometheus::Counter*> close_counters_;  // by kCloseReasons, then "other"
  prometheus::Counter* refused_total_;
  prometheus::Counter* refused_per_ip_;
  prometheus::Counter* refused_rate_;  // connection_creation_rate
  // By QuotaManager::Kind: [0] throttled responses, [1] throttle seconds.
  std::vector<std::array<prometheus::Counter*, 2>> quota_counters_;
  // By kAuthMechanisms, then "other": [0] failed, [1] succeeded.
  std::vector<std::array<prometheus::Counter*, 2>> auth_counters_;
  prometheus::Counter* all_messages_in_;
  prometheus::Counter* all_bytes_in_;
  prometheus::Counter* all_bytes_out_;

  std::mutex create_mu_;  // first use of a table slot or a topic only
  std::array<std::array<std::atomic<prometheus::Counter*>, kMaxVersion>, kMaxApiKey> request_counters_{};
  std::vector<std::atomic<prometheus::Counter*>> error_counters_;  // [api * kMaxErrorCode + code + 1]
  std::array<storage::LatencyHistogram, kMaxApiKey> latency_{};
  std::array<storage::LatencyHistogram, kMaxApiKey> queue_latency_{};
  std::array<storage::LatencyHistogram, kMaxApiKey> send_latency_{};
  std::array<std::atomic<bool>, kMaxApiKey> api_seen_{};
  storage::LatencyHistogram append_latency_;
  std::vector<std::unique_ptr<TopicSeries>> topics_;  // under create_mu_; kept until destruction
  std::unordered_map<std::string, TopicSeries*> topic_index_;  // under create_mu_

  std::atomic<bool> recovered_{false};
  std::atomic<int64_t> recovery_ns_{0};
  std::atomic<bool> listening_{false};
  std::atomic<Services*> services_{nullptr};
  std::atomic<Coordinators*> coordinators_{nullptr};
};

}  // namespace rokka::broker
