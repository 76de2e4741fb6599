// The group leader's SSS changes and a fenced leader's resume (issue 24, plan24 S8 and S10;
// docs/cluster.md "SSS changes", "Roles from the group state"): three build/rokka processes and a
// real etcd, rokka.replication.groups g1=1,2,3, replica.lag.time.max.ms 2000, a 6 s lease. The
// leader widens the SSS to every member as they catch up; a follower SIGSTOPped leaves it within
// the lag and a margin, and joins again after SIGCONT, each change a new sss_version of the same
// epoch, the leader's /metrics counting the members. A leader SIGSTOPped for less than its lease
// fences its store and, its lease renewed, leads the same epoch again after reading the state
// from etcd; nobody else was elected. Skipped, with the reason, where etcd is not installed.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "cluster/cluster_view.h"
#include "cluster/records.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/integration/cluster_start.h"
#include "tests/testutil/http_client.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using cluster::GroupState;
using testutil::RokkaProcess;

constexpr int kSessionMs = 6000;  // the lease: longer than the stops below that must not end it
constexpr auto kLag = 2000ms;     // replica.lag.time.max.ms
// A shrink comes within the lag plus a heartbeat, a txn and the view's watch; the machine is
// loaded, so the check allows generously more.
constexpr auto kShrinkBound = kLag + 6s;

// One series of `name` with labels `labels` (as /metrics prints them) on `b`, or nullopt.
std::optional<double> metric(RokkaProcess& b, const std::string& name, const std::string& labels) {
  const std::string body = "\n" + testutil::http_get(b.http_port(), "/metrics").body;
  const std::string line = "\n" + name + "{" + labels + "} ";
  const size_t at = body.find(line);
  if (at == std::string::npos) return std::nullopt;
  return std::stod(body.substr(at + line.size()));
}

// The lines of b's log about its lease and its group store's roles.
std::string fence_lines(RokkaProcess& b) {
  std::istringstream in(b.log_tail(1 << 20));
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.find("fenced") != std::string::npos || line.find("serving") != std::string::npos ||
        line.find("registered") != std::string::npos || line.find("leads epoch") != std::string::npos ||
        line.find("does not lead") != std::string::npos || line.find("keepalive") != std::string::npos)
      out += line + "\n";
  }
  return out;
}

class SssTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    for (int id = 1; id <= 3; ++id) replication_port_[id] = testutil::free_port();
    testutil::start_cluster(dir_.path(), 3, [this](int id) { return overrides(id); }, etcd_, brokers_);
    if (HasFatalFailure()) return;
    client_ = cluster::EtcdClient::create(io_.executor(), testutil::client_options(etcd_->client_url()));
  }
  void TearDown() override {
    for (auto& b : brokers_)
      if (b && b->pid() > 0) ::kill(b->pid(), SIGCONT);  // none left stopped
    if (client_) io_.call([this] { client_->shutdown(); });
    io_.stop();
  }

  RokkaProcess::Overrides overrides(int id) {
    return {{"broker.id", std::to_string(id)},
            {"rokka.cluster.etcd.endpoints", etcd_->client_url()},
            {"rokka.cluster.session.timeout.ms", std::to_string(kSessionMs)},
            {"rokka.replication.groups", "g1=1,2,3"},
            {"rokka.replication.listener", "127.0.0.1:" + std::to_string(replication_port_[id])},
            {"rokka.replication.idle.timeout.ms", "1000"},
            {"replica.lag.time.max.ms", std::to_string(kLag.count())}};
  }
  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }

  std::shared_ptr<const cluster::ClusterSnapshot> read() { return testutil::read_snapshot(io_, *client_, keys_); }
  std::optional<GroupState> state() {
    const auto s = read();
    const cluster::GroupInfo* g = s->group("g1");
    return g != nullptr ? g->state : std::nullopt;
  }
  static std::set<int32_t> members(const GroupState& s) { return {s.sss.begin(), s.sss.end()}; }

  // Waits (30 s) for a state with a leader whose SSS is `want`; nullopt if none came.
  std::optional<GroupState> sss_becomes(const std::set<int32_t>& want, std::chrono::milliseconds timeout = 30s) {
    std::optional<GroupState> seen;
    const bool ok = testutil::eventually(
        [&] {
          seen = state();
          return seen && seen->leader != cluster::kNoLeader && members(*seen) == want;
        },
        timeout, 20ms);
    return ok ? seen : std::nullopt;
  }
  int64_t broker_epoch(int32_t id) {
    const auto s = read();
    const cluster::BrokerInfo* b = s->broker(id);
    return b != nullptr ? b->epoch : 0;
  }

  testutil::TempDir dir_;
  std::map<int, uint16_t> replication_port_;
  std::unique_ptr<testutil::EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
  testutil::IoThread io_;
  std::shared_ptr<cluster::EtcdClient> client_;
  const cluster::Keys keys_{"/rokka"};
};

