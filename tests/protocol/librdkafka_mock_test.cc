// Our codec against librdkafka, an independent implementation, through its
// in-process mock broker (bound to 127.0.0.1):
// - record batches a librdkafka producer wrote, per codec, fetched back over TCP
//   with our FetchRequest/FetchResponse, then checked with RecordBatchView, the
//   CRC-32C with storage/crc32c.h, and every record against what was produced;
// - our requests as the mock parses them and its responses as we decode them, for
//   the APIs and versions it offers.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "protocol/header.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/record.h"
#include "protocol/record_batch.h"
#include "protocol/record_validator.h"
#include "storage/crc32c.h"

using rokka::protocol::ErrorCode;

namespace rokka::protocol {
namespace {

constexpr int kMessages = 300;
constexpr const char* kTopic = "librdkafka-batches";

struct Expected {
  std::optional<std::string> key, value;
  std::string header_value;
};

Expected message(int i) {
  Expected e;
  if (i % 7 != 3) e.key = "key-" + std::to_string(i);
  if (i % 11 != 5) e.value = std::string(static_cast<size_t>(i % 50) * 13, static_cast<char>('a' + i % 26)) + "#" + std::to_string(i);
  e.header_value = "h" + std::to_string(i * 3);
  return e;
}

// A blocking client socket with a receive timeout, so a broken exchange fails
// instead of hanging.
class Client {
 public:
  explicit Client(const std::string& host_port) {
    const auto colon = host_port.rfind(':');
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(host_port.substr(0, colon).c_str(), host_port.substr(colon + 1).c_str(), &hints, &res) != 0) return;
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd_, res->ai_addr, res->ai_addrlen) != 0) {
      close(fd_);
      fd_ = -1;
    }
    freeaddrinfo(res);
  }
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  bool connected() const { return fd_ >= 0; }

  // Sends header + body as one frame and returns the response frame (without its size).
  template <class Req>
  std::vector<std::byte> call(const Req& req, int16_t version, int32_t correlation_id) {
    Writer w;
    const auto size = w.reserve_int32();
    encode_request_header(w, {static_cast<int16_t>(Req::kApiKey), version, correlation_id, "rokka-test"});
    encode(req, w, version);
    w.patch_length(size);
    const auto frame = std::move(w).take();
    if (send(fd_, frame.data(), frame.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(frame.size())) return {};
    std::vector<std::byte> head(4);
    if (!read_exactly(head)) return {};
    Reader r(head);
    std::vector<std::byte> body(static_cast<size_t>(r.read_int32()));
    if (!read_exactly(body)) return {};
    return body;
  }

 private:
  bool read_exactly(std::vector<std::byte>& buf) {
    size_t got = 0;
    while (got < buf.size()) {
      const ssize_t n = recv(fd_, buf.data() + got, buf.size() - got, 0);
      if (n <= 0) return false;
      got += static_cast<size_t>(n);
    }
    return true;
  }
  int fd_ = -1;
};

template <class Resp>
bool decode_response(const std::vector<std::byte>& frame, int16_t version, int32_t correlation_id, Resp& out) {
  Reader r(frame);
  int32_t got = 0;
  if (!decode_response_header(r, Resp::kApiKey, version, got) || got != correlation_id) return false;
  return decode(out, Bytes(frame).subspan(r.position()), version);
}

rd_kafka_conf_t* conf_with(std::initializer_list<std::pair<const char*, std::string>> kv) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[256];
  for (const auto& [k, v] : kv) {
    if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) ADD_FAILURE() << k << ": " << err;
  }
  return conf;
}

using Handle = std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)>;

Handle new_producer(rd_kafka_conf_t* conf) {
  char err[256];
  return Handle(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err), rd_kafka_destroy);
}

