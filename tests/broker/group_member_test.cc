// GroupMember (broker/link/group_member.h) in one process: three real Stores in temp dirs, three
// Memberships and a ClusterView on a real etcd, one member per store, the group's state written by
// the test as the controller will write it. The broker named leader (with its broker epoch) leads
// its store at the state's epoch and takes writes; the others follow it and end byte for byte
// identical (segments, index files, meta keys, every partition's batches) after a random workload
// on the leader; a moved state moves the roles (the old leader's store refuses writes); a broker
// whose keepalives stop fences its store before its lease ends, and registered again under a new
// broker epoch does not lead as the one the state named: it follows the next leader. Skipped, with
// the reason, where etcd is not installed.
#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>
#include <functional>
#include <utility>
#include <future>

#include "broker/link/group_member.h"
#include "broker/records/confirmed_meta.h"
#include "cluster/replication_server.h"
#include "cluster/cluster_view.h"
#include "cluster/membership.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::broker {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using storage::PartitionId;
using storage::Role;
using storage::StatusCode;
using testutil::wait_until;

constexpr const char* kGroup = "g1";

class GroupMemberTest : public testutil::EtcdTest {
 protected:
  struct Node {
    int32_t id = 0;
    testutil::TempDir dir;
    uint16_t port = 0;
    std::unique_ptr<storage::Store> store;
    std::shared_ptr<cluster::Membership> membership;
    std::shared_ptr<GroupMember> member;
    // io_ thread: while held, the view's snapshots are kept from the member (its view lags etcd).
    bool held = false;
    std::shared_ptr<const cluster::ClusterSnapshot> held_snapshot;
  };

