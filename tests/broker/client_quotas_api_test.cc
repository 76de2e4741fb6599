// AlterClientQuotas (49) and DescribeClientQuotas (48) on the wire against an in-process
// broker (what kafka-configs.sh --entity-type users/clients/ips sends), and the quotas
// enforced on real traffic: a librdkafka producer over producer_byte_rate is told to
// throttle and loses nothing, a consumer over consumer_byte_rate gets empty throttled
// fetches and then all its records, a connection over connection_creation_rate is
// closed unanswered.
#include <gtest/gtest.h>

#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "protocol/messages/client_quotas.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::AlterClientQuotasRequest;
using protocol::AlterClientQuotasResponse;
using protocol::DescribeClientQuotasRequest;
using protocol::DescribeClientQuotasResponse;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr protocol::ErrorCode kNone = protocol::ErrorCode::kNone;
constexpr protocol::ErrorCode kClusterAuthorizationFailed = protocol::ErrorCode::kClusterAuthorizationFailed;
constexpr protocol::ErrorCode kInvalidRequest = protocol::ErrorCode::kInvalidRequest;

using Entity = std::vector<std::pair<std::string, std::optional<std::string>>>;
using Ops = std::vector<std::tuple<std::string, double, bool>>;  // key, value, remove

// Keeps the strings the request's views point into.
struct AlterEntry {
  Entity entity;
  Ops ops;
};

std::vector<AlterClientQuotasResponse::Entry> alter(WireClient& c, const std::vector<AlterEntry>& entries,
                                                    bool validate_only = false, int16_t version = 1) {
  AlterClientQuotasRequest req;
  req.validate_only = validate_only;
  for (const AlterEntry& e : entries) {
    auto& out = req.entries.emplace_back();
    for (const auto& [type, name] : e.entity)
      out.entity.push_back({type, name ? std::optional<std::string_view>(*name) : std::nullopt});
    for (const auto& [key, value, remove] : e.ops) out.ops.push_back({key, value, remove});
  }
  auto resp = c.call<AlterClientQuotasResponse>(req, version);
  EXPECT_TRUE(resp);
  return resp ? resp->entries : std::vector<AlterClientQuotasResponse::Entry>{};
}

struct Component {
  std::string type;
  int8_t match_type;
  std::optional<std::string> match;
};

// Entity (sorted by type) -> key -> value, as described.
using Described = std::map<Entity, std::map<std::string, double>>;

std::optional<DescribeClientQuotasResponse> describe_raw(WireClient& c, const std::vector<Component>& components,
                                                         bool strict = false, int16_t version = 1) {
  DescribeClientQuotasRequest req;
  req.strict = strict;
  for (const Component& comp : components)
    req.components.push_back(
        {comp.type, comp.match_type, comp.match ? std::optional<std::string_view>(*comp.match) : std::nullopt});
  return c.call<DescribeClientQuotasResponse>(req, version);
}

Described describe(WireClient& c, const std::vector<Component>& components, bool strict = false) {
  auto resp = describe_raw(c, components, strict);
  EXPECT_TRUE(resp);
  Described out;
  if (!resp) return out;
  EXPECT_EQ(resp->error_code, kNone) << resp->error_message.value_or("");
  if (!resp->entries) return out;
  for (const auto& e : *resp->entries) {
    Entity entity;
    for (const auto& part : e.entity) entity.emplace_back(part.entity_type, part.entity_name);
    std::sort(entity.begin(), entity.end());
    for (const auto& v : e.values) out[entity][v.key] = v.value;
  }
  return out;
}

