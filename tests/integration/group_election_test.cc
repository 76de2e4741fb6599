// The controller's part of the replication groups (broker/link/group_controller.h,
// docs/cluster.md "Replication groups in etcd"): three build/rokka processes configured with
// rokka.replication.groups=g1=1,2,3 and a real etcd, whose group keys the test reads.
//
// The brokers publish their own hints (their new group stores, all alike), from which the
// controller bootstraps at once; the test then puts hints of its own in their registrations,
// removes that first state, and checks the bootstrap its hints decide. The leader then widens the
// SSS itself (its followers catch up at once: plan24 S8), one guarded write per member. Skipped,
// with the reason, where etcd is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "cluster/cluster_view.h"
#include "cluster/group_decisions.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/integration/cluster_start.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wait.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using cluster::GroupSpec;
using cluster::GroupState;
using testutil::RokkaProcess;

constexpr int kSessionMs = 3000;  // the brokers' lease, as the other cluster tests: short, yet no fence under load
// An election after a kill: the lease ends (at most one TTL after the last keepalive), the view
// sees it, the controller (perhaps a new one, campaigning first) writes. The plan's bound is
// 2 x lease + 2 s; the machine is loaded, so the check allows a few seconds more.
constexpr auto kElectionBound = std::chrono::milliseconds(2 * kSessionMs) + 5s;

class GroupElectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::etcd_installed()) GTEST_SKIP() << testutil::kEtcdMissing;
    for (int id = 1; id <= 3; ++id) replication_port_[id] = testutil::free_port();
    testutil::start_cluster(dir_.path(), 3, [this](int id) { return overrides(id); }, etcd_, brokers_);
    if (HasFatalFailure()) return;
    client_ = cluster::EtcdClient::create(io_.executor(), testutil::client_options(etcd_->client_url()));
  }
  void TearDown() override {
    if (client_) io_.call([this] { client_->shutdown(); });
    io_.stop();
  }

  RokkaProcess::Overrides overrides(int id) {
    return {{"broker.id", std::to_string(id)},
            {"rokka.cluster.etcd.endpoints", etcd_->client_url()},
            {"rokka.cluster.session.timeout.ms", std::to_string(kSessionMs)},
            {"rokka.replication.groups", "g1=1,2,3"},
            // Required of a group member; nothing listens on it yet.
            {"rokka.replication.listener", "127.0.0.1:" + std::to_string(replication_port_[id])}};
  }
  RokkaProcess& broker(int id) { return *brokers_.at(static_cast<size_t>(id - 1)); }

  std::shared_ptr<const cluster::ClusterSnapshot> read() { return testutil::read_snapshot(io_, *client_, keys_); }
  std::optional<GroupState> state() {
    const auto s = read();
    const cluster::GroupInfo* g = s->group("g1");
    return g != nullptr ? g->state : std::nullopt;
  }
  int32_t controller() {
    const auto s = read();
    return s->controller ? s->controller->broker_id : -1;
  }

  // Puts each listed broker's registration again with its hint for g1, under its own lease
  // (the broker epoch, its create_revision, stays): one txn, so the controller sees all at once.
  void publish_hints(const std::map<int32_t, cluster::GroupHint>& hints) {
    const auto s = read();
    cluster::Txn txn;
    for (const auto& [id, hint] : hints) {
      const cluster::BrokerInfo* b = s->broker(id);
      ASSERT_NE(b, nullptr) << "broker " << id << " is not registered";
      cluster::BrokerRegistration reg = b->registration;
      reg.groups["g1"] = hint;
      txn.compare.push_back(cluster::Compare::created_at(keys_.broker(id), b->epoch));
      txn.success.push_back(cluster::PutRequest{keys_.broker(id), cluster::encode_broker_registration(reg), b->lease});
    }
    auto r = io_.run(client_->txn(std::move(txn)));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_TRUE(r->succeeded);
  }

  // Waits until the leader of `epoch` has every live broker of `alive` in the SSS (its own writes).
  std::optional<GroupState> full_sss(int32_t epoch, const std::set<int32_t>& alive) {
    std::optional<GroupState> seen;
    testutil::eventually(
        [&] {
          seen = state();
          if (!seen || seen->epoch != epoch) return false;
          return std::set<int32_t>(seen->sss.begin(), seen->sss.end()) == alive;
        },
        30s, 20ms);
    if (!seen || seen->epoch != epoch || std::set<int32_t>(seen->sss.begin(), seen->sss.end()) != alive)
      return std::nullopt;
    return seen;
  }

  // Waits for a state with a leader at an epoch above `epoch`; how long it took from `since`.
  std::optional<GroupState> next_leader(int32_t epoch, std::chrono::steady_clock::time_point since,
                                        std::chrono::milliseconds& took) {
    std::optional<GroupState> seen;
    testutil::eventually(
        [&] {
          seen = state();
          return seen && seen->epoch > epoch && seen->leader != cluster::kNoLeader;
        },
        60s, 20ms);
    took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since);
    if (!seen || seen->epoch <= epoch || seen->leader == cluster::kNoLeader) return std::nullopt;
    return seen;
  }

  // Every value the state key held, oldest first (the key's versions, read at their revisions).
  std::vector<GroupState> state_history() {
    std::vector<GroupState> out;
    int64_t at = 0;  // 0: now
    for (;;) {
      auto r = io_.run(client_->range({.key = keys_.group_state("g1"), .revision = at}));
      if (!r.ok()) throw std::runtime_error(r.status().to_string());
      if (r->kvs.empty()) break;
      auto s = cluster::decode_group_state(r->kvs[0].value);
      if (!s.ok()) throw std::runtime_error(s.status().to_string());
      out.push_back(*s);
      if (r->kvs[0].version == 1) break;
      at = r->kvs[0].mod_revision - 1;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // The first broker of `sss` in spec order (1, 2, 3) that is in `alive`.
  static int32_t first_alive(const std::vector<int32_t>& sss, const std::set<int32_t>& alive) {
    for (int32_t id = 1; id <= 3; ++id)
      if (alive.count(id) && std::find(sss.begin(), sss.end(), id) != sss.end()) return id;
    return cluster::kNoLeader;
  }
  static std::vector<int32_t> without(std::vector<int32_t> v, int32_t gone) {
    std::erase(v, gone);
    return v;
  }

  testutil::TempDir dir_;
  std::map<int, uint16_t> replication_port_;
  std::unique_ptr<testutil::EtcdProcess> etcd_;
  std::vector<std::unique_ptr<RokkaProcess>> brokers_;
  testutil::IoThread io_;
  std::shared_ptr<cluster::EtcdClient> client_;
  const cluster::Keys keys_{"/rokka"};
};

// Start: the controller writes the spec from the configuration and, once members published
// their hints, the first state (the most advanced member leads, alone in the SSS); the leader
// adds the others as they catch up. Then the leader is killed twice: first one that is not the
// controller (the controller elects the first surviving SSS member in spec order), then the new
// leader (if it was the controller, the last broker becomes controller and elects itself). Each
// election takes a surviving SSS member at the next epoch, within the bound; over the state's
// whole history, epochs only grow, each has one leader, and each SSS change of an epoch is one
// member more or less with sss_version + 1.
TEST_F(GroupElectionTest, LeadersAreBootstrappedAndReplacedByTheControllerOfTheMoment) {
  ASSERT_TRUE(testutil::eventually(
      [&] {
        const auto s = read();
        const cluster::GroupInfo* g = s->group("g1");
        return g != nullptr && g->spec == GroupSpec{{1, 2, 3}};
      },
      30s))
      << broker(1).log_tail();

  const int32_t first_controller = controller();
  ASSERT_GE(first_controller, 1);
  // The favoured member is not the controller, so that its death is an election by a living
  // controller; its hint is the most advanced, so bootstrap must pick it.
  const int32_t favoured = first_controller == 1 ? 2 : 1;
  const bool brokers_publish = [&] {
    const auto snap = read();
    for (const auto& [id, b] : snap->brokers)
      if (b.registration.groups.count("g1")) return true;
    return false;
  }();
  if (!brokers_publish) {
    EXPECT_FALSE(state()) << "a state before any member published a hint";
  } else {
    // The brokers published their own hints (new group stores, all alike), and the controller
    // bootstraps from them at once: wait for that state, so that no bootstrap decided on those
    // hints is still in flight, and remove it below once the test's hints are in.
    ASSERT_TRUE(testutil::eventually([&] { return state().has_value(); }, 30s)) << broker(1).log_tail();
  }
  std::map<int32_t, cluster::GroupHint> hints = {{1, {-1, 0}}, {2, {-1, 0}}, {3, {-1, 0}}};
  hints[favoured] = {-1, 4096};
  publish_hints(hints);
  ASSERT_FALSE(HasFatalFailure());
  if (brokers_publish) {  // the controller bootstraps again, from the test's hints
    cluster::DeleteRequest del{.key = keys_.group_state("g1")};
    auto deleted = io_.run(client_->delete_range(std::move(del)));
    ASSERT_TRUE(deleted.ok()) << deleted.status().to_string();
  }

  std::optional<GroupState> st;
  ASSERT_TRUE(testutil::eventually([&] { return (st = state()).has_value() && st->leader == favoured; }, 30s))
      << (st ? "leader " + std::to_string(st->leader) : std::string("no state")) << "\n"
      << broker(first_controller).log_tail();
  EXPECT_EQ(st->leader_broker_epoch, read()->broker(favoured)->epoch);
  EXPECT_GE(st->epoch, 1);

  // The followers catch up and the leader adds them to the SSS, one write each.
  std::set<int32_t> alive = {1, 2, 3};
  st = full_sss(st->epoch, alive);
  ASSERT_TRUE(st) << "the leader did not widen the sss; its log:\n" << broker(favoured).log_tail();
  EXPECT_EQ(st->leader, favoured);
  EXPECT_EQ(st->sss_version, 2);

  // 1. kill -9 of the leader, which is not the controller: the controller elects, from the SSS.
  {
    const GroupState before = *st;
    alive.erase(before.leader);
    const int32_t expected = first_alive(before.sss, alive);
    const auto killed_at = std::chrono::steady_clock::now();
    broker(before.leader).kill9();
    std::chrono::milliseconds took{};
    st = next_leader(before.epoch, killed_at, took);
    ASSERT_TRUE(st) << "no new leader; controller's log:\n" << broker(first_controller).log_tail();
    EXPECT_EQ(st->leader, expected);
    EXPECT_EQ(st->epoch, before.epoch + 1);
    EXPECT_EQ(st->sss, without(before.sss, before.leader));
    EXPECT_EQ(st->leader_broker_epoch, read()->broker(expected)->epoch);
    EXPECT_LE(took, kElectionBound) << "the election took " << took.count() << " ms";
    RecordProperty("leader_killed_ms", std::to_string(took.count()));
  }

  // 2. kill -9 of the new leader: the controller (the last broker, if the leader was the
  //    controller) elects the survivor.
  {
    const GroupState before = *st;
    alive.erase(before.leader);
    ASSERT_EQ(alive.size(), 1u);
    const int32_t survivor = *alive.begin();
    ASSERT_EQ(before.sss.size(), 2u);
    const auto killed_at = std::chrono::steady_clock::now();
    broker(before.leader).kill9();
    std::chrono::milliseconds took{};
    st = next_leader(before.epoch, killed_at, took);
    ASSERT_TRUE(st) << "no new leader; the survivor's log:\n" << broker(survivor).log_tail();
    EXPECT_EQ(controller(), survivor);
    EXPECT_EQ(st->leader, survivor);
    EXPECT_EQ(st->epoch, before.epoch + 1);
    EXPECT_EQ(st->sss, std::vector<int32_t>{survivor});
    EXPECT_EQ(st->leader_broker_epoch, read()->broker(survivor)->epoch);
    EXPECT_LE(took, kElectionBound) << "the election took " << took.count() << " ms";
    RecordProperty("controller_killed_ms", std::to_string(took.count()));
  }

  // The whole history: the bootstrap (the favoured member alone), the leader's SSS changes, two
  // elections; epochs never go back, an epoch has one leader, a new leader always comes with a
  // new epoch, and within an epoch the SSS changes one member at a time.
  const std::vector<GroupState> history = state_history();
  ASSERT_GE(history.size(), 5u);
  EXPECT_EQ(history.front().leader, favoured);
  EXPECT_EQ(history.front().sss, std::vector<int32_t>{favoured});
  std::map<int32_t, int32_t> leader_of_epoch;
  for (size_t i = 0; i < history.size(); ++i) {
    const GroupState& s = history[i];
    const auto it = leader_of_epoch.emplace(s.epoch, s.leader).first;
    EXPECT_EQ(it->second, s.leader) << "epoch " << s.epoch << " had two leaders";
    if (i == 0) continue;
    const GroupState& prev = history[i - 1];
    EXPECT_GE(s.epoch, prev.epoch);
    if (s.leader != prev.leader) {
      EXPECT_GT(s.epoch, prev.epoch) << "a new leader at the same epoch";
    }
    if (s.epoch == prev.epoch) {
      EXPECT_EQ(s.sss_version, prev.sss_version + 1) << "epoch " << s.epoch;
      const auto bigger = std::max(s.sss.size(), prev.sss.size());
      const auto smaller = std::min(s.sss.size(), prev.sss.size());
      EXPECT_EQ(bigger, smaller + 1) << "epoch " << s.epoch;
    }
  }
  EXPECT_EQ(read()->epoch_counter.value_or(-1), history.back().epoch);
}

}  // namespace
}  // namespace rokka