  void SetUp() override {
    EtcdTest::SetUp();
    if (IsSkipped()) return;
    for (int32_t id = 1; id <= 3; ++id) {
      auto n = std::make_unique<Node>();
      n->id = id;
      n->port = testutil::free_port();
      auto s = storage::Store::open(storage::test::small_options(n->dir.path()));
      ASSERT_TRUE(s.ok()) << s.status().to_string();
      n->store = std::move(*s);
      ASSERT_TRUE(storage::test::set_role(*n->store, Role::kFenced, 0).ok());  // as Broker::open leaves it
      nodes_.push_back(std::move(n));
    }
    io_.call([this] {
      view_ = cluster::ClusterView::create(client_, keys_);
      for (auto& n : nodes_) {
        cluster::MembershipOptions o;
        o.broker_id = n->id;
        o.replication = cluster::ReplicationEndpoint{"127.0.0.1", n->port};
        o.lease_ttl = lease_ttl_;
        o.fence_margin = fence_margin_;
        o.keepalive_interval = keepalive_interval_;
        n->membership = cluster::Membership::create(client_, keys_, o);
        GroupMemberOptions m;
        m.cluster_id = "cluster-A";
        m.group = kGroup;
        m.self = n->id;
        m.listen_at = asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), n->port);
        const storage::StoreOptions so = storage::test::small_options(n->dir.path());
        m.segment_bytes = so.segment_bytes;
        m.max_append_bytes = so.max_append_bytes;
        m.heartbeat = 50ms;
        m.idle_timeout = 1000ms;
        n->member =
            GroupMember::create(io_.executor(), stream_.executor(), *n->store, n->membership, client_, keys_, m);
        n->membership->subscribe([member = n->member](const cluster::MembershipEvent& e) { member->on_membership(e); });
        n->member->start();
        n->membership->start();
      }
      view_->subscribe([this](const cluster::ClusterView::SnapshotPtr& snap) {
        for (auto& n : nodes_) {
          if (n->held) {
            n->held_snapshot = snap;
          } else {
            n->member->on_snapshot(snap);
          }
        }
      });
      view_->start();
    });
    for (auto& n : nodes_) ASSERT_TRUE(wait_until([&] { return n->membership->epoch() > 0; }, 30s)) << n->id;
  }

  void before_stop() override {
    io_.run([this]() -> asio::awaitable<void> {
      for (auto& n : nodes_)
        if (n->member) co_await n->member->stop();
      for (auto& n : nodes_)
        if (n->membership) co_await n->membership->stop(true);
      if (view_) view_->stop();
    }());
    stream_.stop();
    for (auto& n : nodes_) {
      if (n->store) { EXPECT_TRUE(n->store->close().ok()); }
    }
  }

  Node& node(int id) { return *nodes_.at(static_cast<size_t>(id - 1)); }

  // What the controller will write: `leader`, with its broker epoch now, leads at `epoch`.
  void name_leader(int leader, int32_t epoch) {
    const cluster::GroupState state{leader, node(leader).membership->epoch(), epoch, {1, 2, 3}, 0};
    cluster::PutRequest req{keys_.group_state(kGroup), cluster::encode_group_state(state)};
    auto put = io_.run(client_->put(std::move(req)));
    ASSERT_TRUE(put.ok()) << put.status().to_string();
  }

  void expect_roles(int leader, int32_t epoch) {
    for (auto& n : nodes_) {
      const GroupRole want = n->id == leader ? GroupRole::kLeader : GroupRole::kFollower;
      ASSERT_TRUE(wait_until([&] { return n->member->role() == want && n->member->epoch() == epoch; }, 30s))
          << "broker " << n->id << ": " << group_role_name(n->member->role()) << " " << n->member->epoch();
    }
    // Published once its replication server listens, after the store leads.
    EXPECT_TRUE(wait_until([&] { return node(leader).member->leading_epoch() == epoch; }, 30s));
    for (auto& n : nodes_) {
      if (n->id != leader) { EXPECT_EQ(n->member->leading_epoch(), -1); }
    }
  }

  // Every follower holds the leader's log: the same segment and index files byte for byte, meta
  // keys and epochs, and every partition's batches read back alike up to the high watermark,
  // which C brought to the end on every member.
  void expect_identical(int leader, PartitionId partitions) {
    storage::Store& l = *node(leader).store;
    const int64_t end = l.log_end();
    for (auto& n : nodes_) {
      if (n->id == leader) continue;
      storage::Store& f = *n->store;
      ASSERT_TRUE(wait_until([&] { return f.log_end() == end; }, 60s))
          << "broker " << n->id << ": " << f.log_end() << " of " << end;
      for (const char* sub : {"commitlog", "index"}) {
        EXPECT_TRUE(wait_until([&] {
          return storage::test::same_files(node(leader).dir.path() / sub, n->dir.path() / sub);
        }, 30s)) << "broker " << n->id << ": " << sub << " differs";
      }
      EXPECT_TRUE(wait_until([&] { return l.meta().scan("") == f.meta().scan(""); }, 30s)) << n->id << ": meta keys differ";
      EXPECT_TRUE(l.epochs() == f.epochs()) << n->id;
      PartitionId lagging = 0;
      EXPECT_TRUE(wait_until([&] {
        for (lagging = 0; lagging < partitions; ++lagging) {
          for (storage::Store* s : {&l, &f}) {
            auto o = s->offsets(lagging);
            if (o.ok() && o->high_watermark != o->next_offset) return false;
          }
        }
        return true;
      }, 30s)) << "broker " << n->id << ", partition " << lagging << ": high watermark short of the end";
      for (PartitionId pid = 0; pid < partitions; ++pid) {
        const auto a = storage::test::view(l, pid, storage::test::ReadUntil::kHighWatermark);
        const auto b = storage::test::view(f, pid, storage::test::ReadUntil::kHighWatermark);
        EXPECT_EQ(a.code, b.code) << n->id << " partition " << pid;
        EXPECT_EQ(a.offsets.next_offset, b.offsets.next_offset) << n->id << " partition " << pid;
        EXPECT_TRUE(a.batches == b.batches) << n->id << " partition " << pid;
      }
    }
  }

  // What a writer on `id`'s store gets now.
  StatusCode append_code(int id) {
    auto r = storage::test::append(*node(id).store, 0, testutil::make_batch({.records = 1, .value_bytes = 10}));
    return r.ok() ? StatusCode::kOk : r.status().code();
  }

  // The members' snapshots from now on wait until release_snapshots (then the latest is given).
  void hold_snapshots(int id) {
    io_.call([this, id] { node(id).held = true; });
  }
  void release_snapshots(int id) {
    io_.call([this, id] {
      Node& n = node(id);
      n.held = false;
      if (n.held_snapshot) n.member->on_snapshot(std::exchange(n.held_snapshot, nullptr));
    });
  }

  std::chrono::seconds lease_ttl_ = 2s;
  std::chrono::milliseconds fence_margin_{0};        // 0: the Membership's default
  std::chrono::milliseconds keepalive_interval_{0};  // 0: the Membership's default
  testutil::IoThread stream_;
  cluster::Keys keys_{"/rokka"};
  std::shared_ptr<cluster::ClusterView> view_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

