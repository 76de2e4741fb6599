// broker/metrics.h and broker/net/http_server.h without a broker: what /readyz says at each
// start-up step, that /metrics answers, the error tally of a response, and the
// rokka.http.listeners key.
#include "broker/metrics.h"

#include <gtest/gtest.h>

#include "broker/config/config.h"
#include "broker/net/http_server.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/temp_dir.h"

using rokka::protocol::ErrorCode;

namespace rokka::broker {
namespace {

TEST(MetricsTest, ReadyzSaysRecoveryUntilTheStoreIsOpenThenWaitsForTheListeners) {
  testutil::TempDir dir;
  Metrics metrics(1000, dir.path());
  HttpServer http({Listener{"http", "127.0.0.1", 0}}, metrics);
  ASSERT_TRUE(http.start().ok());
  const uint16_t port = http.ports().at(0);

  EXPECT_EQ(testutil::http_get(port, "/healthz").status, 200);
  auto r = testutil::http_get(port, "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "not ready: store recovery in progress\n");
  metrics.set_recovered(std::chrono::milliseconds(1500));
  r = testutil::http_get(port, "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "not ready: listeners not accepting yet\n");

  metrics.request(0, 9, std::chrono::microseconds(300), {{12, 2}});
  const std::vector<Metrics::ProducedTopic> produced{{"t", 1000, 10}, {"u", 1000, 10}};  // one Produce, two topics
  metrics.produced(produced, std::chrono::microseconds(200));
  const auto m = testutil::http_get(port, "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("kafka_network_requestmetrics_requests_total{request=\"Produce\",version=\"9\"} 1"),
            std::string::npos)
      << m.body;
  EXPECT_NE(m.body.find("kafka_network_requestmetrics_errors_total{error=\"OFFSET_METADATA_TOO_LARGE\",request=\"Produce\"} 2"),
            std::string::npos);
  EXPECT_NE(m.body.find("rokka_request_latency_seconds_bucket{request=\"Produce\",le=\"0.0005\"} 1"), std::string::npos);
  EXPECT_NE(m.body.find("rokka_request_latency_seconds_bucket{request=\"Produce\",le=\"0.00025\"} 0"), std::string::npos);
  EXPECT_NE(m.body.find("kafka_server_brokertopicmetrics_messagesin_total 20"), std::string::npos);
  EXPECT_NE(m.body.find("kafka_server_brokertopicmetrics_messagesin_total{topic=\"t\"} 10"), std::string::npos);
  EXPECT_NE(m.body.find("rokka_store_recovery_duration_seconds 1.5"), std::string::npos);
}

TEST(MetricsTest, TopicsPastTheCapCountOnlyInTheBrokerWideSeries) {
  testutil::TempDir dir;
  Metrics metrics(2, dir.path());
  HttpServer http({Listener{"http", "127.0.0.1", 0}}, metrics);
  ASSERT_TRUE(http.start().ok());
  for (const char* t : {"a", "b", "c", "a"}) {
    const std::vector<Metrics::ProducedTopic> produced{{t, 10, 1}};
    metrics.produced(produced, std::chrono::microseconds(1));
  }
  const auto m = testutil::http_get(http.ports().at(0), "/metrics");
  EXPECT_NE(m.body.find("kafka_server_brokertopicmetrics_messagesin_total{topic=\"a\"} 2"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("kafka_server_brokertopicmetrics_messagesin_total{topic=\"b\"} 1"), std::string::npos);
  EXPECT_EQ(m.body.find("{topic=\"c\"}"), std::string::npos);
  EXPECT_NE(m.body.find("kafka_server_brokertopicmetrics_messagesin_total 4"), std::string::npos);
}

TEST(MetricsTest, TallyCountsEveryNonZeroErrorCodeOfAResponse) {
  protocol::ProduceResponse resp;
  auto& t = resp.responses.emplace_back();
  t.partition_responses.emplace_back().error_code = ErrorCode::kUnknownTopicOrPartition;
  t.partition_responses.emplace_back().error_code = ErrorCode::kNone;
  t.partition_responses.emplace_back().error_code = ErrorCode::kUnknownTopicOrPartition;
  resp.responses.emplace_back().partition_responses.emplace_back().error_code = ErrorCode::kMessageTooLarge;
  ErrorTally tally;
  tally_errors(resp, tally);
  EXPECT_EQ(tally, (ErrorTally{{3, 2}, {10, 1}}));
}

TEST(MetricsTest, HttpListenersKeyTakesHostPortListsAndEmptyTurnsItOff) {
  auto c = load_config("", {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->http_listeners.size(), 1u);
  EXPECT_EQ(c->http_listeners[0].host, "127.0.0.1");
  EXPECT_EQ(c->http_listeners[0].port, 9644);
  c = load_config("", {{"rokka.http.listeners", ""}});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->http_listeners.empty());
  c = load_config("", {{"rokka.http.listeners", "0.0.0.0:9000,[::1]:9001"}});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->http_listeners.size(), 2u);
  EXPECT_EQ(c->http_listeners[1].host, "::1");
  for (const char* bad : {"9644", "http://127.0.0.1:9644", "127.0.0.1:99999"}) {
    auto b = load_config("", {{"rokka.http.listeners", bad}});
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("rokka.http.listeners"), std::string::npos) << b.status().message();
  }
}

}  // namespace
}  // namespace rokka::broker
