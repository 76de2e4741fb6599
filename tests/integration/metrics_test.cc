// build/rokka's HTTP endpoints (rokka.http.listeners): /healthz, /readyz (not ready while
// the store recovers a large log after kill -9, ready after), /metrics read by hand, by
// `promtool check metrics`, and scraped by a real Prometheus server whose PromQL answers
// the record count a librdkafka producer wrote and the lag a consumer group left.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>

#include <fcntl.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "protocol/messages/client_quotas.h"
#include "tests/testutil/group_consumer.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/spawn.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::eventually;
using testutil::GroupBroker;
using testutil::http_get;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr const char* kPrometheus = "/usr/bin/prometheus";
constexpr const char* kPromtool = "/usr/bin/promtool";

// The value of the sample `series` (name and labels exactly as exposed) in an exposition.
std::optional<double> sample(const std::string& text, const std::string& series) {
  const std::string head = "\n" + series + " ";
  const size_t at = ("\n" + text).find(head);
  if (at == std::string::npos) return std::nullopt;
  return std::stod(text.substr(at + head.size() - 1));
}

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Produces `count` records of `bytes` each to topic/partition; every one acknowledged.
void produce(const std::string& bootstrap, const std::string& topic, int32_t partition, int count, size_t bytes = 100) {
  testutil::TestProducer producer(bootstrap, {{"acks", "all"}, {"linger.ms", "5"}});
  const std::string value(bytes, 'v');
  for (int i = 0; i < count; ++i) ASSERT_EQ(producer.produce(topic, partition, std::nullopt, value), RdKafka::ERR_NO_ERROR);
  const auto& delivered = producer.flush();
  ASSERT_EQ(delivered.size(), static_cast<size_t>(count));
  for (const auto& d : delivered) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
}