TEST_F(GroupMemberTest, RolesFollowTheGroupStateAndFollowersCopyTheLeader) {
  // No state yet: every store stays fenced.
  std::this_thread::sleep_for(200ms);
  for (auto& n : nodes_) EXPECT_EQ(n->member->role(), GroupRole::kFenced) << n->id;

  ASSERT_NO_FATAL_FAILURE(name_leader(2, 5));
  ASSERT_NO_FATAL_FAILURE(expect_roles(2, 5));
  storage::test::Workload w2(*node(2).store, 7);
  ASSERT_NO_FATAL_FAILURE(w2.create_partitions(6));
  for (int i = 0; i < 150; ++i) ASSERT_NO_FATAL_FAILURE(w2.step());
  ASSERT_NO_FATAL_FAILURE(expect_identical(2, w2.partitions()));
  EXPECT_EQ(append_code(1), StatusCode::kNotLeader);  // a follower's store takes no write

  // The state moves to broker 3 at epoch 6: 3 leads and takes writes, 2 follows it.
  ASSERT_NO_FATAL_FAILURE(name_leader(3, 6));
  ASSERT_NO_FATAL_FAILURE(expect_roles(3, 6));
  EXPECT_EQ(append_code(2), StatusCode::kNotLeader);
  storage::test::Workload w3(*node(3).store, 9);
  ASSERT_NO_FATAL_FAILURE(w3.create_partitions(2));
  for (int i = 0; i < 100; ++i) ASSERT_NO_FATAL_FAILURE(w3.step());
  ASSERT_NO_FATAL_FAILURE(expect_identical(3, w3.partitions()));
  ASSERT_EQ(node(3).store->epochs().size(), 2u);

  // Broker 3's keepalives stop: it fences its store before its lease can end, and the store
  // refuses writes.
  const int64_t old_epoch = node(3).membership->epoch();
  io_.call([this] { node(3).membership->pause_keepalives_for_test(true); });
  ASSERT_TRUE(wait_until([&] { return node(3).member->role() == GroupRole::kFenced; }, 30s));
  EXPECT_EQ(node(3).member->leading_epoch(), -1);
  EXPECT_EQ(node(3).member->epoch(), 6);
  EXPECT_EQ(append_code(3), StatusCode::kNotLeader);
  // Its lease ends; it registers again under a new broker epoch, which the state does not name.
  ASSERT_TRUE(wait_until([&] { return view_->snapshot()->broker(3) == nullptr; }, 30s));
  io_.call([this] { node(3).membership->pause_keepalives_for_test(false); });
  ASSERT_TRUE(wait_until([&] { return node(3).membership->epoch() > old_epoch && !node(3).membership->fenced(); }, 30s));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(node(3).member->role(), GroupRole::kFenced);

  // The next leader named: broker 1 leads at 7 and takes writes, the old leader follows it.
  ASSERT_NO_FATAL_FAILURE(name_leader(1, 7));
  ASSERT_NO_FATAL_FAILURE(expect_roles(1, 7));
  storage::test::Workload w1(*node(1).store, 11);
  ASSERT_NO_FATAL_FAILURE(w1.create_partitions(1));
  for (int i = 0; i < 50; ++i) ASSERT_NO_FATAL_FAILURE(w1.step());
  ASSERT_NO_FATAL_FAILURE(expect_identical(1, w1.partitions()));
}

