#include "broker/metrics.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstring>
#include <map>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>
#include <string>
#include <unordered_map>

#include "broker/config/config_schema.h"
#include "broker/coordinators.h"
#include "broker/link/cluster_link.h"
#include "broker/link/group_member.h"
#include "broker/services.h"
#include "broker/meta/topic_registry.h"
#include "coordinator/group_service.h"
#include "coordinator/transaction_service.h"
#include "protocol/api_keys.h"
#include "protocol/error_code.h"
#include "storage/store.h"

namespace rokka::broker {

namespace asio = boost::asio;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

struct Metrics::TopicSeries {
  prometheus::Counter* messages_in = nullptr;
  prometheus::Counter* bytes_in = nullptr;
  prometheus::Counter* bytes_out = nullptr;
};

namespace {

std::atomic<uint64_t> next_generation{1};

// Why connections close (Connection::close's reasons), each with its series made up front.
constexpr const char* kCloseReasons[] = {"done",        "bad frame size",       "frame too large", "malformed header",
                                         "unknown api", "unsupported version",  "write failed",    "bad request",
                                         "request read timeout", "write stalled", "idle"};

// By QuotaManager::Kind.
constexpr std::string_view kQuotaKinds[] = {"produce", "fetch", "request", "connection", "controller_mutation"};

constexpr std::string_view kAuthMechanisms[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "SSL"};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Per network thread: topic name -> its series (nullptr: past the cap), for one Metrics.
struct TopicCache {
  uint64_t generation = 0;
  std::unordered_map<std::string, void*, StringHash, std::equal_to<>> map;
};
thread_local TopicCache topic_cache;

ClientMetric::Label label(std::string name, std::string value) { return {std::move(name), std::move(value)}; }

MetricFamily family(std::string name, std::string help, MetricType type) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

ClientMetric gauge(double value, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  return m;
}

ClientMetric histogram(const storage::LatencyHistogram& h, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric m;
  m.label = std::move(labels);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < storage::LatencyHistogram::kBoundsSeconds.size(); ++i) {
    cumulative += h.bucket(i);
    m.histogram.bucket.push_back({cumulative, storage::LatencyHistogram::kBoundsSeconds[i]});
  }
  cumulative += h.bucket(storage::LatencyHistogram::kBoundsSeconds.size());
  m.histogram.bucket.push_back({cumulative, std::numeric_limits<double>::infinity()});
  m.histogram.sample_count = cumulative;
  m.histogram.sample_sum = static_cast<double>(h.sum_ns()) / 1e9;
  return m;
}

// The sum of histograms with the same bounds (one per store).
ClientMetric histogram(const std::vector<const storage::CountHistogram*>& hs) {
  ClientMetric m;
  uint64_t cumulative = 0, sum = 0;
  for (size_t i = 0; i <= storage::CountHistogram::kBounds; ++i) {
    for (const storage::CountHistogram* h : hs) cumulative += h->bucket(i);
    const double bound = i < storage::CountHistogram::kBounds ? static_cast<double>(hs.front()->bound(i))
                                                                : std::numeric_limits<double>::infinity();
    m.histogram.bucket.push_back({cumulative, bound});
  }
  for (const storage::CountHistogram* h : hs) sum += h->sum();
  m.histogram.sample_count = cumulative;
  m.histogram.sample_sum = static_cast<double>(sum);
  return m;
}

ClientMetric counter(double value) {
  ClientMetric m;
  m.counter.value = value;
  return m;
}

std::string api_label(size_t api) { return protocol::api_name(static_cast<protocol::ApiKey>(api)); }

}  // namespace