void produce_all(const std::string& bootstrap, const char* codec, bool idempotent) {
  Handle p = new_producer(conf_with({{"bootstrap.servers", bootstrap},
                                     {"compression.codec", codec},
                                     {"linger.ms", "50"},
                                     {"enable.idempotence", idempotent ? "true" : "false"}}));
  ASSERT_TRUE(p);
  for (int i = 0; i < kMessages; ++i) {
    const Expected e = message(i);
    // A null pointer is a null key or value on the wire.
    const char* key = e.key ? e.key->data() : nullptr;
    const size_t key_size = e.key ? e.key->size() : 0;
    char* value = e.value ? const_cast<char*>(e.value->data()) : nullptr;
    const size_t value_size = e.value ? e.value->size() : 0;
    const rd_kafka_resp_err_t err = rd_kafka_producev(
        p.get(), RD_KAFKA_V_TOPIC(kTopic), RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_KEY(key, key_size),
        RD_KAFKA_V_VALUE(value, value_size),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADER("n", e.header_value.data(), e.header_value.size()),
        RD_KAFKA_V_END);
    ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  }
  ASSERT_EQ(rd_kafka_flush(p.get(), 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
}

struct Case {
  const char* codec;
  Compression expected;
  bool idempotent;
};

class LibrdkafkaBatchTest : public ::testing::TestWithParam<Case> {};

// librdkafka's mock broker with one topic of one partition, inside its own handle.
struct MockCluster {
  MockCluster() : host(new_producer(conf_with({{"log_level", "3"}}))), cluster(nullptr, rd_kafka_mock_cluster_destroy) {
    if (!host) return;
    cluster.reset(rd_kafka_mock_cluster_new(host.get(), 1));
    if (cluster && rd_kafka_mock_topic_create(cluster.get(), kTopic, 1, 1) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      bootstrap = rd_kafka_mock_cluster_bootstraps(cluster.get());
    }
  }
  std::string first_broker() const { return bootstrap.substr(0, bootstrap.find(',')); }

  Handle host;
  std::unique_ptr<rd_kafka_mock_cluster_t, void (*)(rd_kafka_mock_cluster_t*)> cluster;
  std::string bootstrap;  // empty if the cluster did not start
};

// The highest version of `key` the mock offers, capped at ours; -1 if none.
int16_t mock_max_version(Client& client, ApiKey key, int16_t ours) {
  ApiVersionsResponse versions;
  if (!decode_response(client.call(ApiVersionsRequest{}, 0, 1), 0, 1, versions)) return -1;
  for (const auto& k : versions.api_keys) {
    if (k.api_key == static_cast<int16_t>(key)) return std::min(k.max_version, ours);
  }
  return -1;
}

TEST_P(LibrdkafkaBatchTest, BatchesFromLibrdkafkaParseVerifyAndYieldEveryRecord) {
  const Case c = GetParam();
  MockCluster mock;
  ASSERT_FALSE(mock.bootstrap.empty()) << "librdkafka's mock cluster did not start";
  produce_all(mock.bootstrap, c.codec, c.idempotent);

  Client client(mock.first_broker());
  ASSERT_TRUE(client.connected()) << mock.bootstrap;
  const int16_t fetch_version = mock_max_version(client, ApiKey::kFetch, 12);
  ASSERT_GE(fetch_version, 4) << "the mock broker does not offer Fetch v4+";
  RecordProperty("fetch_version", fetch_version);

  // The mock may answer with only some of the batches, or with none at once (it does not
  // always wait max_wait_ms, and on a busy machine its thread lags): fetch from the next
  // offset until every record is back, within a generous deadline.
  int next = 0;
  int compressed_batches = 0;
  std::vector<std::byte> scratch;
  RecordValidator validator;
  RecordValidator small_chunks(7, 16);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int round = 0; next < kMessages && std::chrono::steady_clock::now() < deadline; ++round) {
    FetchRequest fetch;
    fetch.max_wait_ms = 100;
    fetch.min_bytes = 1;
    fetch.max_bytes = 64 << 20;
    fetch.topics.push_back({kTopic, {{0, -1, next, -1, -1, 64 << 20}}});
    FetchResponse resp;
    const int32_t correlation_id = 10 + round;
    const auto frame = client.call(fetch, fetch_version, correlation_id);  // resp's records point into it
    ASSERT_TRUE(decode_response(frame, fetch_version, correlation_id, resp))
        << "FetchResponse v" << fetch_version << " from librdkafka's mock did not decode";
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partitions.size(), 1u);
    const auto& part = resp.responses[0].partitions[0];
    ASSERT_EQ(part.error_code, ErrorCode::kNone);
    EXPECT_EQ(part.high_watermark, kMessages);
    if (part.records.is_null()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }

    std::vector<RecordBatchView> batches;
    ASSERT_EQ(split_batches(*part.records.data, batches), BatchCheck::kOk);
    for (const RecordBatchView& batch : batches) {
      // librdkafka sends a batch uncompressed when compression would not shrink it.
      EXPECT_TRUE(batch.compression() == c.expected || batch.compression() == Compression::kNone);
      compressed_batches += batch.compression() == c.expected;
      EXPECT_TRUE(storage::batch_crc_ok(batch.bytes())) << "CRC-32C differs from librdkafka's";
      EXPECT_EQ(batch.check_produced(), BatchCheck::kOk);
      // Every record librdkafka writes passes the produce validation, also walked in
      // 7-byte chunks (records spanning them, some longer than the 16-byte carry).
      EXPECT_EQ(validator.validate(batch, RecordPolicy{}), RecordCheck::kOk)
          << validator.describe(RecordCheck::kOk, batch.compression());
      EXPECT_EQ(small_chunks.validate(batch, RecordPolicy{}), RecordCheck::kOk);
      EXPECT_EQ(validator.max_timestamp(), batch.max_timestamp());
      EXPECT_EQ(batch.base_offset(), next);
      EXPECT_EQ(batch.has_producer_id(), c.idempotent);
      if (c.idempotent) {
        EXPECT_EQ(batch.base_sequence(), next);
      }
      const bool ok = for_each_record(batch, 64 << 20, scratch, [&](const Record& r) {
        const Expected e = message(next);
        EXPECT_EQ(batch.base_offset() + r.offset_delta, next);
        EXPECT_EQ(r.key.has_value(), e.key.has_value()) << next;
        if (r.key && e.key) {
          EXPECT_EQ(as_string_view(*r.key), *e.key);
        }
        EXPECT_EQ(r.value.has_value(), e.value.has_value()) << next;
        if (r.value && e.value) {
          EXPECT_EQ(as_string_view(*r.value), *e.value);
        }
        ASSERT_EQ(r.headers.size(), 1u);
        EXPECT_EQ(r.headers[0].key, "n");
        ASSERT_TRUE(r.headers[0].value.has_value());
        EXPECT_EQ(as_string_view(*r.headers[0].value), e.header_value);
        ++next;
      });
      ASSERT_TRUE(ok);
    }
  }
  EXPECT_EQ(next, kMessages);
  EXPECT_GT(compressed_batches, 0) << "no batch carried " << compression_name(c.expected);
}