// A fenced leader whose lease lives on (its keepalives answered again, the same broker epoch)
// leads its epoch again only once etcd's state, read linearizably, still names it: a view that is
// behind (its snapshots held back by the test) does not make it lead an epoch etcd has moved past.
// A long lease, a wide fence margin and frequent keepalives: the lease outlives the fence by
// seconds, so the keepalives resume before etcd could expire it.
class GroupMemberResumeTest : public GroupMemberTest {
 protected:
  GroupMemberResumeTest() {
    lease_ttl_ = 8s;
    fence_margin_ = 5000ms;
    keepalive_interval_ = 200ms;
  }

  // Broker `id`'s keepalives pause until its store is fenced, `meanwhile` runs, then they resume:
  // the same lease.
  void fence_and_unfence(int id, const std::function<void()>& meanwhile) {
    Node& n = node(id);
    const int64_t epoch = n.membership->epoch();
    io_.call([&n] { n.membership->pause_keepalives_for_test(true); });
    ASSERT_TRUE(wait_until([&] { return n.member->role() == GroupRole::kFenced; }, 30s));
    EXPECT_EQ(n.member->leading_epoch(), -1);
    meanwhile();
    io_.call([&n] { n.membership->pause_keepalives_for_test(false); });
    ASSERT_TRUE(wait_until([&] { return !n.membership->fenced(); }, 30s));
    ASSERT_EQ(n.membership->epoch(), epoch) << "the lease ended: the test's timing did not hold";
  }
};

TEST_F(GroupMemberResumeTest, AFencedLeaderResumesItsEpochOnlyIfEtcdStillNamesIt) {
  ASSERT_NO_FATAL_FAILURE(name_leader(2, 5));
  ASSERT_NO_FATAL_FAILURE(expect_roles(2, 5));

  // Fenced, then its keepalives answered again: the state in etcd still names it, it leads 5 again
  // and takes writes; nobody else leads.
  ASSERT_NO_FATAL_FAILURE(fence_and_unfence(2, [] {}));
  ASSERT_TRUE(wait_until([&] { return node(2).member->leading_epoch() == 5; }, 30s));
  EXPECT_EQ(node(2).member->role(), GroupRole::kLeader);
  for (int id : {1, 3}) {
    EXPECT_EQ(node(id).member->role(), GroupRole::kFollower) << id;
    EXPECT_EQ(node(id).member->epoch(), 5) << id;
  }
  storage::test::Workload w2(*node(2).store, 3);
  ASSERT_NO_FATAL_FAILURE(w2.create_partitions(2));
  for (int i = 0; i < 30; ++i) ASSERT_NO_FATAL_FAILURE(w2.step());
  ASSERT_NO_FATAL_FAILURE(expect_identical(2, w2.partitions()));

  // Fenced again; meanwhile etcd names broker 1 at epoch 6, which broker 2's view does not show.
  // Its keepalives answered again, its view still says "leader 2 at 5": the re-read says otherwise,
  // and it does not lead.
  hold_snapshots(2);
  ASSERT_NO_FATAL_FAILURE(fence_and_unfence(2, [&] { name_leader(1, 6); }));
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(node(2).member->role(), GroupRole::kFenced);
  EXPECT_EQ(node(2).member->leading_epoch(), -1);
  EXPECT_EQ(append_code(2), StatusCode::kNotLeader);
  // With the view's state it follows broker 1 at epoch 6, to the same bytes.
  release_snapshots(2);
  ASSERT_NO_FATAL_FAILURE(expect_roles(1, 6));
  storage::test::Workload w(*node(1).store, 5);
  ASSERT_NO_FATAL_FAILURE(w.create_partitions(2));
  for (int i = 0; i < 30; ++i) ASSERT_NO_FATAL_FAILURE(w.step());
  ASSERT_NO_FATAL_FAILURE(expect_identical(1, w.partitions()));
}