TEST(MetricsEndpointTest, HealthzReadyzAndMetricsAnswerWithTheBrokersFigures) {
  GroupBroker broker(2);
  const uint16_t port = broker.process.http_port();
  ASSERT_NE(port, 0) << "no 'http serving' line in the log";

  const auto health = http_get(port, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
  testutil::HttpReply ready;
  EXPECT_TRUE(eventually([&] { return (ready = http_get(port, "/readyz")).status == 200; }))
      << ready.status << " " << ready.body;
  EXPECT_EQ(ready.body, "ready\n");

  produce(broker.bootstrap(), "m-t", 1, 10);
  // OffsetCommit with metadata over offset.metadata.max.bytes: OFFSET_METADATA_TOO_LARGE (12).
  EXPECT_EQ(testutil::commit_offsets(broker.bootstrap(), "m-g", "m-t", {{0, 1}}, std::string(4097, 'm')),
            RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE);

  const auto m = http_get(port, "/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_NE(m.headers.find("text/plain; version=0.0.4"), std::string::npos) << m.headers;
  EXPECT_EQ(sample(m.body, R"(kafka_server_brokertopicmetrics_messagesin_total{topic="m-t"})"), 10) << m.body;
  EXPECT_EQ(sample(m.body, "kafka_server_brokertopicmetrics_messagesin_total"), 10);
  EXPECT_GT(sample(m.body, R"(kafka_server_brokertopicmetrics_bytesin_total{topic="m-t"})").value_or(0), 10 * 100);
  EXPECT_EQ(sample(m.body, R"(kafka_network_requestmetrics_errors_total{error="OFFSET_METADATA_TOO_LARGE",request="OffsetCommit"})"),
            1);
  EXPECT_NE(m.body.find(R"(kafka_network_requestmetrics_requests_total{request="Produce",version=")"), std::string::npos);
  EXPECT_GE(sample(m.body, R"(rokka_request_latency_seconds_count{request="Produce"})").value_or(0), 1);
  // The request's way through the broker in three parts: queued, handled, sent.
  EXPECT_GE(sample(m.body, R"(rokka_request_queue_time_seconds_count{request="Produce"})").value_or(0), 1);
  EXPECT_GE(sample(m.body, R"(rokka_response_send_time_seconds_count{request="Produce"})").value_or(0), 1);
  EXPECT_GE(sample(m.body, R"(rokka_store_append_latency_seconds_count)").value_or(0), 1);
  EXPECT_EQ(sample(m.body, R"(kafka_topic_partitions{topic="m-t"})"), 2);
  EXPECT_GE(sample(m.body, "rokka_connections_accepted_total").value_or(0), 2);
  EXPECT_GE(sample(m.body, "rokka_commitlog_segments").value_or(0), 1);
  EXPECT_GE(sample(m.body, "rokka_index_files").value_or(0), 1);
  EXPECT_EQ(sample(m.body, "rokka_request_memory_used_bytes"), 0);  // nothing in flight between requests

  EXPECT_EQ(http_get(port, "/nothing-here").status, 404);
  EXPECT_EQ(testutil::http_raw(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n").status, 405);
  // Headers past the 8 KiB limit: the connection is closed without an answer, and the server goes on.
  EXPECT_EQ(testutil::http_raw(port, "GET /metrics HTTP/1.1\r\nX-Pad: " + std::string(9000, 'p') + "\r\n").status, 0);
  EXPECT_EQ(http_get(port, "/healthz").status, 200);
}

// rokka_transactions counts transactional ids by state: open while a transaction is,
// CompleteCommit once it committed.
TEST(MetricsEndpointTest, TransactionsAreCountedByState) {
  GroupBroker broker(1);
  const uint16_t port = broker.process.http_port();
  ASSERT_NE(port, 0);
  auto state_count = [&](const std::string& state) {
    return sample(http_get(port, "/metrics").body, "rokka_transactions{state=\"" + state + "\"}");
  };
  EXPECT_TRUE(eventually([&] { return state_count("Ongoing") == 0; })) << "no rokka_transactions series";
  testutil::TestProducer p(broker.bootstrap(), {{"transactional.id", "metrics-tx"}, {"linger.ms", "0"}});
  auto ok = [](RdKafka::Error* e) {
    std::unique_ptr<RdKafka::Error> owned(e);
    return owned == nullptr;
  };
  ASSERT_TRUE(ok(p.handle().init_transactions(30000)));
  EXPECT_EQ(state_count("Empty"), 1);
  ASSERT_TRUE(ok(p.handle().begin_transaction()));
  ASSERT_EQ(p.produce("m-tx", 0, std::nullopt, "in a transaction"), RdKafka::ERR_NO_ERROR);
  for (const auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  EXPECT_EQ(state_count("Ongoing"), 1);
  EXPECT_EQ(state_count("Empty"), 0);
  ASSERT_TRUE(ok(p.handle().commit_transaction(30000)));
  EXPECT_TRUE(eventually([&] { return state_count("CompleteCommit") == 1; }));
  EXPECT_EQ(state_count("Ongoing"), 0);
}

// A producer over its producer_byte_rate (set with AlterClientQuotas) shows in
// rokka_quota_throttled_total{quota="produce"} and the throttle time given.
TEST(MetricsEndpointTest, QuotaThrottlesAreCounted) {
  GroupBroker broker(1);
  const uint16_t port = broker.process.http_port();
  ASSERT_NE(port, 0);
  {
    testutil::WireClient c(broker.process.port());
    protocol::AlterClientQuotasRequest req;
    auto& e = req.entries.emplace_back();
    e.entity.push_back({"client-id", std::optional<std::string_view>("metered")});
    e.ops.push_back({"producer_byte_rate", 1000, false});
    auto resp = c.call<protocol::AlterClientQuotasResponse>(req, 1);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->entries.at(0).error_code, ErrorCode::kNone);
  }
  testutil::TestProducer p(broker.bootstrap(), {{"client.id", "metered"}, {"linger.ms", "0"}});
  const std::string value(20000, 'q');  // twice what 1,000 B/s allows over its ten windows
  ASSERT_EQ(p.produce("m-quota", 0, std::nullopt, value), RdKafka::ERR_NO_ERROR);
  for (const auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  const auto m = http_get(port, "/metrics");
  EXPECT_GE(sample(m.body, R"(rokka_quota_throttled_total{quota="produce"})").value_or(0), 1) << m.body;
  EXPECT_GT(sample(m.body, R"(rokka_quota_throttle_time_seconds_total{quota="produce"})").value_or(0), 0);
  EXPECT_EQ(sample(m.body, R"(rokka_quota_throttled_total{quota="fetch"})"), 0);
}

// The store's group commits: a librdkafka producer's N records all pass through them, so
// the records histogram sums to at least N (offset commits would add more), over at least
// one group; the page-cache window (the default keeps the newest 1 GiB) holds the log.
TEST(MetricsEndpointTest, GroupCommitHistogramsCountTheRecordsProducedAndTheWindowHoldsThem) {
  GroupBroker broker(1);
  const uint16_t port = broker.process.http_port();
  ASSERT_NE(port, 0);
  constexpr int kRecords = 300;
  produce(broker.bootstrap(), "gc-t", 0, kRecords, 200);
  const auto m = http_get(port, "/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_GE(sample(m.body, "rokka_store_group_commit_records_sum").value_or(0), kRecords) << m.body;
  EXPECT_GT(sample(m.body, "rokka_store_group_commit_records_count").value_or(0), 0);
  EXPECT_EQ(sample(m.body, R"(rokka_store_group_commit_records_bucket{le="+Inf"})"),
            sample(m.body, "rokka_store_group_commit_records_count"));
  EXPECT_GE(sample(m.body, "rokka_store_group_commit_bytes_sum").value_or(0), kRecords * 200);
  EXPECT_EQ(sample(m.body, "rokka_store_group_commit_bytes_count"),
            sample(m.body, "rokka_store_group_commit_records_count"));
  EXPECT_GE(sample(m.body, R"(rokka_store_page_cache_window_bytes{file="commitlog"})").value_or(0), kRecords * 200);
  EXPECT_GT(sample(m.body, R"(rokka_store_page_cache_window_bytes{file="index"})").value_or(0), 0);
  EXPECT_EQ(sample(m.body, "rokka_retention_deleted_segments_total"), 0);
}

// 4 MiB segments (the smallest that take librdkafka's default 1 MB batches under the
// default message.max.bytes) and a 1 s retention: once a few segments are full and old,
// retention deletes them and both counters move (the segment being written stays).
TEST(MetricsEndpointTest, RetentionDeletesMoveTheDeletedSegmentsCounter) {
  constexpr int64_t kSegment = 4 << 20;
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"log.segment.bytes", std::to_string(kSegment)},
                                     {"log.retention.ms", "1000"},
                                     {"log.retention.check.interval.ms", "100"}});
  broker.start();
  const uint16_t port = broker.http_port();
  ASSERT_NE(port, 0);
  produce(broker.bootstrap(), "ret-t", 0, 3000, 5000);  // ~15 MiB: four segments
  std::optional<double> segments, bytes;
  EXPECT_TRUE(eventually(
      [&] {
        const auto m = http_get(port, "/metrics");
        segments = sample(m.body, "rokka_retention_deleted_segments_total");
        bytes = sample(m.body, "rokka_retention_deleted_bytes_total");
        return segments.value_or(0) >= 2;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(200)))
      << "deleted segments: " << segments.value_or(-1) << "\n" << broker.log_tail();
  EXPECT_GE(bytes.value_or(0), segments.value_or(0) * kSegment);
  EXPECT_NE(broker.log_tail().find("retention deleted segment"), std::string::npos);
}

// A second consumer joining a group is a rebalance: rokka_group_rebalances_total moves
// once the group settles again. The group counts under protocol type "consumer"; a group
// that only committed offsets under the empty protocol type.
TEST(MetricsEndpointTest, ASecondConsumerJoiningMovesTheRebalancesCounter) {
  GroupBroker broker(2);
  const uint16_t port = broker.process.http_port();
  ASSERT_NE(port, 0);
  auto metric = [&](const std::string& series) { return sample(http_get(port, "/metrics").body, series); };
  produce(broker.bootstrap(), "rb-t", 0, 1);
  EXPECT_TRUE(eventually([&] { return metric("rokka_group_rebalances_total").has_value(); }));
  const double before = metric("rokka_group_rebalances_total").value_or(-1);
  EXPECT_EQ(metric(R"(rokka_groups_by_protocol{protocol="classic",protocol_type="consumer"})"), 0);

  testutil::GroupConsumer first(broker.bootstrap(), "rb-g", "rb-t");
  ASSERT_TRUE(testutil::poll_all_until({&first}, [&] { return testutil::settled({&first}, 2); })) << first.history();
  double after_first = -1;
  EXPECT_TRUE(eventually([&] { return (after_first = metric("rokka_group_rebalances_total").value_or(-1)) > before; }))
      << before << " -> " << after_first;

  testutil::GroupConsumer second(broker.bootstrap(), "rb-g", "rb-t");
  ASSERT_TRUE(testutil::poll_all_until({&first, &second}, [&] { return testutil::settled({&first, &second}, 2); }))
      << first.history() << second.history();
  double after_second = -1;
  EXPECT_TRUE(eventually([&] {
    return (after_second = metric("rokka_group_rebalances_total").value_or(-1)) > after_first;
  })) << after_first << " -> " << after_second;
  EXPECT_EQ(metric(R"(rokka_groups_by_protocol{protocol="classic",protocol_type="consumer"})"), 1);
  EXPECT_EQ(metric(R"(rokka_groups{state="Stable"})"), 1);

  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "rb-offsets-only", "rb-t", {{0, 1}}, ""),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(metric(R"(rokka_groups_by_protocol{protocol="classic",protocol_type=""})"), 1);
}

TEST(MetricsEndpointTest, EmptyHttpListenersTurnTheEndpointsOff) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"rokka.http.listeners", ""}});
  broker.start();
  EXPECT_EQ(broker.http_port(), 0);
  EXPECT_EQ(broker.log_tail().find("http serving"), std::string::npos);
}