Metrics::Metrics(int64_t max_topic_series, std::filesystem::path log_dir)
    : max_topic_series_(max_topic_series),
      log_dir_(std::move(log_dir)),
      generation_(next_generation.fetch_add(1)),
      registry_(std::make_shared<prometheus::Registry>()),
      requests_(prometheus::BuildCounter()
                    .Name("kafka_network_requestmetrics_requests_total")
                    .Help("Requests handled, by API (request) and version.")
                    .Register(*registry_)),
      errors_(prometheus::BuildCounter()
                  .Name("kafka_network_requestmetrics_errors_total")
                  .Help("Non-zero error codes in responses, by API (request) and Kafka error name: the response's "
                        "own code and those of its topics, partitions, groups and results.")
                  .Register(*registry_)),
      messages_in_(prometheus::BuildCounter()
                       .Name("kafka_server_brokertopicmetrics_messagesin_total")
                       .Help("Records appended; without a topic label: the whole broker.")
                       .Register(*registry_)),
      bytes_in_(prometheus::BuildCounter()
                    .Name("kafka_server_brokertopicmetrics_bytesin_total")
                    .Help("Record batch bytes appended; without a topic label: the whole broker.")
                    .Register(*registry_)),
      bytes_out_(prometheus::BuildCounter()
                     .Name("kafka_server_brokertopicmetrics_bytesout_total")
                     .Help("Record batch bytes sent in Fetch responses; without a topic label: the whole broker.")
                     .Register(*registry_)),
      error_counters_(kMaxApiKey * kMaxErrorCode) {
  auto& accepted = prometheus::BuildCounter()
                       .Name("rokka_connections_accepted_total")
                       .Help("Client connections accepted.")
                       .Register(*registry_);
  accepted_ = &accepted.Add({});
  auto& closed = prometheus::BuildCounter()
                     .Name("rokka_connections_closed_total")
                     .Help("Client connections closed, by reason (done: the client closed or the broker stopped).")
                     .Register(*registry_);
  for (const char* reason : kCloseReasons) close_counters_.push_back(&closed.Add({{"reason", reason}}));
  close_counters_.push_back(&closed.Add({{"reason", "other"}}));
  auto& refused = prometheus::BuildCounter()
                      .Name("rokka_connections_refused_total")
                      .Help("Connections refused at accept, by the limit reached.")
                      .Register(*registry_);
  refused_total_ = &refused.Add({{"limit", std::string(cfg::kMaxConnections.name)}});
  refused_per_ip_ = &refused.Add({{"limit", std::string(cfg::kMaxConnectionsPerIp.name)}});
  refused_rate_ = &refused.Add({{"limit", "connection_creation_rate"}});
  auto& throttled = prometheus::BuildCounter()
                        .Name("rokka_quota_throttled_total")
                        .Help("Responses throttled by a client quota (produce: producer_byte_rate, fetch: "
                              "consumer_byte_rate, request: request_percentage; connection: a connection over "
                              "its IP's connection_creation_rate, closed after the throttle; controller_mutation: "
                              "CreateTopics, CreatePartitions, DeleteTopics over controller_mutation_rate).")
                        .Register(*registry_);
  auto& throttle_time = prometheus::BuildCounter()
                            .Name("rokka_quota_throttle_time_seconds_total")
                            .Help("Throttle time given to clients over a quota, by quota (see rokka_quota_throttled_total).")
                            .Register(*registry_);
  for (std::string_view q : kQuotaKinds)
    quota_counters_.push_back({&throttled.Add({{"quota", std::string(q)}}), &throttle_time.Add({{"quota", std::string(q)}})});
  auto& auth_failed = prometheus::BuildCounter()
                          .Name("kafka_server_socket_server_metrics_failed_authentication_total")
                          .Help("Client authentications that failed, by SASL mechanism (SSL: the TLS handshake).")
                          .Register(*registry_);
  auto& auth_ok = prometheus::BuildCounter()
                      .Name("kafka_server_socket_server_metrics_successful_authentication_total")
                      .Help("Client authentications that succeeded, by SASL mechanism (SSL: the TLS handshake "
                            "on a listener without SASL).")
                      .Register(*registry_);
  for (std::string_view m : kAuthMechanisms)
    auth_counters_.push_back({&auth_failed.Add({{"mechanism", std::string(m)}}), &auth_ok.Add({{"mechanism", std::string(m)}})});
  auth_counters_.push_back({&auth_failed.Add({{"mechanism", "other"}}), &auth_ok.Add({{"mechanism", "other"}})});
  all_messages_in_ = &messages_in_.Add({});
  all_bytes_in_ = &bytes_in_.Add({});
  all_bytes_out_ = &bytes_out_.Add({});
}