// The leader's SSS decision (next_sss_change), from the times and ends a ReplicationServer reports.
TEST(NextSssChangeTest, ShrinksALaggingMemberAndExpandsOneFreshlyCaughtUp) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  auto follower = [](int32_t id, Clock::time_point caught, int64_t written, int64_t durable) {
    cluster::FollowerProgress p;
    p.follower_id = id;
    p.connected = true;
    p.caught_up_at = caught;
    p.written_end = written;
    p.durable_end = durable;
    return p;
  };
  SssInputs in;
  in.lag_max = 2000ms;
  in.leading_since = t0;
  in.leader = 1;
  in.members = {1, 2, 3};
  in.sss = {1, 2, 3};
  in.confirmed = 1000;
  in.followers = {follower(2, t0 + 500ms, 1000, 1000), follower(3, t0 + 900ms, 1000, 1000)};

  // Both caught up within the limit: nothing to do.
  in.now = t0 + 2400ms;
  EXPECT_EQ(next_sss_change(in), std::nullopt);
  // 2 last caught up 2.5 s ago: out, whatever its acked ends.
  in.now = t0 + 3000ms;
  EXPECT_EQ(next_sss_change(in), (SssChange{SssChange::Kind::kShrink, 2}));
  // A member never heard from counts from the leader's start: in until lag_max after it, then out.
  in.followers = {follower(2, t0 + 2500ms, 1000, 1000)};
  in.now = t0 + 2000ms;
  EXPECT_EQ(next_sss_change(in), std::nullopt);
  in.now = t0 + 2001ms;
  EXPECT_EQ(next_sss_change(in), (SssChange{SssChange::Kind::kShrink, 3}));
  // The leader never leaves, however old its own entry.
  in.sss = {1};
  in.followers = {follower(1, Clock::time_point{}, 0, 0)};
  in.now = t0 + 60s;
  EXPECT_EQ(next_sss_change(in), std::nullopt);

  // Expand: 3, outside the SSS, acked C on a fresh catch-up: in.
  in.sss = {1, 2};
  in.followers = {follower(2, t0 + 10s, 1000, 1000), follower(3, t0 + 10s, 1000, 1000)};
  in.now = t0 + 10s + 1000ms;
  EXPECT_EQ(next_sss_change(in), (SssChange{SssChange::Kind::kExpand, 3}));
  // A catch-up older than lag_max / 2 is not fresh: no expand (no flapping at the limit).
  in.now = t0 + 10s + 1001ms;
  EXPECT_EQ(next_sss_change(in), std::nullopt);
  // Never caught up, or its durable end short of C (C counting durable ends): no expand.
  in.now = t0 + 10s + 100ms;
  in.followers = {follower(2, t0 + 10s, 1000, 1000), follower(3, Clock::time_point{}, 1000, 1000)};
  EXPECT_EQ(next_sss_change(in), std::nullopt);
  in.followers = {follower(2, t0 + 10s, 1000, 1000), follower(3, t0 + 10s, 1000, 999)};
  EXPECT_EQ(next_sss_change(in), std::nullopt);
  // C counting written ends: its written end is what counts.
  in.confirm_written = true;
  EXPECT_EQ(next_sss_change(in), (SssChange{SssChange::Kind::kExpand, 3}));
  in.followers = {follower(2, t0 + 10s, 1000, 1000), follower(3, t0 + 10s, 999, 999)};
  EXPECT_EQ(next_sss_change(in), std::nullopt);
  // A member not in the spec never joins; a shrink comes before an expand.
  in.followers = {follower(2, t0, 1000, 1000), follower(3, t0 + 10s, 1000, 1000), follower(4, t0 + 10s, 1000, 1000)};
  in.members = {1, 2, 3};
  EXPECT_EQ(next_sss_change(in), (SssChange{SssChange::Kind::kShrink, 2}));
  in.sss = {1, 2, 3};
  in.followers = {follower(2, t0 + 10s, 1000, 1000), follower(3, t0 + 10s, 1000, 1000),
                  follower(4, t0 + 10s, 1000, 1000)};
  EXPECT_EQ(next_sss_change(in), std::nullopt);
}