TEST(ClientQuotasApiTest, AlterThenDescribeWithKafkasFilters) {
  InProcessBroker b;
  WireClient c(b.port());
  auto results = alter(c, {{{{"user", "alice"}}, {{"producer_byte_rate", 1048576, false}}},
                           {{{"user", "alice"}, {"client-id", std::nullopt}}, {{"consumer_byte_rate", 2097152, false}}},
                           {{{"client-id", "reporting"}}, {{"request_percentage", 25.5, false}}},
                           {{{"ip", std::nullopt}}, {{"connection_creation_rate", 20, false}}}});
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) EXPECT_EQ(r.error_code, kNone) << r.error_message.value_or("");
  ASSERT_EQ(results[1].entity.size(), 2u);  // the entity is echoed back
  EXPECT_EQ(results[1].entity[1].entity_type, "client-id");
  EXPECT_FALSE(results[1].entity[1].entity_name);

  // No components: every entity.
  EXPECT_EQ(describe(c, {}).size(), 4u);
  // User alice, exactly: both of alice's entities, unless strict.
  const Entity alice = {{"user", "alice"}};
  const Entity alice_default_client = {{"client-id", std::nullopt}, {"user", "alice"}};
  EXPECT_EQ(describe(c, {{"user", 0, "alice"}}),
            (Described{{alice, {{"producer_byte_rate", 1048576}}},
                       {alice_default_client, {{"consumer_byte_rate", 2097152}}}}));
  EXPECT_EQ(describe(c, {{"user", 0, "alice"}}, /*strict=*/true), (Described{{alice, {{"producer_byte_rate", 1048576}}}}));
  // The default client id; any client id.
  EXPECT_EQ(describe(c, {{"client-id", 1, std::nullopt}}).size(), 1u);
  EXPECT_EQ(describe(c, {{"client-id", 2, std::nullopt}}),
            (Described{{alice_default_client, {{"consumer_byte_rate", 2097152}}},
                       {{{"client-id", "reporting"}}, {{"request_percentage", 25.5}}}}));
  EXPECT_EQ(describe(c, {{"ip", 1, std::nullopt}}),
            (Described{{{{"ip", std::nullopt}}, {{"connection_creation_rate", 20}}}}));

  // Removing the last key of an entity removes the entity.
  results = alter(c, {{{{"client-id", "reporting"}}, {{"request_percentage", 0, true}}}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error_code, kNone);
  EXPECT_TRUE(describe(c, {{"client-id", 0, "reporting"}}).empty());

  // v0 (not flexible) says the same.
  auto v0 = describe_raw(c, {{"user", 0, "alice"}}, true, 0);
  ASSERT_TRUE(v0);
  ASSERT_TRUE(v0->entries);
  EXPECT_EQ(v0->entries->size(), 1u);
}

TEST(ClientQuotasApiTest, InvalidEntriesGetInvalidRequestAndChangeNothing) {
  InProcessBroker b;
  WireClient c(b.port());
  auto results = alter(c, {{{{"user", "bob"}}, {{"producer_byte_rate", 10.5, false}}},
                           {{{"user", "bob"}, {"ip", "127.0.0.1"}}, {{"connection_creation_rate", 5, false}}},
                           {{{"client-id", "ok"}}, {{"consumer_byte_rate", 4096, false}}},
                           {{{"client-id", "ok"}}, {{"consumer_byte_rate", 8192, false}}},
                           {{{"user", "carol"}}, {{"no_such_quota", 1, false}}}});
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].error_code, kInvalidRequest);
  EXPECT_EQ(results[0].error_message, "producer_byte_rate cannot be a fractional value.");
  EXPECT_EQ(results[1].error_code, kInvalidRequest);
  EXPECT_EQ(results[2].error_code, kNone);  // the valid entry is applied
  EXPECT_EQ(results[3].error_code, kInvalidRequest);  // the same entity twice in one request
  EXPECT_EQ(results[3].error_message, "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=ok})");
  EXPECT_EQ(results[4].error_code, kInvalidRequest);
  EXPECT_EQ(results[4].error_message, "Invalid configuration key no_such_quota");
  EXPECT_EQ(describe(c, {}), (Described{{{{"client-id", "ok"}}, {{"consumer_byte_rate", 4096}}}}));

  // validate_only checks and changes nothing.
  results = alter(c, {{{{"client-id", "ok"}}, {{"consumer_byte_rate", 1, false}}}}, /*validate_only=*/true);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error_code, kNone);
  EXPECT_EQ(describe(c, {}), (Described{{{{"client-id", "ok"}}, {{"consumer_byte_rate", 4096}}}}));

  // A filter Kafka refuses is the top-level error, with no entries.
  auto bad = describe_raw(c, {{"user", 0, std::nullopt}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->error_code, kInvalidRequest);
  EXPECT_EQ(bad->error_message, "Request specified MATCH_TYPE_EXACT, but set match string to null.");
  EXPECT_FALSE(bad->entries);
}

