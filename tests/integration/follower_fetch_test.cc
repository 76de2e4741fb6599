// Follower fetching (KIP-392; issue 24, plan24 S11; docs/cluster.md "Follower fetching"): three
// build/rokka processes, a real etcd, g1=1,2,3, broker.rack r1..r3 and replica.selector.class
// set to Kafka's rack-aware selector. A librdkafka consumer with client.rack naming a follower's
// rack reads every record produced to an RF-3 topic, byte for byte, and that follower served the
// reads (its bytes-out counter), not the leader (which only names the follower). Skipped, with the
// reason, where etcd is not installed.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/integration/group_cluster.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using protocol::ErrorCode;
using testutil::WireClient;

// The whole broker's Fetch record bytes sent (Kafka's BytesOut), from its /metrics.
double bytes_out(testutil::RokkaProcess& b) {
  static const std::regex kSeries(R"re(\nkafka_server_brokertopicmetrics_bytesout_total (-?[0-9.e+]+))re");
  const std::string body = "\n" + testutil::http_get(b.http_port(), "/metrics").body;
  std::smatch m;
  return std::regex_search(body, m, kSeries) ? std::stod(m[1]) : -1;
}

class FollowerFetchTest : public testutil::GroupClusterTest {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    for (int id = 1; id <= 3; ++id) repl_ports_[id] = testutil::free_port();
    testutil::start_cluster(
        dir_.path(), 3,
        [this](int id) {
          auto o = overrides(id);
          o.emplace_back("broker.rack", "r" + std::to_string(id));
          o.emplace_back("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector");
          return o;
        },
        etcd_, brokers_);
  }

  // The state's synchronous replica set in etcd now (empty without a state).
  std::vector<int> sss() {
    auto kv = get(std::string(testutil::kRoot) + "/groups/g1/state");
    std::vector<int> out;
    if (!kv) return out;
    rapidjson::Document d;
    d.Parse(kv->first.c_str());
    if (!d.IsObject() || !d.HasMember("sss") || !d["sss"].IsArray()) return out;
    for (const auto& v : d["sss"].GetArray()) out.push_back(v.GetInt());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(FollowerFetchTest, ConsumerInAFollowersRackReadsFromThatFollower) {
  std::optional<std::pair<int, int>> first;
  ASSERT_TRUE(testutil::eventually([&] { return (first = state()).has_value(); }, 30s));
  const auto [leader, epoch] = *first;
  const int follower = leader == 2 ? 3 : 2;
  const int other = 6 - leader - follower;
  ASSERT_NO_FATAL_FAILURE(expect_roles(leader, epoch, {1, 2, 3}));
  // The leader names only in-sync members: wait until the follower is one.
  ASSERT_TRUE(testutil::eventually([&] { return sss() == std::vector<int>{1, 2, 3}; }, 60s))
      << "SSS never widened to all three";

  ASSERT_EQ(create_topic(leader, "near", 1, 3), ErrorCode::kNone);
  std::vector<std::string> sent;
  {
    testutil::TestProducer p(broker(leader).bootstrap());
    for (int i = 0; i < 300; ++i) {
      sent.push_back("record-" + std::to_string(i) + std::string(static_cast<size_t>(i % 50), 'x'));
      ASSERT_EQ(p.produce("near", 0, std::nullopt, sent.back()), RdKafka::ERR_NO_ERROR);
    }
    for (const auto& d : p.flush(120s)) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
  }
  const double leader_before = bytes_out(broker(leader));

  const auto got = testutil::consume_assigned(broker(other).bootstrap(), "near", {0}, 0, sent.size(), 90s,
                                              {{"client.rack", "r" + std::to_string(follower)}});
  std::vector<std::string> values;
  for (const auto& c : got) values.push_back(c.value.value_or("<null>"));
  EXPECT_EQ(values, sent);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].offset, static_cast<int64_t>(i));

  // The follower in the client's rack sent the records; the leader only pointed there, and the
  // third broker (another rack) was never asked.
  EXPECT_GT(bytes_out(broker(follower)), 0) << broker(follower).log_tail();
  EXPECT_EQ(bytes_out(broker(leader)), leader_before);
  EXPECT_LE(bytes_out(broker(other)), 0);
}

}  // namespace
}  // namespace rokka