TEST(MetricsEndpointTest, PromtoolAcceptsTheExposition) {
  if (!std::filesystem::exists(kPromtool)) GTEST_SKIP() << kPromtool << " absent (Debian package prometheus)";
  GroupBroker broker(2);
  produce(broker.bootstrap(), "lint-t", 0, 20);
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "lint-g", "lint-t", {{0, 5}}, ""), RD_KAFKA_RESP_ERR_NO_ERROR);
  const auto m = http_get(broker.process.http_port(), "/metrics");
  ASSERT_EQ(m.status, 200);
  ASSERT_NE(m.body.find("kafka_consumergroup_lag{"), std::string::npos) << m.body;
  const std::string path = (broker.dir / "metrics.txt").string();
  std::ofstream(path) << m.body;
  const std::string out = (broker.dir / "promtool.out").string();
  const int rc = std::system((std::string(kPromtool) + " check metrics < " + path + " > " + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::stringstream said;
  said << in.rdbuf();
  EXPECT_EQ(rc, 0) << said.str() << "\nexposition:\n" << m.body;
}

// A real Prometheus server, scraping the broker every second, on a free port.
class PrometheusServer {
 public:
  PrometheusServer(const std::filesystem::path& dir, uint16_t target_port) : port_(free_port()) {
    const auto config = dir / "prometheus.yml";
    std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                             "scrape_configs:\n  - job_name: rokka\n    static_configs:\n      - targets: ['127.0.0.1:"
                          << target_port << "']\n";
    std::filesystem::create_directories(dir / "tsdb");
    log_ = (dir / "prometheus.log").string();
    std::vector<std::string> args = {kPrometheus, "--config.file=" + config.string(),
                                     "--storage.tsdb.path=" + (dir / "tsdb").string(),
                                     "--web.listen-address=127.0.0.1:" + std::to_string(port_)};
    pid_ = testutil::spawn_logged(std::move(args), log_);
  }
  ~PrometheusServer() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    if (!eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, std::chrono::seconds(20))) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }

  // The single value of an instant PromQL query; nullopt while it has none.
  std::optional<double> query(const std::string& promql) const {
    std::string encoded;
    for (unsigned char c : promql) {
      if (std::isalnum(c) || c == '_' || c == '.' || c == '-') {
        encoded += static_cast<char>(c);
      } else {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%%%02X", c);
        encoded += hex;
      }
    }
    const auto reply = http_get(port_, "/api/v1/query?query=" + encoded);
    if (reply.status != 200) return std::nullopt;
    rapidjson::Document doc;
    doc.Parse(reply.body.c_str());
    if (doc.HasParseError() || !doc.HasMember("data")) return std::nullopt;
    const auto& result = doc["data"]["result"];
    if (!result.IsArray() || result.Size() != 1) return std::nullopt;
    return std::stod(result[0]["value"][1].GetString());
  }
  std::string log_tail() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string s = ss.str();
    return s.size() > 4000 ? s.substr(s.size() - 4000) : s;
  }

 private:
  uint16_t port_;
  pid_t pid_ = -1;
  std::string log_;
};

