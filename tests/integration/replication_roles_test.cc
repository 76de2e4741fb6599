// Replication groups' roles from the group state (issue 24, plan24 S5a; docs/cluster.md "Roles
// from the group state"): three build/rokka processes and a real etcd, rokka.replication.groups
// g1=1,2,3, each broker with its replication listener. The brokers publish their hints, the
// controller bootstraps the group, and the test moves the state by hand through etcd's gateway:
// the broker named (with its broker epoch) leads the group's store at that epoch and the others
// follow it, their group stores ending with the leader's log byte for byte (the epochs' records
// are what a group store holds before topics live there); a leader stopped past its lease fences
// its store when it runs again, and follows the leader the controller elected meanwhile. Skipped,
// with the reason, where etcd is not installed.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <optional>
#include <regex>
#include <string>

#include "tests/cluster/etcd_process.h"
#include "tests/integration/cluster_start.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr int kSessionMs = 2000;  // the brokers' lease (etcd's minimum TTL)
constexpr const char* kRoot = "/rokka";

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string unbase64(const std::string& in) {
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
std::string body_of(const std::string& answer) {
  const size_t at = answer.find("\r\n\r\n");
  return at == std::string::npos ? std::string() : answer.substr(at + 4);
}

// A group store's role as its broker's /metrics says it: (role, epoch), or ("", 0) without one.
std::pair<std::string, int> group_role(RokkaProcess& b) {
  static const std::regex kSeries(R"re(\nrokka_replication_group_epoch\{group="g1",role="(\w+)"\} (-?[0-9.e+]+))re");
  const std::string body = "\n" + testutil::http_get(b.http_port(), "/metrics").body;
  std::smatch m;
  if (!std::regex_search(body, m, kSeries)) return {"", 0};
  return {m[1], static_cast<int>(std::stod(m[2]))};
}

class ReplicationRolesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    for (int id = 1; id <= 3; ++id) repl_ports_[id] = testutil::free_port();
    testutil::start_cluster(dir_.path(), 3, [this](int id) { return overrides(id); }, etcd_, brokers_);
  }

  RokkaProcess::Overrides overrides(int id) const {
    return {{"broker.id", std::to_string(id)},
            {"rokka.cluster.etcd.endpoints", etcd_->client_url()},
            {"rokka.cluster.session.timeout.ms", std::to_string(kSessionMs)},
            {"rokka.replication.groups", "g1=1,2,3"},
            {"rokka.replication.listener", "127.0.0.1:" + std::to_string(repl_ports_.at(id))},
            {"rokka.replication.idle.timeout.ms", "1000"},
            // Small segments: the test reads the group stores' files whole.
            {"log.segment.bytes", std::to_string(1 << 20)},
            {"message.max.bytes", std::to_string(256 << 10)}};
  }

  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }
  std::filesystem::path group_dir(int id) const { return dir_.path() / ("b" + std::to_string(id)) / "groups" / "g1"; }

  // The value and create_revision of one key, through etcd's JSON gateway.
  std::optional<std::pair<std::string, int64_t>> get(const std::string& key) {
    const std::string answer =
        body_of(testutil::http_post(etcd_->client_port(), "/v3/kv/range", R"({"key":")" + base64(key) + R"("})"));
    rapidjson::Document d;
    d.Parse(answer.c_str());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("kvs") || !d["kvs"].IsArray() || d["kvs"].Empty())
      return std::nullopt;
    const auto& kv = d["kvs"][0];
    return std::pair{unbase64(kv["value"].GetString()),
                     static_cast<int64_t>(std::stoll(kv["create_revision"].GetString()))};
  }
  void put(const std::string& key, const std::string& value) {
    const std::string answer = testutil::http_post(etcd_->client_port(), "/v3/kv/put",
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

  // Every broker in `ids` holds g1's store in the role given at `epoch`, and their group stores'
  // segment and index files are byte for byte the leader's.
  void expect_roles(int leader, int epoch, std::vector<int> ids) {
    for (int id : ids) {
      const std::pair<std::string, int> want{id == leader ? "leader" : "follower", epoch};
      EXPECT_TRUE(testutil::eventually([&] { return group_role(broker(id)) == want; }, 30s))
          << "broker " << id << ": " << group_role(broker(id)).first << " " << group_role(broker(id)).second
          << "\n" << broker(id).log_tail();
    }
    for (const char* sub : {"commitlog", "index"}) {
      const auto expected = [&] { return storage::test::files_in(group_dir(leader) / sub); };
      for (int id : ids) {
        if (id == leader) continue;
        EXPECT_TRUE(testutil::eventually(
            [&] {
              const auto want = expected();
              if (want.empty() && std::string(sub) == "commitlog") return false;
              return storage::test::files_in(group_dir(id) / sub) == want;
            },
            30s))
            << "broker " << id << "'s " << sub << " differs from broker " << leader << "'s";
      }
    }
  }

  TempDir dir_;
  std::map<int, uint16_t> repl_ports_;
  std::unique_ptr<testutil::EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
};

TEST_F(ReplicationRolesTest, StoresTakeTheRolesTheGroupStateNames) {
  // Every registration publishes its replication endpoint and what its group store holds.
  for (int id = 1; id <= 3; ++id) {
    const auto reg = get(std::string(kRoot) + "/brokers/" + std::to_string(id));
    ASSERT_TRUE(reg) << id;
    rapidjson::Document d;
    d.Parse(reg->first.c_str());
    ASSERT_TRUE(d.IsObject() && d.HasMember("replication") && d.HasMember("groups")) << reg->first;
    EXPECT_EQ(std::string(d["replication"]["host"].GetString()), "127.0.0.1") << reg->first;
    EXPECT_EQ(d["replication"]["port"].GetInt(), repl_ports_[id]) << reg->first;
    ASSERT_TRUE(d["groups"].HasMember("g1")) << reg->first;
    EXPECT_EQ(d["groups"]["g1"]["last_epoch"].GetInt(), -1) << reg->first;  // a new store has led no epoch
  }

  // With the hints published the controller bootstraps the group: its leader leads, the others copy it.
  std::optional<std::pair<int, int>> first;
  ASSERT_TRUE(testutil::eventually([&] { return (first = state()).has_value(); }, 30s));
  expect_roles(first->first, first->second, {1, 2, 3});
  const int e = first->second;

  // The state moved by hand to another live broker (the controller elects only when the leader named is
  // gone): broker 2, then broker 3, each at a new epoch; the others follow, every store holds every epoch.
  const int second = first->first == 2 ? 1 : 2;
  ASSERT_NO_FATAL_FAILURE(name_leader(second, e + 1));
  expect_roles(second, e + 1, {1, 2, 3});
  ASSERT_NO_FATAL_FAILURE(name_leader(3, e + 2));
  expect_roles(3, e + 2, {1, 2, 3});

  // The leader stopped past its lease: back, it fences its store at once (its lease may have ended, and
  // another may lead); the controller has elected another member meanwhile, which the old leader, registered
  // again under a new broker epoch, follows to the same bytes.
  ::kill(broker(3).pid(), SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(kSessionMs + 2500));  // etcd expires the lease
  ::kill(broker(3).pid(), SIGCONT);
  const std::string fenced = "group g1: store fenced at epoch " + std::to_string(e + 2);
  EXPECT_TRUE(testutil::eventually([&] { return broker(3).log_tail(1 << 20).find(fenced) != std::string::npos; },
                                   30s))
      << broker(3).log_tail();
  std::optional<std::pair<int, int>> elected;
  ASSERT_TRUE(testutil::eventually(
      [&] {
        elected = state();
        return elected && elected->first != 3 && elected->second > e + 2;
      },
      30s));
  expect_roles(elected->first, elected->second, {1, 2, 3});
}

}  // namespace
}  // namespace rokka