Metrics::~Metrics() = default;

prometheus::Counter* Metrics::requests_counter(size_t api, size_t version) {
  auto& slot = request_counters_[api][version];
  if (auto* c = slot.load(std::memory_order_acquire)) return c;
  std::lock_guard lock(create_mu_);
  if (auto* c = slot.load(std::memory_order_acquire)) return c;
  auto* c = &requests_.Add({{"request", api_label(api)}, {"version", std::to_string(version)}});
  slot.store(c, std::memory_order_release);
  return c;
}

prometheus::Counter* Metrics::errors_counter(size_t api, size_t code_slot) {
  auto& slot = error_counters_[api * kMaxErrorCode + code_slot];
  if (auto* c = slot.load(std::memory_order_acquire)) return c;
  std::lock_guard lock(create_mu_);
  if (auto* c = slot.load(std::memory_order_acquire)) return c;
  const int16_t code = static_cast<int16_t>(static_cast<int>(code_slot) - 1);
  auto* c = &errors_.Add({{"request", api_label(api)},
                          {"error", protocol::error_name(static_cast<protocol::ErrorCode>(code))}});
  slot.store(c, std::memory_order_release);
  return c;
}

void Metrics::request(int16_t api_key, int16_t version, std::chrono::nanoseconds took, const ErrorTally& errors) {
  if (api_key < 0 || static_cast<size_t>(api_key) >= kMaxApiKey) return;
  const auto api = static_cast<size_t>(api_key);
  if (version >= 0 && static_cast<size_t>(version) < kMaxVersion) requests_counter(api, static_cast<size_t>(version))->Increment();
  if (!api_seen_[api].load(std::memory_order_relaxed)) api_seen_[api].store(true, std::memory_order_relaxed);
  latency_[api].observe(took);
  for (const auto& [code, n] : errors) {
    const int slot = code + 1;  // -1 (UNKNOWN_SERVER_ERROR) is slot 0
    if (slot >= 0 && static_cast<size_t>(slot) < kMaxErrorCode) errors_counter(api, static_cast<size_t>(slot))->Increment(n);
  }
}

void Metrics::request_queued(int16_t api_key, std::chrono::nanoseconds waited) {
  if (api_key >= 0 && static_cast<size_t>(api_key) < kMaxApiKey) queue_latency_[static_cast<size_t>(api_key)].observe(waited);
}

void Metrics::response_sent(int16_t api_key, std::chrono::nanoseconds took) {
  if (api_key >= 0 && static_cast<size_t>(api_key) < kMaxApiKey) send_latency_[static_cast<size_t>(api_key)].observe(took);
}

void Metrics::connection_closed(const char* reason) {
  size_t i = 0;
  while (i < std::size(kCloseReasons) && std::strcmp(kCloseReasons[i], reason) != 0) ++i;
  close_counters_[i]->Increment();  // the last: "other"
}

void Metrics::authentication(std::string_view mechanism, bool succeeded) {
  size_t i = 0;
  while (i < std::size(kAuthMechanisms) && kAuthMechanisms[i] != mechanism) ++i;
  auth_counters_[i][succeeded ? 1 : 0]->Increment();
}

void Metrics::throttled(QuotaManager::Kind kind, int32_t ms) {
  const auto& [count, seconds] = quota_counters_[static_cast<size_t>(kind)];
  count->Increment();
  seconds->Increment(ms / 1000.0);
  if (kind == QuotaManager::Kind::kConnection) refused_rate_->Increment();
}

void Metrics::connection_refused(bool per_ip) { (per_ip ? refused_per_ip_ : refused_total_)->Increment(); }

