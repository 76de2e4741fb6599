// Controller election against a real etcd with 2 s leases: one controller of two brokers,
// takeover with a higher epoch when the controller stops keeping its lease alive, guarded
// controller writes, resignation.
#include "cluster/controller.h"

#include <gtest/gtest.h>

#include <deque>
#include <mutex>

#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

struct Broker {
  std::shared_ptr<EtcdClient> client;
  std::shared_ptr<Membership> membership;
  std::shared_ptr<ControllerElection> election;
  std::mutex mu;
  std::vector<ControllerEvent> events;
  std::vector<Clock::time_point> lost_at;
  std::vector<Clock::time_point> elected_at;

  std::vector<ControllerEvent> seen() {
    std::lock_guard lock(mu);
    return events;
  }
};

class ControllerTest : public testutil::EtcdTest {
 protected:
  // Each broker has its own client, as separate processes would.
  Broker& start(int32_t id) {
    Broker& b = brokers_.emplace_back();
    io_.call([&] {
      b.client = EtcdClient::create(io_.executor(), testutil::client_options(etcd_->client_url()));
      MembershipOptions o;
      o.broker_id = id;
      o.listeners = {{"PLAINTEXT", "127.0.0.1", 9000 + id, "PLAINTEXT"}};
      o.lease_ttl = 2s;
      o.fence_margin = 1000ms;  // slack for a late io thread on a loaded machine (the order is asserted)
      b.membership = Membership::create(b.client, keys_, o);
      b.election = ControllerElection::create(b.client, keys_, b.membership);
      b.election->subscribe([&b](const ControllerEvent& e) {
        std::lock_guard lock(b.mu);
        b.events.push_back(e);
        (e.kind == ControllerEvent::Kind::kLost ? b.lost_at : b.elected_at).push_back(Clock::now());
      });
      b.membership->start();
      b.election->start();
    });
    return b;
  }
  void before_stop() override {
    for (auto& b : brokers_) {
      io_.run(b.election->stop(false));
      io_.run(b.membership->stop(false));
      io_.call([&] { b.client->shutdown(); });
    }
  }
  std::optional<KeyValue> controller_key() {
    auto r = io_.run(client_->range({.key = keys_.controller()}));
    if (!r.ok() || r->kvs.empty()) return std::nullopt;
    return r->kvs[0];
  }

  Keys keys_{"/ctl"};
  std::deque<Broker> brokers_;
};

TEST_F(ControllerTest, OneOfTwoBrokersIsElectedAndItsEpochIsTheKeysRevision) {
  Broker& a = start(1);
  Broker& b = start(2);
  ASSERT_TRUE(testutil::wait_until([&] { return a.election->is_controller() || b.election->is_controller(); }));
  // Both are serving; exactly one is controller, and stays so.
  ASSERT_TRUE(testutil::wait_until([&] { return !a.membership->fenced() && !b.membership->fenced(); }));
  std::this_thread::sleep_for(300ms);  // a second election would have happened by now
  EXPECT_NE(a.election->is_controller(), b.election->is_controller());
  Broker& winner = a.election->is_controller() ? a : b;
  auto kv = controller_key();
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ(kv->create_revision, winner.election->epoch());
  EXPECT_EQ(kv->lease, winner.membership->lease_id());
  EXPECT_EQ(*decode_controller(kv->value), winner.membership->options().broker_id);
  ASSERT_EQ(winner.seen().size(), 1u);
  EXPECT_EQ(winner.seen()[0].kind, ControllerEvent::Kind::kElected);
}

TEST_F(ControllerTest, WhenTheControllerStopsKeepingItsLeaseTheOtherTakesOverWithAHigherEpoch) {
  Broker& a = start(1);
  ASSERT_TRUE(testutil::wait_until([&] { return a.election->is_controller(); }));
  Broker& b = start(2);
  ASSERT_TRUE(testutil::wait_until([&] { return !b.membership->fenced(); }));
  const int64_t first = a.election->epoch();
  EXPECT_FALSE(b.election->is_controller());

  // A guarded controller write works for the controller's epoch.
  auto ok = io_.run(a.client->txn(a.election->guard({{}, {PutRequest{"/ctl/decision", "a"}}, {}})));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->succeeded);

  io_.call([&] { a.membership->pause_keepalives_for_test(true); });  // the controller hangs
  ASSERT_TRUE(testutil::wait_until([&] { return b.election->is_controller(); }));
  EXPECT_GT(b.election->epoch(), first);
  EXPECT_FALSE(a.election->is_controller());
  // The old controller gave up before the new one was elected (it fenced first).
  ASSERT_FALSE(a.seen().empty());
  EXPECT_EQ(a.seen().back().kind, ControllerEvent::Kind::kLost);
  io_.call([&] {  // both recorded on the io thread: one clock, one order
    ASSERT_EQ(a.lost_at.size(), 1u);
    ASSERT_EQ(b.elected_at.size(), 1u);
    EXPECT_LT(a.lost_at[0], b.elected_at[0]);
  });

  // The old epoch's guard no longer holds; the new one's does.
  auto stale = io_.run(a.client->txn(controller_guard(keys_, first, {{}, {PutRequest{"/ctl/decision", "stale"}}, {}})));
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  auto fresh = io_.run(b.client->txn(b.election->guard({{}, {PutRequest{"/ctl/decision", "b"}}, {}})));
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->succeeded);
  auto decision = io_.run(client_->range({.key = "/ctl/decision"}));
  EXPECT_EQ(decision->kvs.at(0).value, "b");
}

TEST_F(ControllerTest, AResigningControllerHandsOverWithoutWaitingForItsLease) {
  Broker& a = start(1);
  ASSERT_TRUE(testutil::wait_until([&] { return a.election->is_controller(); }));
  Broker& b = start(2);
  ASSERT_TRUE(testutil::wait_until([&] { return !b.membership->fenced(); }));
  const int64_t first = a.election->epoch();
  const auto resigned = Clock::now();
  io_.run(a.election->stop(true));
  ASSERT_TRUE(testutil::wait_until([&] { return b.election->is_controller(); }));
  EXPECT_LT(Clock::now() - resigned, 2s);  // sooner than the lease would have ended
  EXPECT_GT(b.election->epoch(), first);
  EXPECT_FALSE(a.membership->fenced());  // a is still a broker, only no longer controller
}

}  // namespace
}  // namespace rokka::cluster