TEST(ClientQuotasApiTest, QuotasSurviveARestart) {
  testutil::TempDir dir;
  const InProcessBroker::Overrides same_dir = {{"log.dirs", dir.path().string()}};
  {
    InProcessBroker b(same_dir);
    WireClient c(b.port());
    auto results = alter(c, {{{{"user", "alice"}}, {{"producer_byte_rate", 5000, false}, {"request_percentage", 40, false}}},
                             {{{"ip", "10.0.0.9"}}, {{"connection_creation_rate", 2, false}}}});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].error_code, kNone);
    EXPECT_EQ(results[1].error_code, kNone);
  }
  InProcessBroker restarted(same_dir);
  WireClient c(restarted.port());
  EXPECT_EQ(describe(c, {}),
            (Described{{{{"user", "alice"}}, {{"producer_byte_rate", 5000}, {"request_percentage", 40}}},
                       {{{"ip", "10.0.0.9"}}, {{"connection_creation_rate", 2}}}}));
}

TEST(ClientQuotasApiTest, WithoutClusterAclsBothApisAnswerClusterAuthorizationFailed) {
  InProcessBroker b({{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                     {"allow.everyone.if.no.acl.found", "false"}});
  WireClient c(b.port());
  auto results = alter(c, {{{{"user", "alice"}}, {{"producer_byte_rate", 5000, false}}}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error_code, kClusterAuthorizationFailed);
  auto d = describe_raw(c, {});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->error_code, kClusterAuthorizationFailed);
}

// librdkafka reports a response's throttle_time_ms as an EVENT_THROTTLE.
struct ThrottleEvents : RdKafka::EventCb {
  std::atomic<int> throttled{0};
  std::atomic<int> max_ms{0};
  void event_cb(RdKafka::Event& e) override {
    if (e.type() != RdKafka::Event::EVENT_THROTTLE || e.throttle_time() <= 0) return;
    ++throttled;
    if (e.throttle_time() > max_ms) max_ms = e.throttle_time();
  }
};

struct Produced {
  int delivered = 0;
  int throttled = 0;
};

Produced produce_with_client_id(const std::string& bootstrap, const std::string& client_id, int count) {
  ThrottleEvents events;
  struct Delivery : RdKafka::DeliveryReportCb {
    int ok = 0;
    void dr_cb(RdKafka::Message& m) override { ok += m.err() == RdKafka::ERR_NO_ERROR ? 1 : 0; }
  } delivery;
  auto conf = testutil::make_conf({{"bootstrap.servers", bootstrap},
                                   {"client.id", client_id},
                                   {"linger.ms", "0"},
                                   {"batch.num.messages", "1"},
                                   {"acks", "all"}});
  std::string err;
  conf->set("event_cb", &events, err);
  conf->set("dr_cb", &delivery, err);
  std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
  if (!p) throw std::runtime_error(err);
  const std::string value(4096, 'q');
  for (int i = 0; i < count; ++i) {
    const std::string key = "k" + std::to_string(i);
    while (p->produce("quota-topic", 0, RdKafka::Producer::RK_MSG_COPY, const_cast<char*>(value.data()), value.size(),
                      key.data(), key.size(), 0, nullptr) == RdKafka::ERR__QUEUE_FULL)
      p->poll(10);
    p->poll(0);
  }
  // Delivery may wait out the throttles; the deadline is generous.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (p->outq_len() > 0 && std::chrono::steady_clock::now() < deadline) p->poll(50);
  p->poll(0);
  return {delivery.ok, events.throttled.load()};
}

// A producer over its producer_byte_rate is told throttle_time_ms > 0 (librdkafka's
// throttle event) and backs off; every record is still kept. Another client id, with no
// quota, is never throttled.
TEST(ClientQuotasApiTest, ProducerOverItsByteRateIsThrottledAndLosesNothing) {
  InProcessBroker b(InProcessBroker::Overrides{{"quota.window.num", "2"}});
  WireClient c(b.port());
  auto results = alter(c, {{{{"client-id", "slow-producer"}}, {{"producer_byte_rate", 20000, false}}}});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].error_code, kNone);

  const Produced fast = produce_with_client_id(b.bootstrap(), "fast-producer", 30);
  EXPECT_EQ(fast.delivered, 30);
  EXPECT_EQ(fast.throttled, 0);
  // 30 records of 4 KiB is about 123,000 bytes: six times what 20,000 B/s allows in a
  // window of one second.
  const Produced slow = produce_with_client_id(b.bootstrap(), "slow-producer", 30);
  EXPECT_EQ(slow.delivered, 30);
  EXPECT_GT(slow.throttled, 0);
  const auto hw = testutil::high_watermarks(b.bootstrap(), "quota-topic", 1);
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_EQ(hw[0], 60);
}