TEST(PrometheusTest, PromQLAnswersTheRecordsProducedAndTheLagAGroupLeft) {
  if (!std::filesystem::exists(kPrometheus)) GTEST_SKIP() << kPrometheus << " absent (Debian package prometheus)";
  GroupBroker broker(2);
  constexpr int kPerPartition = 150;  // N = 300 records over two partitions
  produce(broker.bootstrap(), "prom-t", 0, kPerPartition);
  produce(broker.bootstrap(), "prom-t", 1, kPerPartition);
  // The group committed K = 100 + 50 offsets: it leaves N - K = 150 behind.
  ASSERT_EQ(testutil::commit_offsets(broker.bootstrap(), "prom-g", "prom-t", {{0, 100}, {1, 50}}, ""),
            RD_KAFKA_RESP_ERR_NO_ERROR);

  PrometheusServer prometheus(broker.dir.path(), broker.process.http_port());
  std::optional<double> records, lag;
  const bool answered = eventually(
      [&] {
        records = prometheus.query(R"(kafka_server_brokertopicmetrics_messagesin_total{topic="prom-t"})");
        lag = prometheus.query(R"(sum(kafka_consumergroup_lag{consumergroup="prom-g",topic="prom-t"}))");
        return records == 2 * kPerPartition && lag == 150;
      },
      std::chrono::seconds(90), std::chrono::milliseconds(500));
  EXPECT_TRUE(answered) << "records in: " << records.value_or(-1) << ", lag: " << lag.value_or(-1)
                        << "\nprometheus log:\n" << prometheus.log_tail();
  EXPECT_EQ(prometheus.query(R"(kafka_consumergroup_lag{consumergroup="prom-g",topic="prom-t",partition="0"})"), 50);
  EXPECT_EQ(prometheus.query(R"(kafka_consumergroup_lag{consumergroup="prom-g",topic="prom-t",partition="1"})"), 100);
}

