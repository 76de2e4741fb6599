// Membership against a real etcd with 2 s leases: registration and epochs, keepalive,
// restart, and the self-fencing clock (keepalives stopped, and etcd itself stopped).
#include "cluster/membership.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

MembershipOptions broker_options(int32_t id) {
  MembershipOptions o;
  o.broker_id = id;
  o.listeners = {{"PLAINTEXT", "127.0.0.1", 9000 + id, "PLAINTEXT"}};
  o.rack = "rack-" + std::to_string(id % 2);
  o.lease_ttl = 2s;  // etcd's minimum
  return o;
}

// Events a membership reported, with the time each arrived.
struct Recorder {
  struct Entry {
    MembershipEvent event;
    Clock::time_point at;
    Clock::time_point last_answered_send;  // the membership's, when the event fired
  };
  std::mutex mu;
  std::vector<Entry> entries;

  void attach(const std::shared_ptr<Membership>& m) {
    std::weak_ptr<Membership> weak = m;
    m->subscribe([this, weak](const MembershipEvent& e) {
      auto s = weak.lock();
      std::lock_guard lock(mu);
      entries.push_back({e, Clock::now(), s ? s->last_answered_send() : Clock::time_point{}});
    });
  }
  size_t count(MembershipEvent::Kind kind) {
    std::lock_guard lock(mu);
    return std::count_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.event.kind == kind; });
  }
  std::optional<Entry> first(MembershipEvent::Kind kind, size_t skip = 0) {
    std::lock_guard lock(mu);
    for (const auto& e : entries) {
      if (e.event.kind == kind && skip-- == 0) return e;
    }
    return std::nullopt;
  }
};

class MembershipTest : public testutil::EtcdTest {
 protected:
  // `margin`: the fence margin (0: the default, TTL / 4).
  std::shared_ptr<Membership> start(int32_t id, Recorder* rec = nullptr, std::chrono::milliseconds margin = 0ms) {
    auto m = io_.call([&] {
      auto o = broker_options(id);
      o.fence_margin = margin;
      auto m = Membership::create(client_, keys_, o);
      if (rec) rec->attach(m);
      m->start();
      return m;
    });
    members_.push_back(m);
    return m;
  }
  void before_stop() override {
    for (auto& m : members_) io_.run(m->stop(false));
  }
  std::optional<KeyValue> registration(int32_t id) {
    auto r = io_.run(client_->range({.key = keys_.broker(id)}));
    if (!r.ok() || r->kvs.empty()) return std::nullopt;
    return r->kvs[0];
  }
  bool serving(const std::shared_ptr<Membership>& m) {
    return io_.call([&] { return m->serving(); });
  }

  // Owned by the fixture: memberships report to it until TearDown stops them.
  Recorder& recorder() { return recorders_.emplace_back(); }

  Keys keys_{"/test"};
  std::deque<Recorder> recorders_;
  std::vector<std::shared_ptr<Membership>> members_;
};

TEST_F(MembershipTest, RegistersUnderItsLeaseAndKeepsTheKeyAlive) {
  Recorder& rec = recorder();
  auto a = start(1, &rec);
  auto b = start(2);
  ASSERT_TRUE(testutil::wait_until([&] { return !a->fenced() && !b->fenced(); }));
  EXPECT_EQ(rec.count(MembershipEvent::Kind::kServing), 1u);

  auto kv = registration(1);
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ(kv->create_revision, a->epoch());  // the epoch is the key's create revision
  EXPECT_EQ(kv->lease, a->lease_id());
  auto reg = decode_broker_registration(kv->value);
  ASSERT_TRUE(reg.ok()) << reg.status().to_string();
  EXPECT_EQ(reg->listeners, broker_options(1).listeners);
  EXPECT_EQ(reg->rack, "rack-1");
  EXPECT_EQ(reg->incarnation, io_.call([&] { return a->incarnation(); }));
  ASSERT_TRUE(registration(2).has_value());
  EXPECT_NE(a->epoch(), b->epoch());

  // Over two lease lifetimes later the keys are still there and nothing was fenced.
  const auto until = Clock::now() + 4500ms;
  while (Clock::now() < until) {
    ASSERT_FALSE(a->fenced());
    std::this_thread::sleep_for(100ms);  // sampling the state over the interval under test
  }
  kv = registration(1);
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ(kv->create_revision, a->epoch());
  EXPECT_EQ(rec.count(MembershipEvent::Kind::kFenced), 0u);
  EXPECT_GT(a->fence_deadline(), Clock::now());
}

TEST_F(MembershipTest, AGracefulStopDeletesTheKeyAndARestartGetsANewEpoch) {
  auto a = start(1);
  ASSERT_TRUE(testutil::wait_until([&] { return !a->fenced(); }));
  const int64_t first = a->epoch();
  io_.run(a->stop(true));
  EXPECT_TRUE(a->fenced());
  EXPECT_FALSE(registration(1).has_value());  // revoked: gone at once

  auto again = start(1);
  ASSERT_TRUE(testutil::wait_until([&] { return !again->fenced(); }));
  EXPECT_GT(again->epoch(), first);
  EXPECT_EQ(registration(1)->create_revision, again->epoch());
}

