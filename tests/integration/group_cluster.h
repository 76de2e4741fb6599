// What the integration tests of replication groups share (issue 24): three build/rokka processes
// and a real etcd, rokka.replication.groups g1=1,2,3, each broker with its replication listener
// and small segments; etcd read and written through its JSON gateway to inspect and move the
// group's state by hand (as the controller would). Skipped, with the reason, where etcd is not
// installed.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/cluster/etcd_process.h"
#include "tests/integration/cluster_start.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka::testutil {

inline constexpr int kSessionMs = 2000;  // the brokers' lease (etcd's minimum TTL)
inline constexpr const char* kRoot = "/rokka";

inline std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

inline std::string unbase64(const std::string& in) {
  std::string out(3 * in.size() / 4 + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return {};
  size_t size = static_cast<size_t>(n);
  for (size_t i = in.size(); i > 0 && in[i - 1] == '='; --i) --size;  // the padding decodes as zeros
  out.resize(size);
  return out;
}

// The JSON body of an answer from etcd's gateway.
inline std::string body_of(const std::string& answer) {
  const size_t at = answer.find("\r\n\r\n");
  return at == std::string::npos ? std::string() : answer.substr(at + 4);
}

// A group store's role as its broker's /metrics says it: (role, epoch), or ("", 0) without one.
inline std::pair<std::string, int> group_role(RokkaProcess& b) {
  static const std::regex kSeries(R"re(\nrokka_replication_group_epoch\{group="g1",role="(\w+)"\} (-?[0-9.e+]+))re");
  const std::string body = "\n" + http_get(b.http_port(), "/metrics").body;
  std::smatch m;
  if (!std::regex_search(body, m, kSeries)) return {"", 0};
  return {m[1], static_cast<int>(std::stod(m[2]))};
}

class GroupClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!etcd_installed()) GTEST_SKIP() << kEtcdMissing;
    for (int id = 1; id <= 3; ++id) repl_ports_[id] = free_port();
    start_cluster(dir_.path(), 3, [this](int id) { return overrides(id); }, etcd_, brokers_);
  }

  // A test's own settings, added to every broker's (e.g. replica.lag.time.max.ms).
  virtual RokkaProcess::Overrides more_overrides() const { return {}; }

  RokkaProcess::Overrides overrides(int id) const {
    RokkaProcess::Overrides o = {{"broker.id", std::to_string(id)},
            {"rokka.cluster.etcd.endpoints", etcd_->client_url()},
            {"rokka.cluster.session.timeout.ms", std::to_string(kSessionMs)},
            {"rokka.replication.groups", "g1=1,2,3"},
            {"rokka.replication.listener", "127.0.0.1:" + std::to_string(repl_ports_.at(id))},
            {"rokka.replication.idle.timeout.ms", "1000"},
            // Small segments: the test reads the group stores' files whole.
            {"log.segment.bytes", std::to_string(1 << 20)},
            {"message.max.bytes", std::to_string(256 << 10)}};
    for (auto& kv : more_overrides()) o.push_back(std::move(kv));
    return o;
  }

  // Every thread of process `pid` is stopped (SIGSTOP takes effect asynchronously: wait for it).
  static bool stopped(pid_t pid) {
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    std::error_code ec;
    for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
      std::ifstream in(t.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const size_t paren = stat.rfind(')');
      if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'T') return false;
    }
    return !ec;
  }

  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }
  std::filesystem::path group_dir(int id) const { return dir_.path() / ("b" + std::to_string(id)) / "groups" / "g1"; }

  // CreateTopics (v5) of one topic through broker `id`: the topic's result, or nullopt without an
  // answer.
  std::optional<protocol::CreateTopicsResponse::CreatableTopicResult> create_topic(
      int id, protocol::CreateTopicsRequest::CreatableTopic topic) {
    WireClient c(broker(id).port());
    protocol::CreateTopicsRequest req;
    req.topics.push_back(std::move(topic));
    req.timeout_ms = 30000;
    auto resp = c.call<protocol::CreateTopicsResponse>(req, 5);
    if (!resp || resp->topics.size() != 1) return std::nullopt;
    return resp->topics[0];
  }
  // The same for `name` with `partitions` and replication factor `rf`: its error code.
  protocol::ErrorCode create_topic(int id, const std::string& name, int32_t partitions, int16_t rf) {
    auto r = create_topic(id, {.name = name, .num_partitions = partitions, .replication_factor = rf});
    return r ? r->error_code : protocol::ErrorCode::kUnknownServerError;
  }

  // Metadata (v12) of `topic` from broker `id`, or nullopt without an answer.
  std::optional<protocol::MetadataResponse> metadata(int id, const std::string& topic) {
    WireClient c(broker(id).port());
    protocol::MetadataRequest req;
    req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = topic}};
    return c.call<protocol::MetadataResponse>(req, 12);
  }

  // A Produce of one batch to partition `p` of `topic`.
  static protocol::ProduceRequest produce_request(const std::string& topic, int32_t p, const std::vector<std::byte>& batch,
                                                  int16_t acks, int32_t timeout_ms) {
    protocol::ProduceRequest req;
    req.acks = acks;
    req.timeout_ms = timeout_ms;
    auto& t = req.topic_data.emplace_back();
    t.name = topic;
    auto& d = t.partition_data.emplace_back();
    d.index = p;
    d.records.data = protocol::Bytes(batch);
    return req;
  }
  // That Produce (v9) through broker `id`: the partition's (error, base offset), or
  // (UNKNOWN_SERVER_ERROR, -1) without an answer.
  std::pair<protocol::ErrorCode, int64_t> produce_batch(int id, const std::string& topic, int32_t p,
                                                        const std::vector<std::byte>& batch, int16_t acks,
                                                        int32_t timeout_ms) {
    WireClient c(broker(id).port());
    auto resp = c.call<protocol::ProduceResponse>(produce_request(topic, p, batch, acks, timeout_ms), 9);
    if (!resp || resp->responses.empty() || resp->responses[0].partition_responses.empty())
      return {protocol::ErrorCode::kUnknownServerError, -1};
    const auto& r = resp->responses[0].partition_responses[0];
    return {r.error_code, r.base_offset};
  }
  // A Fetch of partition `p` of `topic` from `offset` that does not wait, up to 1 MiB.
  static protocol::FetchRequest fetch_request(const std::string& topic, int32_t p, int64_t offset,
                                              int32_t current_leader_epoch = -1) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 1;
    req.max_bytes = 1 << 20;
    auto& t = req.topics.emplace_back();
    t.topic = topic;
    auto& fp = t.partitions.emplace_back();
    fp.partition = p;
    fp.current_leader_epoch = current_leader_epoch;
    fp.fetch_offset = offset;
    fp.partition_max_bytes = 1 << 20;
    return req;
  }

  // The value and create_revision of one key, through etcd's JSON gateway.
  std::optional<std::pair<std::string, int64_t>> get(const std::string& key) {
    const std::string answer =
        body_of(http_post(etcd_->client_port(), "/v3/kv/range", R"({"key":")" + base64(key) + R"("})"));
    rapidjson::Document d;
    d.Parse(answer.c_str());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("kvs") || !d["kvs"].IsArray() || d["kvs"].Empty())
      return std::nullopt;
    const auto& kv = d["kvs"][0];
    return std::pair{unbase64(kv["value"].GetString()),
                     static_cast<int64_t>(std::stoll(kv["create_revision"].GetString()))};
  }
  void put(const std::string& key, const std::string& value) {
    const std::string answer = http_post(etcd_->client_port(), "/v3/kv/put",
                                                   R"({"key":")" + base64(key) + R"(","value":")" + base64(value) +
                                                       R"("})");
    ASSERT_NE(answer.find("\"revision\""), std::string::npos) << answer;
  }
  // The group's state in etcd now: (leader, epoch), or nullopt without one.
  std::optional<std::pair<int, int>> state() {
    auto kv = get(std::string(kRoot) + "/groups/g1/state");
    if (!kv) return std::nullopt;
    rapidjson::Document d;
    d.Parse(kv->first.c_str());
    if (!d.IsObject() || !d.HasMember("leader") || !d.HasMember("epoch")) return std::nullopt;
    return std::pair{d["leader"].GetInt(), d["epoch"].GetInt()};
  }
  // How many members the group's state names in sync now (0 without a state).
  size_t sss_size() {
    auto kv = get(std::string(kRoot) + "/groups/g1/state");
    if (!kv) return 0;
    rapidjson::Document d;
    d.Parse(kv->first.c_str());
    if (!d.IsObject() || !d.HasMember("sss") || !d["sss"].IsArray()) return 0;
    return d["sss"].Size();
  }
  // The broker epoch of broker `id`'s registration now (0 if not registered).
  int64_t broker_epoch(int id) {
    auto kv = get(std::string(kRoot) + "/brokers/" + std::to_string(id));
    return kv ? kv->second : 0;
  }
  // What the controller will write: `leader` (with its broker epoch now) leads g1 at `epoch`.
  void name_leader(int leader, int epoch) {
    const int64_t leader_epoch = broker_epoch(leader);
    ASSERT_GT(leader_epoch, 0);
    put(std::string(kRoot) + "/groups/g1/state", R"({"leader":)" + std::to_string(leader) +
                                                    R"(,"leader_broker_epoch":)" + std::to_string(leader_epoch) +
                                                    R"(,"epoch":)" + std::to_string(epoch) +
                                                    R"(,"sss":[1,2,3],"sss_version":0})");
  }

  // Waits until g1 has a state, every member holds its role and the leader's files, and the SSS
  // names all three members: the state's (leader, epoch) then, in `out`.
  void wait_settled(std::pair<int, int>& out) {
    std::optional<std::pair<int, int>> first;
    ASSERT_TRUE(eventually([&] { return (first = state()).has_value(); }, std::chrono::seconds(30)));
    ASSERT_NO_FATAL_FAILURE(expect_roles(first->first, first->second, {1, 2, 3}));
    ASSERT_TRUE(eventually([&] { return sss_size() == 3; }, std::chrono::seconds(60))) << broker(first->first).log_tail();
    out = *first;
  }

  // Every broker in `ids` holds g1's store in the role given at `epoch`, and their group stores'
  // segment and index files are byte for byte the leader's.
  void expect_roles(int leader, int epoch, std::vector<int> ids) {
    for (int id : ids) {
      const std::pair<std::string, int> want{id == leader ? "leader" : "follower", epoch};
      EXPECT_TRUE(eventually([&] { return group_role(broker(id)) == want; }, std::chrono::seconds(30)))
          << "broker " << id << ": " << group_role(broker(id)).first << " " << group_role(broker(id)).second
          << "\n" << broker(id).log_tail();
    }
    for (const char* sub : {"commitlog", "index"}) {
      for (int id : ids) {
        if (id == leader) continue;
        EXPECT_TRUE(eventually(
            [&] {
              // Not before the leader has its first segment: two empty directories are not a copy.
              return !storage::test::file_names_in(group_dir(leader) / "commitlog").empty() &&
                     storage::test::same_files(group_dir(leader) / sub, group_dir(id) / sub);
            },
            std::chrono::seconds(30), std::chrono::milliseconds(50)))
            << "broker " << id << "'s " << sub << " differs from broker " << leader << "'s";
      }
    }
  }

  TempDir dir_;
  std::map<int, uint16_t> repl_ports_;
  std::unique_ptr<EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
};

}  // namespace rokka::testutil