// kill -9 with a large log and no checkpoint since: the next start re-reads it all. The
// HTTP endpoints answer from the process's first moments, so /readyz is polled from the
// start: not ready (the reason: recovery) first, ready once the broker serves.
TEST(ReadyzTest, NotReadyDuringRecoveryOfALargeLogThenReady) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  const uint16_t http_port = free_port();
  RokkaProcess broker(dir / "data", {{"store.checkpoint.interval.ms", "3600000"},
                                     {"store.checkpoint.interval.bytes", std::to_string(int64_t{1} << 40)},
                                     {"rokka.http.listeners", "127.0.0.1:" + std::to_string(http_port)}});
  broker.start();
  {
    // Many small batches: recovery's cost is per entry (CRC, index unit). Delivery reports
    // are counted, not kept (a million of them).
    struct Counter : RdKafka::DeliveryReportCb {
      void dr_cb(RdKafka::Message& m) override { m.err() == RdKafka::ERR_NO_ERROR ? ++ok : ++failed; }
      int64_t ok = 0, failed = 0;
    } reports;
    auto conf = testutil::make_conf(
        {{"bootstrap.servers", broker.bootstrap()}, {"acks", "1"}, {"linger.ms", "0"}, {"batch.num.messages", "5"}});
    std::string err;
    conf->set("dr_cb", &reports, err);
    std::unique_ptr<RdKafka::Producer> producer(RdKafka::Producer::create(conf.get(), err));
    ASSERT_TRUE(producer) << err;
    std::string value(100, 'r');
    constexpr int kRecords = 1000000;
    for (int i = 0; i < kRecords; ++i) {
      while (producer->produce("big", 0, RdKafka::Producer::RK_MSG_COPY, value.data(), value.size(), nullptr, 0, 0,
                               nullptr) == RdKafka::ERR__QUEUE_FULL)
        producer->poll(10);
    }
    producer->flush(240000);
    ASSERT_EQ(reports.ok, kRecords) << reports.failed << " failed";
  }
  broker.kill9();

  struct Seen {
    int status;
    std::string body;
  };
  std::mutex mu;
  std::vector<Seen> seen;
  std::atomic<bool> polling{true};
  std::thread poller([&] {
    while (polling.load()) {
      auto r = http_get(http_port, "/readyz", 5);
      if (r.status != 0) {
        std::lock_guard lock(mu);
        seen.push_back({r.status, r.body});
        if (r.status == 200) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  broker.start(std::chrono::seconds(120));
  const bool ready = eventually([&] {
    std::lock_guard lock(mu);
    return !seen.empty() && seen.back().status == 200;
  });
  polling = false;
  poller.join();
  ASSERT_TRUE(ready) << broker.log_tail();
  size_t recovering = 0;
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    EXPECT_EQ(seen[i].status, 503) << "answer " << i << ": " << seen[i].body;
    if (seen[i].body == "not ready: store recovery in progress\n") ++recovering;
  }
  EXPECT_GT(recovering, 0u) << "no 'recovery in progress' answer among " << seen.size() << "; log:\n" << broker.log_tail();
  EXPECT_EQ(seen.back().body, "ready\n");
  const auto m = http_get(http_port, "/metrics");
  const double recovery_s = sample(m.body, "rokka_store_recovery_duration_seconds").value_or(0);
  EXPECT_GT(recovery_s, 0);
  std::printf("recovery took %.3f s; /readyz answered %zu times not ready (%zu of them: recovery in progress)\n",
              recovery_s, seen.size() - 1, recovering);
}

}  // namespace
}  // namespace rokka