// A group member publishes its replication listener, and hints asked for at each
// registration: a restarted broker's registration carries what its stores hold then.
TEST_F(MembershipTest, TheRegistrationCarriesTheReplicationEndpointAndFreshGroupHints) {
  std::atomic<int> asked{0};
  auto start_member = [&] {
    auto m = io_.call([&] {
      auto o = broker_options(1);
      o.replication = ReplicationEndpoint{"127.0.0.1", 9301};
      o.group_hints = [&asked] {
        const int n = ++asked;
        return std::map<std::string, GroupHint, std::less<>>{{"g1", {n, 1000 * n}}};
      };
      auto m = Membership::create(client_, keys_, o);
      m->start();
      return m;
    });
    members_.push_back(m);
    return m;
  };
  auto a = start_member();
  ASSERT_TRUE(testutil::wait_until([&] { return !a->fenced(); }));
  auto reg = decode_broker_registration(registration(1)->value);
  ASSERT_TRUE(reg.ok()) << reg.status().to_string();
  EXPECT_EQ(reg->replication, (ReplicationEndpoint{"127.0.0.1", 9301}));
  EXPECT_EQ(reg->groups.at("g1"), (GroupHint{1, 1000}));

  io_.run(a->stop(true));
  auto again = start_member();
  ASSERT_TRUE(testutil::wait_until([&] { return !again->fenced(); }));
  reg = decode_broker_registration(registration(1)->value);
  ASSERT_TRUE(reg.ok()) << reg.status().to_string();
  EXPECT_EQ(reg->groups.at("g1"), (GroupHint{2, 2000}));
  // A broker of no group writes neither field.
  auto plain = start(2);
  ASSERT_TRUE(testutil::wait_until([&] { return !plain->fenced(); }));
  EXPECT_EQ(registration(2)->value.find("groups"), std::string::npos);
  EXPECT_EQ(registration(2)->value.find("replication"), std::string::npos);
}

TEST_F(MembershipTest, ARestartBeforeTheOldLeaseEndsWaitsForItThenGetsANewEpoch) {
  auto old = start(1);
  ASSERT_TRUE(testutil::wait_until([&] { return !old->fenced(); }));
  const int64_t old_epoch = old->epoch();
  io_.run(old->stop(false));  // a crash: the key stays until the lease expires

  auto fresh = start(1);
  // It does not take the key over: while the old registration exists, it is not serving.
  bool overlapped = false;
  ASSERT_TRUE(testutil::wait_until([&] {
    const bool live = !fresh->fenced();
    auto kv = registration(1);
    if (live && kv && kv->create_revision == old_epoch) overlapped = true;
    return live;
  }, 15s));
  EXPECT_FALSE(overlapped);
  EXPECT_GT(fresh->epoch(), old_epoch);
  EXPECT_EQ(registration(1)->create_revision, fresh->epoch());
}

// The self-fencing clock with keepalives stopped on the broker's side: fenced before
// etcd can end the lease, the key gone afterwards, and a new epoch once keepalives resume.
// The fence tests use a 1 s margin: the callback may run late on a loaded machine (fenced()
// itself reads the clock and is never late), and these tests assert when the callback ran.
TEST_F(MembershipTest, FencesBeforeTheLeaseCanEndWhenKeepalivesStop) {
  Recorder& rec = recorder();
  auto m = start(1, &rec, 1000ms);
  ASSERT_TRUE(testutil::wait_until([&] { return !m->fenced(); }));
  const int64_t epoch = m->epoch();
  io_.call([&] { m->pause_keepalives_for_test(true); });

  ASSERT_TRUE(testutil::wait_until([&] { return rec.count(MembershipEvent::Kind::kFenced) == 1; }));
  auto fenced = rec.first(MembershipEvent::Kind::kFenced);
  ASSERT_TRUE(fenced.has_value());
  EXPECT_TRUE(m->fenced());
  // Before TTL from the send of the last answered keepalive: etcd cannot have expired it yet.
  EXPECT_LT(fenced->at, fenced->last_answered_send + 2s);
  EXPECT_GE(fenced->at, fenced->last_answered_send + 2s - 1000ms);  // and not earlier than TTL - margin
  // etcd then expires the lease: the key is gone.
  ASSERT_TRUE(testutil::wait_until([&] { return !registration(1).has_value(); }));

  io_.call([&] { m->pause_keepalives_for_test(false); });
  ASSERT_TRUE(testutil::wait_until([&] { return !m->fenced(); }));
  EXPECT_GT(m->epoch(), epoch);
  EXPECT_EQ(registration(1)->create_revision, m->epoch());
  EXPECT_EQ(rec.count(MembershipEvent::Kind::kServing), 2u);
}

// The same with etcd itself frozen (SIGSTOP): keepalives hang until their deadline.
TEST_F(MembershipTest, FencesOnItsOwnClockWhileEtcdIsUnreachable) {
  Recorder& rec = recorder();
  auto m = start(1, &rec, 1000ms);
  ASSERT_TRUE(testutil::wait_until([&] { return !m->fenced(); }));
  const int64_t epoch = m->epoch();
  etcd_->pause();
  const bool fenced_in_time = testutil::wait_until([&] { return rec.count(MembershipEvent::Kind::kFenced) == 1; }, 10s);
  std::this_thread::sleep_for(2500ms);  // keep etcd frozen past the lease's TTL, so that it expires
  etcd_->resume();
  ASSERT_TRUE(fenced_in_time);
  auto fenced = rec.first(MembershipEvent::Kind::kFenced);
  EXPECT_LT(fenced->at, fenced->last_answered_send + 2s);

  // The lease expired while etcd was frozen: the broker comes back with a new epoch.
  ASSERT_TRUE(testutil::wait_until([&] { return !m->fenced() && m->epoch() != epoch; }));
  EXPECT_GT(m->epoch(), epoch);
  auto kv = registration(1);
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ(kv->create_revision, m->epoch());
}

}  // namespace
}  // namespace rokka::cluster