INSTANTIATE_TEST_SUITE_P(Codecs, LibrdkafkaBatchTest,
                         ::testing::Values(Case{"none", Compression::kNone, false},
                                           Case{"gzip", Compression::kGzip, false},
                                           Case{"snappy", Compression::kSnappy, false},
                                           Case{"lz4", Compression::kLz4, false},
                                           Case{"zstd", Compression::kZstd, true}),
                         [](const auto& info) { return std::string(info.param.codec); });

// Our requests, as the mock broker parses them, and its responses, as we decode
// them, at every version both sides have (librdkafka 2.0's mock offers ApiVersions
// 0-2, Metadata 0-2, ListOffsets 0-5, FindCoordinator 0-2, InitProducerId 0-4 (2+
// flexible), OffsetCommit 0-7 and OffsetFetch 0-5; ListOffsets is asked at 1-3
// only, see below).
class LibrdkafkaMockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(mock_.bootstrap.empty()) << "librdkafka's mock cluster did not start";
    client_ = std::make_unique<Client>(mock_.first_broker());
    ASSERT_TRUE(client_->connected());
  }
  // Sends `req` at `version`; false if the response does not decode.
  template <class Req, class Resp>
  bool call(const Req& req, int16_t version, Resp& resp) {
    ++correlation_id_;
    return decode_response(client_->call(req, version, correlation_id_), version, correlation_id_, resp);
  }
  int16_t max_version(ApiKey key, int16_t ours) { return mock_max_version(*client_, key, ours); }

  MockCluster mock_;
  std::unique_ptr<Client> client_;
  int32_t correlation_id_ = 100;
};

TEST_F(LibrdkafkaMockTest, ApiVersionsAndMetadata) {
  // (The mock answers ApiVersions v3 with UNSUPPORTED_VERSION and a body of its own
  // shape, so only the versions it offers are asked.)
  const int16_t api_versions_max = max_version(ApiKey::kApiVersions, 3);
  ASSERT_GE(api_versions_max, 2);
  for (int16_t v = 0; v <= api_versions_max; ++v) {
    ApiVersionsResponse resp;
    ASSERT_TRUE(call(ApiVersionsRequest{}, v, resp)) << "v" << v;
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    EXPECT_GT(resp.api_keys.size(), 10u);
  }
  const int16_t max = max_version(ApiKey::kMetadata, 12);
  ASSERT_GE(max, 1);
  for (int16_t v = 0; v <= max; ++v) {
    SCOPED_TRACE("Metadata v" + std::to_string(v));
    MetadataRequest req;
    req.topics.emplace();
    req.topics->push_back({{}, kTopic});
    MetadataResponse resp;
    ASSERT_TRUE(call(req, v, resp));
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(mock_.first_broker(), resp.brokers[0].host + ":" + std::to_string(resp.brokers[0].port));
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::kNone);
    EXPECT_EQ(resp.topics[0].name, std::optional<std::string>(kTopic));
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_EQ(resp.topics[0].partitions[0].leader_id, resp.brokers[0].node_id);
  }
}