int64_t fetch_all_records(WireClient& c, int64_t end, int32_t* throttled_responses, int64_t* largest_response) {
  int64_t offset = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (offset < end && std::chrono::steady_clock::now() < deadline) {
    protocol::FetchRequest req;
    req.max_wait_ms = 100;
    req.min_bytes = 1;
    req.max_bytes = 1 << 20;
    auto& t = req.topics.emplace_back();
    t.topic = "quota-topic";
    auto& p = t.partitions.emplace_back();
    p.partition = 0;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    auto r = c.call<protocol::FetchResponse>(req, 12);
    if (!r) return offset;
    if (r->throttle_time_ms > 0) {
      ++*throttled_responses;
      EXPECT_TRUE(r->responses.empty());  // a throttled fetch carries no partitions
      std::this_thread::sleep_for(std::chrono::milliseconds(r->throttle_time_ms));  // as a KIP-219 client does
      continue;
    }
    if (r->responses.empty()) continue;
    const auto& records = r->responses.at(0).partitions.at(0).records.data;
    if (!records) continue;
    *largest_response = std::max<int64_t>(*largest_response, static_cast<int64_t>(records->size()));
    // Walk the batches: base offset (8 bytes), batch length (4), ... last offset delta at 23.
    size_t pos = 0;
    const auto& bytes = *records;
    auto be = [&](size_t at, int n) {
      uint64_t v = 0;
      for (int i = 0; i < n; ++i) v = v << 8 | std::to_integer<uint8_t>(bytes[at + i]);
      return v;
    };
    while (pos + 61 <= bytes.size()) {
      const auto base = static_cast<int64_t>(be(pos, 8));
      const auto length = static_cast<int64_t>(be(pos + 8, 4));
      const auto last_delta = static_cast<int32_t>(be(pos + 23, 4));
      if (pos + 12 + static_cast<size_t>(length) > bytes.size()) break;  // a partial batch at the end
      EXPECT_EQ(base, offset) << "offsets are dense";
      offset = base + last_delta + 1;
      pos += 12 + static_cast<size_t>(length);
    }
  }
  return offset;
}

// A consumer over its consumer_byte_rate: each response is held to what the quota allows
// in its window; over the rate it gets an empty response with throttle_time_ms, and once
// it waits that out, the records follow, every one of them.
TEST(ClientQuotasApiTest, ConsumerOverItsByteRateGetsThrottledEmptyFetchesThenEverything) {
  InProcessBroker b(InProcessBroker::Overrides{{"quota.window.num", "2"}});
  const Produced produced = produce_with_client_id(b.bootstrap(), "writer", 40);
  ASSERT_EQ(produced.delivered, 40);
  WireClient c(b.port());  // client id "test"
  auto results = alter(c, {{{{"client-id", "test"}}, {{"consumer_byte_rate", 40000, false}}}});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].error_code, kNone);

  int32_t throttled = 0;
  int64_t largest = 0;
  EXPECT_EQ(fetch_all_records(c, 40, &throttled, &largest), 40);
  EXPECT_GT(throttled, 0);
  // 40,000 B/s over one window, plus the one batch Kafka always lets through.
  EXPECT_LE(largest, 40000 + 4096 + 200);
}