// The leader's server (GroupMember::server) confirms what every in-sync member holds: a meta write
// through ConfirmedMeta is answered once the followers have its entry, and an append's log end
// is waited for the same way (acks=all); followers have no server. A member that stops acking
// holds C back: the write is not confirmed in time. A demoted leader's waiters fail.
TEST_F(GroupMemberTest, TheLeadersServerConfirmsWhatEveryInSyncMemberHolds) {
  ASSERT_NO_FATAL_FAILURE(name_leader(1, 3));
  ASSERT_NO_FATAL_FAILURE(expect_roles(1, 3));
  std::shared_ptr<cluster::ReplicationServer> server = node(1).member->server();
  ASSERT_TRUE(server);
  EXPECT_FALSE(node(2).member->server());
  EXPECT_FALSE(node(3).member->server());

  storage::Store& leader = *node(1).store;
  ConfirmedMeta meta(leader.meta(), [&leader] { return leader.log_end(); },
                     [this] { return ConfirmedMeta::waiters_of(node(1).member->server()); }, 30s);
  std::promise<storage::Status> written;
  meta.write({{"o/test-key", "committed", false}}, [&written](storage::Status s) { written.set_value(std::move(s)); });
  auto answer = written.get_future();
  ASSERT_EQ(answer.wait_for(30s), std::future_status::ready);
  const storage::Status s = answer.get();
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (int id : {2, 3}) {  // confirmed: already on every follower
    EXPECT_EQ(node(id).store->meta().scan("o/test-key").size(), 1u) << "broker " << id;
  }

  // An append is confirmed the same way: its log end, once C covers it.
  const std::vector<PartitionId> pids = storage::test::create(leader, 1);
  ASSERT_EQ(pids.size(), 1u);
  auto appended = storage::test::append(leader, pids[0], testutil::make_batch({.records = 1, .value_bytes = 10}));
  ASSERT_TRUE(appended.ok()) << appended.status().to_string();
  std::promise<cluster::ConfirmOutcome> confirmed;
  server->waiters().add(appended->log_end, cluster::ConfirmWaiters::Clock::now() + 30s,
                        [&confirmed](cluster::ConfirmOutcome o) { confirmed.set_value(std::move(o)); });
  auto outcome = confirmed.get_future();
  ASSERT_EQ(outcome.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(outcome.get().ok());

  // Broker 3 stops following (its member stops): C stays below the next write, which is not
  // confirmed in time.
  io_.run(node(3).member->stop());
  ConfirmedMeta quick(leader.meta(), [&leader] { return leader.log_end(); },
                      [this] { return ConfirmedMeta::waiters_of(node(1).member->server()); }, 500ms);
  std::promise<storage::Status> late;
  quick.write({{"o/test-key", "again", false}}, [&late](storage::Status s) { late.set_value(std::move(s)); });
  auto late_answer = late.get_future();
  ASSERT_EQ(late_answer.wait_for(30s), std::future_status::ready);
  const storage::Status ls = late_answer.get();
  EXPECT_EQ(ls.code(), StatusCode::kNotLeader) << ls.to_string();
  EXPECT_NE(ls.message().find("timed_out"), std::string::npos) << ls.message();

  // A waiter on the leader when it is demoted fails with kNotLeader.
  std::promise<cluster::ConfirmOutcome> demoted;
  server->waiters().add(leader.log_end() + 1, cluster::ConfirmWaiters::Clock::now() + 60s,
                        [&demoted](cluster::ConfirmOutcome o) { demoted.set_value(std::move(o)); });
  ASSERT_NO_FATAL_FAILURE(name_leader(2, 4));
  auto demoted_outcome = demoted.get_future();
  ASSERT_EQ(demoted_outcome.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(demoted_outcome.get().kind, cluster::ConfirmOutcome::Kind::kNotLeader);
  EXPECT_TRUE(wait_until([&] { return node(1).member->server() == nullptr; }, 30s));
}

}  // namespace
}  // namespace rokka::broker