Metrics::TopicSeries* Metrics::topic_series(std::string_view topic) {
  TopicCache& cache = topic_cache;
  if (cache.generation != generation_) {
    cache.map.clear();
    cache.generation = generation_;
  }
  if (auto it = cache.map.find(topic); it != cache.map.end()) return static_cast<TopicSeries*>(it->second);
  TopicSeries* series = nullptr;
  {
    std::lock_guard lock(create_mu_);
    if (auto it = topic_index_.find(std::string(topic)); it != topic_index_.end()) {
      series = it->second;
    } else if (static_cast<int64_t>(topics_.size()) < max_topic_series_) {
      auto s = std::make_unique<TopicSeries>();
      const prometheus::Labels labels{{"topic", std::string(topic)}};
      s->messages_in = &messages_in_.Add(labels);
      s->bytes_in = &bytes_in_.Add(labels);
      s->bytes_out = &bytes_out_.Add(labels);
      series = s.get();
      topics_.push_back(std::move(s));
      topic_index_.emplace(std::string(topic), series);
    }
  }
  cache.map.emplace(std::string(topic), series);
  return series;
}

void Metrics::produced(std::span<const ProducedTopic> topics, std::chrono::nanoseconds append_took) {
  int64_t bytes = 0, records = 0;
  for (const ProducedTopic& t : topics) {
    bytes += t.bytes;
    records += t.records;
    if (auto* s = topic_series(t.topic)) {
      s->messages_in->Increment(static_cast<double>(t.records));
      s->bytes_in->Increment(static_cast<double>(t.bytes));
    }
  }
  all_messages_in_->Increment(static_cast<double>(records));
  all_bytes_in_->Increment(static_cast<double>(bytes));
  append_latency_.observe(append_took);
}

void Metrics::fetched(std::string_view topic, int64_t bytes) {
  if (bytes <= 0) return;
  all_bytes_out_->Increment(static_cast<double>(bytes));
  if (auto* s = topic_series(topic)) s->bytes_out->Increment(static_cast<double>(bytes));
}

void Metrics::set_recovered(std::chrono::nanoseconds took) {
  recovery_ns_.store(took.count());
  recovered_.store(true);
}

void Metrics::attach(Services* services, Coordinators* coordinators) {
  coordinators_.store(coordinators);
  services_.store(services);
}

void Metrics::detach() {
  listening_.store(false);
  services_.store(nullptr);
  coordinators_.store(nullptr);
}

// GCC 12 reports asio's coroutine frames as mismatched new/delete (a false positive: asio
// pairs its own operator new/delete; see broker/handlers/produce.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
asio::awaitable<std::string> Metrics::not_ready_reason() {
  if (!recovered_.load()) co_return "store recovery in progress";
  Coordinators* coordinators = coordinators_.load();
  if (coordinators == nullptr || !listening_.load()) co_return "listeners not accepting yet";
  // A broker leading no replication group has no coordinator to load (FindCoordinator names the leader).
  const std::shared_ptr<CoordinatorPair> pair = coordinators->current();
  if (!pair->serving()) co_return std::string();
  coordinator::GroupService* groups = &pair->groups();
  coordinator::TransactionService* txns = &pair->txns();
  // The coordinators' load flags live on their strand.
  const int loaded = co_await asio::co_spawn(
      groups->strand(), [groups, txns]() -> asio::awaitable<int> {
        co_return (groups->coordinator().loaded() ? 1 : 0) | (txns == nullptr || txns->loaded() ? 2 : 0);
      },
      asio::use_awaitable);
  if (!(loaded & 1)) co_return "group coordinator loading";
  if (!(loaded & 2)) co_return "transaction coordinator loading";
  co_return std::string();
}