// Over its IP's connection_creation_rate a connection is accepted, never answered, and
// closed; connections within the rate are served.
TEST(ClientQuotasApiTest, ConnectionsOverTheIpRateAreClosedUnanswered) {
  InProcessBroker b(InProcessBroker::Overrides{{"quota.window.num", "2"}});
  {
    WireClient admin(b.port());
    auto results = alter(admin, {{{{"ip", "127.0.0.1"}}, {{"connection_creation_rate", 1, false}}}});
    ASSERT_EQ(results.size(), 1u);
    ASSERT_EQ(results[0].error_code, kNone);
  }
  int served = 0, closed = 0;
  for (int i = 0; i < 8; ++i) {
    WireClient c(b.port());
    protocol::MetadataRequest md;
    md.topics.emplace();
    try {
      c.send(md, 9, 7);
      auto r = c.receive<protocol::MetadataResponse>(9, 7);
      (r ? served : closed) += 1;
    } catch (const std::exception&) {
      ++closed;
    }
  }
  EXPECT_GT(served, 0);
  EXPECT_GT(closed, 0);
  EXPECT_EQ(served + closed, 8);
}

}  // namespace
}  // namespace rokka

namespace rokka {
namespace {

// A request from client id `client_id` (WireClient's own is "test").
template <class Resp, class Req>
std::optional<Resp> call_as(WireClient& c, std::string_view client_id, const Req& req, int16_t version, int32_t cid) {
  c.send_raw(WireClient::frame(Req::kApiKey, version, cid, protocol::encode_to_bytes(req, version), client_id));
  return c.receive<Resp>(version, cid);
}

// request_percentage counts handling time: a client with a tiny share is throttled from
// its first request, by at most one window, and the throttle is written into the
// response's throttle_time_ms; another client id is not.
TEST(ClientQuotasApiTest, RequestPercentageThrottlesAndSaysSoInTheResponse) {
  InProcessBroker b(InProcessBroker::Overrides{{"quota.window.num", "2"}});
  WireClient admin(b.port());
  auto results = alter(admin, {{{{"client-id", "busy"}}, {{"request_percentage", 0.000001, false}}}});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].error_code, kNone);

  protocol::MetadataRequest md;
  md.topics.emplace();
  WireClient busy(b.port());
  auto r = call_as<protocol::MetadataResponse>(busy, "busy", md, 9, 1);
  ASSERT_TRUE(r);
  EXPECT_GT(r->throttle_time_ms, 0);
  EXPECT_LE(r->throttle_time_ms, 1000);  // quota.window.size.seconds
  // The muted connection is served again after the throttle.
  r = call_as<protocol::MetadataResponse>(busy, "busy", md, 9, 2);
  ASSERT_TRUE(r);

  auto other = admin.call<protocol::MetadataResponse>(md, 9);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->throttle_time_ms, 0);
}

}  // namespace
}  // namespace rokka