TEST_F(SssTest, ALaggingFollowerLeavesTheSssAndJoinsAgainOnceCaughtUp) {
  // The controller bootstraps the group with its leader alone in the SSS; the leader adds the
  // others as they catch up.
  std::optional<GroupState> st = sss_becomes({1, 2, 3});
  ASSERT_TRUE(st) << "state " << (state() ? cluster::encode_group_state(*state()) : std::string("none")) << "\n"
                  << broker(1).log_tail();
  const int32_t leader = st->leader;
  const int32_t epoch = st->epoch;
  EXPECT_GE(st->sss_version, 2);  // two members added, one write each
  ASSERT_TRUE(testutil::eventually(
      [&] { return metric(broker(leader), "rokka_replication_in_sync", R"(group="g1")") == 3.0; }, 30s))
      << "leader " << leader;
  for (int32_t f = 1; f <= 3; ++f) {
    if (f == leader) continue;
    const std::string labels = R"(group="g1",follower=")" + std::to_string(f) + R"(")";
    EXPECT_TRUE(metric(broker(leader), "rokka_replication_follower_lag_bytes", labels)) << labels;
    EXPECT_FALSE(metric(broker(f), "rokka_replication_in_sync", R"(group="g1")")) << "a follower reports the sss";
  }

  // A follower stops: within the lag (and a margin) the leader writes the SSS without it; same
  // leader and epoch, a newer sss_version; the leader counts two.
  const int32_t follower = leader == 3 ? 2 : 3;
  const int32_t version = st->sss_version;
  const auto stopped_at = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(broker(follower).pid(), SIGSTOP), 0);
  std::set<int32_t> rest = {1, 2, 3};
  rest.erase(follower);
  st = sss_becomes(rest, 60s);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - stopped_at);
  ASSERT_TRUE(st) << "the sss still names " << follower << "; the leader's log:\n" << broker(leader).log_tail();
  EXPECT_LE(took, kShrinkBound) << "the shrink took " << took.count() << " ms";
  // Its last catch-up came up to a heartbeat (and an ack) before the stop.
  EXPECT_GE(took, kLag - 500ms) << "the follower left before it lagged replica.lag.time.max.ms";
  RecordProperty("shrink_ms", std::to_string(took.count()));
  EXPECT_EQ(st->leader, leader);
  EXPECT_EQ(st->epoch, epoch);
  EXPECT_EQ(st->sss_version, version + 1);
  EXPECT_TRUE(testutil::eventually(
      [&] { return metric(broker(leader), "rokka_replication_in_sync", R"(group="g1")") == 2.0; }, 30s));

  // It runs again, catches up, and the leader adds it back.
  ASSERT_EQ(::kill(broker(follower).pid(), SIGCONT), 0);
  st = sss_becomes({1, 2, 3});
  ASSERT_TRUE(st) << "the sss did not take " << follower << " back; the leader's log:\n" << broker(leader).log_tail();
  EXPECT_EQ(st->leader, leader);
  EXPECT_EQ(st->epoch, epoch);
  EXPECT_EQ(st->sss_version, version + 2);
  EXPECT_TRUE(testutil::eventually(
      [&] { return metric(broker(leader), "rokka_replication_in_sync", R"(group="g1")") == 3.0; }, 30s));
}

TEST_F(SssTest, ALeaderStoppedShorterThanItsLeaseResumesItsEpochAfterRereadingTheState) {
  std::optional<GroupState> st = sss_becomes({1, 2, 3});
  ASSERT_TRUE(st) << broker(1).log_tail();
  const int32_t leader = st->leader;
  const int32_t epoch = st->epoch;
  const int64_t broker_epoch_before = broker_epoch(leader);
  const std::string fenced = "group g1: store fenced at epoch " + std::to_string(epoch);
  const std::string resumed = "group g1: leads epoch " + std::to_string(epoch) + " ";

  // The broker sends a keepalive every TTL/3 (2 s) and fences TTL - TTL/4 (4.5 s) after sending the
  // last one answered; the lease ends no sooner than TTL (6 s) after it. The stops are timed from
  // a keepalive: a first stop of 2.4 s (too short to fence) makes the broker send one the moment it
  // runs again (R); 1.8 s later, before the next, it stops for 3.6 s: fenced at R + 4.5 s, running
  // again at R + 5.4 s, its lease alive until R + 6 s at least. Again if it did not fence.
  bool was_fenced = false;
  for (int attempt = 0; attempt < 3 && !was_fenced; ++attempt) {
    ASSERT_EQ(::kill(broker(leader).pid(), SIGSTOP), 0);
    std::this_thread::sleep_for(2400ms);
    ASSERT_EQ(::kill(broker(leader).pid(), SIGCONT), 0);
    std::this_thread::sleep_for(1800ms);
    ASSERT_EQ(::kill(broker(leader).pid(), SIGSTOP), 0);
    std::this_thread::sleep_for(3600ms);
    ASSERT_EQ(::kill(broker(leader).pid(), SIGCONT), 0);
    was_fenced = testutil::eventually(
        [&] { return broker(leader).log_tail(1 << 20).find(fenced) != std::string::npos; }, 3s);
  }
  ASSERT_TRUE(was_fenced) << "the leader never fenced\n" << fence_lines(broker(leader));

  // Its lease lived (the same broker epoch): it re-reads the state, which still names it, and leads
  // epoch E again; the state is the same, nobody else was elected.
  EXPECT_TRUE(testutil::eventually(
      [&] {
        const std::string log = broker(leader).log_tail(1 << 20);
        const size_t f = log.rfind(fenced);
        return f != std::string::npos && log.find(resumed, f) != std::string::npos;
      },
      30s))
      << broker(leader).log_tail();
  EXPECT_EQ(broker_epoch(leader), broker_epoch_before) << "the lease ended: the stop was too long for this machine";
  st = state();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->leader, leader);
  EXPECT_EQ(st->epoch, epoch);
  const std::string log = broker(leader).log_tail(1 << 20);
  EXPECT_NE(log.find("the state re-read at revision", log.rfind(fenced)), std::string::npos) << log;
}

}  // namespace
}  // namespace rokka