asio::awaitable<std::string> Metrics::scrape() {
  std::vector<MetricFamily> out = registry_->Collect();

  auto latency = family("rokka_request_latency_seconds",
                        "Time a request's handler took, from its start to its response ready, by API (request).",
                        MetricType::Histogram);
  for (size_t api = 0; api < kMaxApiKey; ++api)
    if (api_seen_[api].load(std::memory_order_relaxed))
      latency.metric.push_back(histogram(latency_[api], {label("request", api_label(api))}));
  out.push_back(std::move(latency));
  auto queued = family("rokka_request_queue_time_seconds",
                       "Time from a request's frame read to its handler's start, by API (request).",
                       MetricType::Histogram);
  auto sent = family("rokka_response_send_time_seconds",
                     "Time from a response ready to written to the socket, by API (request): waiting behind "
                     "earlier responses of the connection, a quota's hold, and the write.",
                     MetricType::Histogram);
  for (size_t api = 0; api < kMaxApiKey; ++api) {
    if (!api_seen_[api].load(std::memory_order_relaxed)) continue;
    queued.metric.push_back(histogram(queue_latency_[api], {label("request", api_label(api))}));
    sent.metric.push_back(histogram(send_latency_[api], {label("request", api_label(api))}));
  }
  out.push_back(std::move(queued));
  out.push_back(std::move(sent));

  auto append = family("rokka_store_append_latency_seconds",
                       "Time from a Produce's appends queued to the store until they were written (and, with "
                       "store.flush.mode=sync, synced).",
                       MetricType::Histogram);
  append.metric.push_back(histogram(append_latency_));
  out.push_back(std::move(append));
  auto fsync = family("rokka_store_fsync_latency_seconds",
                      "fdatasync calls of the store (CommitLog, index files, checkpoint, meta journal) and their "
                      "duration; _count is the number of fsyncs.",
                      MetricType::Histogram);
  fsync.metric.push_back(histogram(storage::fsync_latency()));
  out.push_back(std::move(fsync));

  auto recovery = family("rokka_store_recovery_duration_seconds",
                         "How long opening the store (with crash recovery, if needed) took at start-up.",
                         MetricType::Gauge);
  recovery.metric.push_back(gauge(static_cast<double>(recovery_ns_.load()) / 1e9));
  out.push_back(std::move(recovery));

  // CommitLog segments on disk (their sizes: preallocated segments count whole), and the shared index files,
  // of every store.
  {
    std::vector<std::filesystem::path> dirs;
    if (const Services* attached = services_.load(); attached != nullptr) {
      for (const StoreSet::Entry& e : attached->stores.entries()) dirs.push_back(e.dir);
    } else {
      dirs.push_back(log_dir_);
    }
    double bytes = 0, segments = 0, index_files = 0;
    for (const std::filesystem::path& dir : dirs) {
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(dir / "commitlog", ec)) {
        std::error_code size_ec;
        const auto size = entry.file_size(size_ec);
        if (size_ec) continue;
        bytes += static_cast<double>(size);
        segments += 1;
      }
      for (const auto& entry : std::filesystem::directory_iterator(dir / "index", ec)) {
        std::error_code type_ec;
        if (entry.is_regular_file(type_ec)) index_files += 1;
      }
    }
    auto b = family("rokka_commitlog_size_bytes", "Bytes of the CommitLog segment files.", MetricType::Gauge);
    b.metric.push_back(gauge(bytes));
    out.push_back(std::move(b));
    auto s = family("rokka_commitlog_segments", "CommitLog segment files.", MetricType::Gauge);
    s.metric.push_back(gauge(segments));
    out.push_back(std::move(s));
    auto i = family("rokka_index_files", "Shared index files (every partition's index units).", MetricType::Gauge);
    i.metric.push_back(gauge(index_files));
    out.push_back(std::move(i));
  }

  Services* services = services_.load();
  Coordinators* coordinators = coordinators_.load();
  // The pair in use, kept for the whole scrape; nothing while this broker coordinates nothing.
  const std::shared_ptr<CoordinatorPair> pair = coordinators != nullptr ? coordinators->current() : nullptr;
  coordinator::GroupService* groups = pair && pair->serving() ? &pair->groups() : nullptr;
  if (services != nullptr) {
    auto open = family("rokka_connections_open", "Client connections open now.", MetricType::Gauge);
    open.metric.push_back(gauge(static_cast<double>(services->connections.load(std::memory_order_relaxed))));
    out.push_back(std::move(open));
    auto memory = family("rokka_request_memory_used_bytes",
                         "Request bytes held now against queued.max.request.bytes.", MetricType::Gauge);
    memory.metric.push_back(gauge(static_cast<double>(services->request_memory.used())));
    out.push_back(std::move(memory));
  }
  if (services != nullptr) {
    // Summed over the broker's stores.
    storage::StoreStats stats;
    std::vector<const storage::CountHistogram*> commit_records, commit_bytes;
    for (const StoreSet::Entry& e : services->stores.entries()) {
      const storage::StoreStats one = e.store->stats();
      if (one.group_commit_records != nullptr && one.group_commit_bytes != nullptr) {
        commit_records.push_back(one.group_commit_records);
        commit_bytes.push_back(one.group_commit_bytes);
      }
      stats.retention_deleted_segments += one.retention_deleted_segments;
      stats.retention_deleted_bytes += one.retention_deleted_bytes;
      stats.page_cache_log_bytes += one.page_cache_log_bytes;
      stats.page_cache_index_bytes += one.page_cache_index_bytes;
    }
    if (!commit_records.empty()) {
      auto records = family("rokka_store_group_commit_records",
                            "Records appended per group commit of the store's writer (the appends it drained, "
                            "wrote and, with store.flush.mode=sync, synced together): Produce, offset commits "
                            "and transaction markers; compaction's rewrites not counted.",
                            MetricType::Histogram);
      records.metric.push_back(histogram(commit_records));
      out.push_back(std::move(records));
      auto bytes = family("rokka_store_group_commit_bytes",
                          "CommitLog bytes (entry headers included) appended per group commit of the store's "
                          "writer, as for rokka_store_group_commit_records.",
                          MetricType::Histogram);
      bytes.metric.push_back(histogram(commit_bytes));
      out.push_back(std::move(bytes));
    }
    auto deleted = family("rokka_retention_deleted_segments_total",
                          "CommitLog segment files deleted by retention (log.retention.ms / .bytes), since start.",
                          MetricType::Counter);
    deleted.metric.push_back(counter(static_cast<double>(stats.retention_deleted_segments)));
    out.push_back(std::move(deleted));
    auto deleted_bytes = family("rokka_retention_deleted_bytes_total",
                                "File sizes of the CommitLog segments deleted by retention, since start.",
                                MetricType::Counter);
    deleted_bytes.metric.push_back(counter(static_cast<double>(stats.retention_deleted_bytes)));
    out.push_back(std::move(deleted_bytes));
    auto window = family("rokka_store_page_cache_window_bytes",
                         "What the store keeps in the page cache. file=commitlog: the log bytes from the oldest "
                         "it has not dropped (it drops synced bytes more than store.pagecache.retain.bytes "
                         "behind the end, in 8 MiB steps; with -1, none: the whole log) to the end readable; "
                         "older bytes a consumer reads again come back but are not counted. file=index: the "
                         "index chunks handed out so far and those pre-faulted ahead of them (never dropped).",
                         MetricType::Gauge);
    window.metric.push_back(gauge(static_cast<double>(stats.page_cache_log_bytes), {label("file", "commitlog")}));
    window.metric.push_back(gauge(static_cast<double>(stats.page_cache_index_bytes), {label("file", "index")}));
    out.push_back(std::move(window));
  }
  if (services != nullptr && services->cluster != nullptr && !services->cluster->group_members().empty()) {
    auto epoch = family("rokka_replication_group_epoch",
                        "Each replication group's store on this broker: the group epoch of the role it holds "
                        "(role=leader, follower or fenced; -1 before it held one).",
                        MetricType::Gauge);
    auto end = family("rokka_replication_group_log_end_bytes",
                      "Each replication group's store on this broker: its log end (a log position).",
                      MetricType::Gauge);
    auto in_sync = family("rokka_replication_in_sync",
                          "Each replication group this broker leads: the members of its in-sync set (SSS) the "
                          "leader counts, itself included.",
                          MetricType::Gauge);
    auto lag = family("rokka_replication_follower_lag_bytes",
                      "Each replication group this broker leads, per other member (follower): the leader's log end "
                      "minus what the follower acknowledged having written (the whole log for one not heard from "
                      "since this broker leads).",
                      MetricType::Gauge);
    for (const auto& m : services->cluster->group_members()) {
      epoch.metric.push_back(gauge(static_cast<double>(m->epoch()),
                                   {label("group", m->group()), label("role", group_role_name(m->role()))}));
      end.metric.push_back(gauge(static_cast<double>(m->store().log_end()), {label("group", m->group())}));
      if (const auto stats = m->leader_stats()) {
        in_sync.metric.push_back(gauge(static_cast<double>(stats->in_sync), {label("group", m->group())}));
        for (const auto& [follower, bytes] : stats->lag_bytes)
          lag.metric.push_back(gauge(static_cast<double>(bytes),
                                     {label("group", m->group()), label("follower", std::to_string(follower))}));
      }
    }
    out.push_back(std::move(epoch));
    out.push_back(std::move(end));
    out.push_back(std::move(in_sync));
    out.push_back(std::move(lag));
  }
  if (services != nullptr) {
    const std::vector<TopicPtr> topics = services->topics.all();
    std::unordered_map<std::string, const Topic*> by_name;
    double partitions = 0;
    auto per_topic = family("kafka_topic_partitions", "Partitions of each topic (up to rokka.metrics.max.topic.series topics).",
                            MetricType::Gauge);
    for (const auto& t : topics) {
      by_name.emplace(t->name, t.get());
      partitions += static_cast<double>(t->partitions.size());
      if (static_cast<int64_t>(per_topic.metric.size()) < max_topic_series_)
        per_topic.metric.push_back(gauge(static_cast<double>(t->partitions.size()), {label("topic", t->name)}));
    }
    auto tf = family("rokka_topics", "Topics.", MetricType::Gauge);
    tf.metric.push_back(gauge(static_cast<double>(topics.size())));
    out.push_back(std::move(tf));
    auto pf = family("rokka_partitions", "Partitions of all topics.", MetricType::Gauge);
    pf.metric.push_back(gauge(partitions));
    out.push_back(std::move(pf));
    out.push_back(std::move(per_topic));

    if (groups != nullptr) {
      // Groups, their members, and each committed offset against its partition's log end.
      coordinator::ListGroupsArgs list_args;
      const coordinator::ListGroupsResult listed = co_await groups->list_groups(list_args);
      std::map<std::string, double> by_state;
      for (const char* s : {"Empty", "PreparingRebalance", "CompletingRebalance", "Reconciling", "Stable", "Dead"})
        by_state[s] = 0;
      std::map<std::pair<std::string, std::string>, double> by_protocol;  // (group protocol, protocol type)
      by_protocol[{std::string(coordinator::kClassicGroupType), "consumer"}] = 0;
      by_protocol[{std::string(coordinator::kConsumerGroupType), "consumer"}] = 0;
      std::vector<std::string> ids;
      for (const auto& g : listed.groups) {
        by_state[g.state] += 1;
        by_protocol[{g.group_type, g.protocol_type}] += 1;
        ids.push_back(g.group_id);
      }
      auto gs = family("rokka_groups", "Consumer groups, by state.", MetricType::Gauge);
      for (const auto& [state, n] : by_state) gs.metric.push_back(gauge(n, {label("state", state)}));
      out.push_back(std::move(gs));
      auto gp = family("rokka_groups_by_protocol",
                       "Consumer groups, by group protocol (Kafka's GroupCount protocol: classic, or consumer "
                       "for KIP-848's) and the protocol type their members joined with (consumer, connect, ...; "
                       "empty for a group that only commits offsets).",
                       MetricType::Gauge);
      for (const auto& [key, n] : by_protocol)
        gp.metric.push_back(gauge(n, {label("protocol", key.first), label("protocol_type", key.second)}));
      out.push_back(std::move(gp));
      const uint64_t rebalances = co_await asio::co_spawn(
          groups->strand(),
          [groups]() -> asio::awaitable<uint64_t> { co_return groups->coordinator().completed_rebalances(); },
          asio::use_awaitable);
      auto rb = family("rokka_group_rebalances_total",
                       "Rebalances of classic groups completed since start: a group became Stable with a new "
                       "generation's assignment from its leader stored (Kafka's group-completed-rebalance-count). "
                       "A rebalance restarted or failed before that is not counted; rokka_groups shows groups "
                       "stuck in PreparingRebalance or CompletingRebalance.",
                       MetricType::Counter);
      rb.metric.push_back(counter(static_cast<double>(rebalances)));
      out.push_back(std::move(rb));

      auto members = family("kafka_consumergroup_members", "Members of each consumer group.", MetricType::Gauge);
      auto current = family("kafka_consumergroup_current_offset",
                            "Committed offset of each group and partition.", MetricType::Gauge);
      auto lag = family("kafka_consumergroup_lag",
                        "Log end offset minus the group's committed offset, per group and partition, at scrape time.",
                        MetricType::Gauge);
      if (!ids.empty()) {
        const std::vector<coordinator::DescribedGroup> described = co_await groups->describe_groups(ids);
        for (const auto& g : described)
          members.metric.push_back(gauge(static_cast<double>(g.members.size()), {label("consumergroup", g.group_id)}));
      }
      for (const auto& id : ids) {
        coordinator::OffsetFetchArgs args;
        args.group_id = id;
        const coordinator::OffsetFetchResult fetched = co_await groups->fetch_offsets(args);
        for (const auto& t : fetched.topics) {
          auto it = by_name.find(t.topic);
          for (const auto& p : t.partitions) {
            if (p.offset < 0 || p.error != coordinator::GroupError::kNone) continue;
            std::vector<ClientMetric::Label> labels = {label("consumergroup", id), label("partition", std::to_string(p.partition)),
                                                       label("topic", t.topic)};
            current.metric.push_back(gauge(static_cast<double>(p.offset), labels));
            if (it == by_name.end() || p.partition < 0 ||
                static_cast<size_t>(p.partition) >= it->second->partitions.size())
              continue;
            const PartitionLoc loc = it->second->partitions[static_cast<size_t>(p.partition)];
            const storage::Store* store = services->stores.at(loc.slot);
            if (store == nullptr) continue;
            auto offsets = store->offsets(loc.pid);
            if (!offsets.ok()) continue;
            lag.metric.push_back(gauge(static_cast<double>(std::max<int64_t>(offsets->next_offset - p.offset, 0)),
                                       std::move(labels)));
          }
        }
      }
      out.push_back(std::move(members));
      out.push_back(std::move(current));
      out.push_back(std::move(lag));
    }
  }
  if (coordinator::TransactionService* txns = pair && pair->serving() ? &pair->txns() : nullptr; txns != nullptr) {
    // Transactional ids by their transaction's state (nothing while the coordinator loads).
    const coordinator::TxnListResult listed = co_await txns->list({});
    if (listed.error == coordinator::TxnError::kNone) {
      std::map<std::string_view, double> by_state;
      for (uint8_t s = 0; s <= static_cast<uint8_t>(coordinator::TxnState::kPrepareEpochFence); ++s)
        by_state[coordinator::txn_state_name(static_cast<coordinator::TxnState>(s))] = 0;
      for (const auto& t : listed.txns) by_state[coordinator::txn_state_name(t.state)] += 1;
      auto f = family("rokka_transactions", "Transactional ids, by the state of their transaction (Kafka's names).",
                      MetricType::Gauge);
      for (const auto& [state, n] : by_state) f.metric.push_back(gauge(n, {label("state", std::string(state))}));
      out.push_back(std::move(f));
    }
  }
  co_return prometheus::TextSerializer().Serialize(out);
}
#pragma GCC diagnostic pop

}  // namespace rokka::broker