namespace rokka {
namespace {

// Hostile bodies: counts far past what the frame holds, a negative string length, a body
// that ends inside a name. Each closes the connection; the broker goes on serving.
TEST(ClientQuotasHostileTest, HugeCountsAndTruncatedBodiesCloseTheConnection) {
  InProcessBroker b;
  struct Frame {
    protocol::ApiKey key;
    int16_t version;
    std::vector<std::byte> body;
  };
  const std::vector<Frame> frames = {
      // DescribeClientQuotas v0: 2^31-1 components with nothing behind them.
      {protocol::ApiKey::kDescribeClientQuotas, 0, testutil::bytes_of({0x7f, 0xff, 0xff, 0xff})},
      // DescribeClientQuotas v1 (flexible): a compact count of 1,000,001.
      {protocol::ApiKey::kDescribeClientQuotas, 1, testutil::bytes_of({0xc2, 0x84, 0x3d})},
      // AlterClientQuotas v0: one entry, one entity part whose type has length -2.
      {protocol::ApiKey::kAlterClientQuotas, 0, testutil::bytes_of({0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xfe})},
      // AlterClientQuotas v1: one entry, one entity part, the body ends inside its type.
      {protocol::ApiKey::kAlterClientQuotas, 1, testutil::bytes_of({0x02, 0x02, 0x05, 'u', 's'})},
  };
  for (const Frame& f : frames) {
    SCOPED_TRACE(static_cast<int>(f.key) * 10 + f.version);
    WireClient c(b.port());
    c.send_raw(WireClient::frame(f.key, f.version, 1, f.body));
    EXPECT_TRUE(c.closed_by_peer());
  }
  WireClient c(b.port());  // still serving
  EXPECT_TRUE(c.call<DescribeClientQuotasResponse>(DescribeClientQuotasRequest{}, 1));
}

// controller_mutation_rate (KIP-599): the client's partition mutations drain a token
// bucket of rate x 11 windows; at the strict versions a topic met by a bucket in debt
// gets THROTTLING_QUOTA_EXCEEDED and is left alone, older versions only throttle.
// Each request goes on a new connection: a throttled one is muted.
TEST(ClientQuotasApiTest, ControllerMutationRateRefusesTopicsOnceTheBucketIsInDebt) {
  InProcessBroker b;
  {
    WireClient admin(b.port());
    // 1 partition a second for client id "test" (WireClient's): a burst of 11.
    const auto set = alter(admin, {{{{"client-id", "test"}}, {{"controller_mutation_rate", 1, false}}}});
    ASSERT_EQ(set.size(), 1u);
    ASSERT_EQ(set[0].error_code, kNone);
  }
  const auto create = [&](const std::string& name, int32_t partitions, int16_t version) {
    protocol::CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}});
    WireClient c(b.port());
    auto resp = c.call<protocol::CreateTopicsResponse>(req, version);
    EXPECT_TRUE(resp && resp->topics.size() == 1);
    return resp ? *resp : protocol::CreateTopicsResponse{};
  };
  constexpr protocol::ErrorCode kThrottlingQuotaExceeded = protocol::ErrorCode::kThrottlingQuotaExceeded;

  // 10 of the 11: admitted, no debt.
  auto r = create("first", 10, 7);
  EXPECT_EQ(r.topics[0].error_code, kNone);
  EXPECT_EQ(r.throttle_time_ms, 0);
  // 60 more: admitted (the bucket was not in debt), leaving a debt of about 59 s.
  r = create("second", 60, 7);
  EXPECT_EQ(r.topics[0].error_code, kNone);
  EXPECT_GT(r.throttle_time_ms, 30000);
  EXPECT_LE(r.throttle_time_ms, 60000);
  // In debt: refused, not created, throttled.
  r = create("third", 1, 7);
  EXPECT_EQ(r.topics[0].error_code, kThrottlingQuotaExceeded);
  EXPECT_EQ(r.topics[0].error_message.value_or(""), "The throttling quota has been exceeded.");
  EXPECT_GT(r.throttle_time_ms, 30000);
  EXPECT_FALSE(b.broker().services().topics.find("third"));
  // Before v6 the same is admitted and only throttled.
  r = create("fourth", 1, 5);
  EXPECT_EQ(r.topics[0].error_code, kNone);
  EXPECT_GT(r.throttle_time_ms, 30000);
  EXPECT_TRUE(b.broker().services().topics.find("fourth"));

  // CreatePartitions v3 and DeleteTopics v6 are refused the same way, and change nothing.
  {
    protocol::CreatePartitionsRequest req;
    req.topics.push_back({"first", 12, std::nullopt});
    WireClient c(b.port());
    auto resp = c.call<protocol::CreatePartitionsResponse>(req, 3);
    ASSERT_TRUE(resp && resp->results.size() == 1);
    EXPECT_EQ(resp->results[0].error_code, kThrottlingQuotaExceeded);
    EXPECT_GT(resp->throttle_time_ms, 30000);
    EXPECT_EQ(b.broker().services().topics.find("first")->partitions.size(), 10u);
  }
  {
    protocol::DeleteTopicsRequest req;
    req.topics.push_back({std::string_view("first"), protocol::Uuid{}});
    WireClient c(b.port());
    auto resp = c.call<protocol::DeleteTopicsResponse>(req, 6);
    ASSERT_TRUE(resp && resp->responses.size() == 1);
    EXPECT_EQ(resp->responses[0].error_code, kThrottlingQuotaExceeded);
    EXPECT_TRUE(b.broker().services().topics.find("first"));
  }
  // Another client id has no quota: not charged, not throttled.
  {
    protocol::CreateTopicsRequest req;
    req.topics.push_back({"other-client", 5, 1, {}, {}});
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kCreateTopics, 7, 1, protocol::encode_to_bytes(req, 7), "other"));
    auto resp = c.receive<protocol::CreateTopicsResponse>(7, 1);
    ASSERT_TRUE(resp && resp->topics.size() == 1);
    EXPECT_EQ(resp->topics[0].error_code, kNone);
    EXPECT_EQ(resp->throttle_time_ms, 0);
  }
}

}  // namespace
}  // namespace rokka