TEST_F(LibrdkafkaMockTest, ListOffsetsFindCoordinatorAndInitProducerId) {
  // The mock writes ListOffsets v4+'s int32 LeaderEpoch as 8 bytes (seen on the
  // wire: ffffffffffffffff), against Kafka's schema and our golden frames; so v1-3.
  const int16_t list_max = max_version(ApiKey::kListOffsets, 3);
  ASSERT_GE(list_max, 1);
  for (int16_t v = 1; v <= list_max; ++v) {
    SCOPED_TRACE("ListOffsets v" + std::to_string(v));
    ListOffsetsRequest req;
    req.replica_id = -1;
    req.topics.push_back({kTopic, {{0, -1, -1 /* latest */, 1}}});
    ListOffsetsResponse resp;
    ASSERT_TRUE(call(req, v, resp));
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].name, kTopic);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, ErrorCode::kNone);
    EXPECT_EQ(resp.topics[0].partitions[0].offset, 0);  // nothing produced
  }
  const int16_t find_max = max_version(ApiKey::kFindCoordinator, 4);
  ASSERT_GE(find_max, 0);
  for (int16_t v = 0; v <= find_max; ++v) {
    SCOPED_TRACE("FindCoordinator v" + std::to_string(v));
    FindCoordinatorRequest req;
    req.key = "some-group";
    FindCoordinatorResponse resp;
    ASSERT_TRUE(call(req, v, resp));
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    EXPECT_EQ(mock_.first_broker(), resp.host + ":" + std::to_string(resp.port));
  }
  const int16_t init_max = max_version(ApiKey::kInitProducerId, 4);
  ASSERT_GE(init_max, 0);
  for (int16_t v = 0; v <= init_max; ++v) {
    SCOPED_TRACE("InitProducerId v" + std::to_string(v));
    InitProducerIdRequest req;
    req.transaction_timeout_ms = 60000;
    InitProducerIdResponse resp;
    ASSERT_TRUE(call(req, v, resp));
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    EXPECT_GE(resp.producer_id, 0);
  }
}

TEST_F(LibrdkafkaMockTest, OffsetCommitThenOffsetFetchAtEveryVersion) {
  const int16_t commit_max = max_version(ApiKey::kOffsetCommit, 9);
  const int16_t fetch_max = max_version(ApiKey::kOffsetFetch, 8);
  ASSERT_GE(commit_max, 2);
  ASSERT_GE(fetch_max, 1);
  for (int16_t v = 0; v <= commit_max; ++v) {
    SCOPED_TRACE("OffsetCommit v" + std::to_string(v));
    OffsetCommitRequest commit;
    commit.group_id = "simple-group";
    commit.topics.push_back({kTopic, {{0, 1000 + v, -1, -1, "meta-" + std::to_string(v)}}});
    // string_view members must point at storage that outlives the call.
    const std::string metadata = "meta-" + std::to_string(v);
    commit.topics[0].partitions[0].committed_metadata = metadata;
    OffsetCommitResponse committed;
    ASSERT_TRUE(call(commit, v, committed));
    ASSERT_EQ(committed.topics.size(), 1u);
    ASSERT_EQ(committed.topics[0].partitions.size(), 1u);
    EXPECT_EQ(committed.topics[0].partitions[0].error_code, ErrorCode::kNone);

    const int16_t fv = std::min(v, fetch_max);
    OffsetFetchRequest fetch;
    fetch.group_id = "simple-group";
    fetch.topics.emplace();
    fetch.topics->push_back({kTopic, {0}});
    OffsetFetchResponse fetched;
    ASSERT_TRUE(call(fetch, fv, fetched));
    ASSERT_EQ(fetched.topics.size(), 1u);
    ASSERT_EQ(fetched.topics[0].partitions.size(), 1u);
    EXPECT_EQ(fetched.topics[0].partitions[0].committed_offset, 1000 + v);
    EXPECT_EQ(fetched.topics[0].partitions[0].metadata, std::optional<std::string>(metadata));
  }
}

}  // namespace
}  // namespace rokka::protocol
