// ClusterView: the typed snapshot from raw keys, then against a real etcd: the first read
// (paged, one revision), following the watch, re-reading after ErrCompacted, and readers on
// other threads while it changes.
#include "cluster/cluster_view.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/controller.h"
#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

KeyValue kv(const std::string& key, const std::string& value, int64_t create, int64_t mod = 0, int64_t lease = 0) {
  return {key, value, create, mod ? mod : create, 1, lease};
}

TEST(ClusterSnapshotTest, TypesTheKnownKeysAndKeepsEverythingRaw) {
  Keys keys("/r");
  KeyMap m;
  auto add = [&](KeyValue v) { m.emplace(v.key, std::move(v)); };
  add(kv("/r/cluster_id", encode_cluster_id("abcdefghijklmnopqrstuv"), 2));
  add(kv("/r/brokers/1", encode_broker_registration({{{"PLAINTEXT", "h1", 9092, "PLAINTEXT"}}, "r1", "7"}), 5, 5, 99));
  add(kv("/r/brokers/2", encode_broker_registration({{{"PLAINTEXT", "h2", 9092, "PLAINTEXT"}}, {}, "8"}), 6));
  add(kv("/r/brokers/03", encode_broker_registration({{}, {}, "9"}), 7));  // not a canonical id: raw only
  add(kv("/r/brokers/4", "{not json", 8));
  add(kv("/r/controller", encode_controller(2), 9));
  add(kv("/r/topics/orders", encode_topic({"id-1", 3, R"({"rr":["g1"]})", {{"retention.ms", "5"}}}), 10, 12));
  add(kv("/r/topics/bad", R"({"id":"x","partitions":0})", 11));
  add(kv(keys.meta(std::string("a/\x00\x02orders", 10)), encode_meta_value(""), 13));
  add(kv(keys.meta("d/default/message.max.bytes"), encode_meta_value("1000"), 14));
  add(kv(keys.meta("u/2/not-base64"), R"("*")", 15));

  auto s = build_snapshot(keys, m, 20);
  EXPECT_EQ(s->revision, 20);
  EXPECT_EQ(s->cluster_id, "abcdefghijklmnopqrstuv");
  ASSERT_EQ(s->brokers.size(), 2u);
  EXPECT_EQ(s->broker(1)->epoch, 5);
  EXPECT_EQ(s->broker(1)->lease, 99);
  EXPECT_EQ(s->broker(1)->registration.rack, "r1");
  EXPECT_EQ(s->broker(2)->registration.listeners.at(0).host, "h2");
  EXPECT_EQ(s->broker(3), nullptr);
  ASSERT_TRUE(s->controller.has_value());
  EXPECT_EQ(s->controller->broker_id, 2);
  EXPECT_EQ(s->controller->epoch, 9);
  ASSERT_EQ(s->topics.size(), 1u);
  const TopicInfo* t = s->topic("orders");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->record.partitions, 3);
  EXPECT_EQ(t->record.placement, R"({"rr":["g1"]})");
  EXPECT_EQ(t->record.configs.at("retention.ms"), "5");
  EXPECT_EQ(t->create_revision, 10);
  EXPECT_EQ(t->mod_revision, 12);
  EXPECT_EQ(s->malformed, (std::vector<std::string>{"/r/brokers/4", "/r/meta/u/2/not-base64", "/r/topics/bad"}));
  EXPECT_EQ(s->raw.size(), m.size());
  auto meta = s->with_prefix(keys.meta_prefix());
  ASSERT_EQ(meta.size(), 3u);
  EXPECT_EQ(meta[0]->key, std::string("/r/meta/a/\x00\x02orders", 18));  // a key may hold any byte
  EXPECT_EQ(meta[1]->key, "/r/meta/d/default/message.max.bytes");
}

class ClusterViewTest : public testutil::EtcdTest {
 protected:
  std::shared_ptr<ClusterView> start_view(ClusterViewOptions options = {}) {
    view_ = io_.call([&] {
      auto v = ClusterView::create(client_, keys_, options);
      v->start();
      return v;
    });
    return view_;
  }
  void before_stop() override {
    if (election_) io_.run(election_->stop(false));
    if (membership_) io_.run(membership_->stop(false));
    if (view_) io_.call([&] { view_->stop(); });
  }
  int64_t put(const std::string& key, const std::string& value) {
    auto r = io_.run(client_->put({.key = key, .value = value}));
    if (!r.ok()) throw std::runtime_error(r.status().to_string());
    return r->header.revision;
  }
  bool at_least(int64_t revision) { return view_->snapshot()->revision >= revision; }

  Keys keys_{"/view"};
  std::shared_ptr<ClusterView> view_;
  std::shared_ptr<Membership> membership_;
  std::shared_ptr<ControllerElection> election_;
};

TEST_F(ClusterViewTest, ReadsTheClusterThenFollowsItsChanges) {
  put(keys_.cluster_id(), encode_cluster_id("cluster-one"));
  put(keys_.topic("a"), encode_topic({"id-a", 2, "null", {}}));
  put("/elsewhere", "not ours");
  auto view = start_view();
  ASSERT_TRUE(testutil::wait_until([&] { return view->full_reads() == 1; }));
  auto s = view->snapshot();
  EXPECT_EQ(s->cluster_id, "cluster-one");
  EXPECT_EQ(s->topics.size(), 1u);
  EXPECT_TRUE(s->brokers.empty());
  EXPECT_FALSE(s->controller.has_value());
  EXPECT_EQ(s->raw.count("/elsewhere"), 0u);

  // A broker registers and becomes controller: the view shows both with their epochs.
  io_.call([&] {
    MembershipOptions o;
    o.broker_id = 7;
    o.listeners = {{"PLAINTEXT", "127.0.0.1", 9097, "PLAINTEXT"}};
    o.lease_ttl = 2s;
    membership_ = Membership::create(client_, keys_, o);
    election_ = ControllerElection::create(client_, keys_, membership_);
    membership_->start();
    election_->start();
  });
  // The view can see the keys before the broker's own objects have handled their answers
  // (the election takes its epoch when its transaction's response arrives): wait for both.
  ASSERT_TRUE(testutil::wait_until([&] {
    auto s = view->snapshot();
    return s->broker(7) != nullptr && s->controller.has_value() && membership_->epoch() != 0 &&
           election_->epoch() != 0;
  }));
  s = view->snapshot();
  EXPECT_EQ(s->broker(7)->epoch, membership_->epoch());
  EXPECT_EQ(s->broker(7)->registration.listeners.at(0).port, 9097);
  EXPECT_EQ(s->controller->broker_id, 7);
  EXPECT_EQ(s->controller->epoch, election_->epoch());

  // Topics come and go.
  put(keys_.topic("b"), encode_topic({"id-b", 5, "null", {{"cleanup.policy", "compact"}}}));
  auto del = io_.run(client_->delete_range({.key = keys_.topic("a")}));
  ASSERT_TRUE(del.ok());
  ASSERT_TRUE(testutil::wait_until([&] { return at_least(del->header.revision); }));
  s = view->snapshot();
  EXPECT_EQ(s->topic("a"), nullptr);
  ASSERT_NE(s->topic("b"), nullptr);
  EXPECT_EQ(s->topic("b")->record.configs.at("cleanup.policy"), "compact");

  // The broker leaves gracefully: gone from the view, and so is the controller.
  io_.run(election_->stop(false));
  io_.run(membership_->stop(true));
  ASSERT_TRUE(testutil::wait_until([&] {
    auto s = view->snapshot();
    return s->broker(7) == nullptr && !s->controller.has_value();
  }));
  EXPECT_EQ(view->full_reads(), 1u);  // all of it through the watch
}

TEST_F(ClusterViewTest, TheFirstReadIsPagedAtOneRevision) {
  for (int i = 0; i < 7; ++i) put(keys_.topic("t" + std::to_string(i)), encode_topic({"id", 1, "null", {}}));
  const int64_t last = put(keys_.meta(std::string("a/\x02\x00\x02t0", 7)), encode_meta_value(""));
  auto view = start_view({.page_size = 2});
  ASSERT_TRUE(testutil::wait_until([&] { return view->full_reads() == 1; }));
  auto s = view->snapshot();
  EXPECT_EQ(s->topics.size(), 7u);
  EXPECT_EQ(s->raw.size(), 8u);
  EXPECT_EQ(s->revision, last);
}

TEST_F(ClusterViewTest, ReReadsEverythingWhenItsWatchRevisionWasCompacted) {
  put(keys_.topic("old"), encode_topic({"id-old", 1, "null", {}}));
  auto view = start_view();
  ASSERT_TRUE(testutil::wait_until([&] { return view->full_reads() == 1; }));
  io_.call([&] { view->pause_watch_for_test(); });  // as if disconnected for a long time
  put(keys_.topic("new"), encode_topic({"id-new", 4, "null", {}}));
  auto del = io_.run(client_->delete_range({.key = keys_.topic("old")}));
  ASSERT_TRUE(del.ok());
  ASSERT_TRUE(io_.run(client_->compact(del->header.revision, true)).ok());  // the events are gone
  io_.call([&] { view->resume_watch_for_test(); });

  ASSERT_TRUE(testutil::wait_until([&] { return view->full_reads() == 2; }));
  auto s = view->snapshot();
  EXPECT_EQ(s->revision, del->header.revision);
  EXPECT_EQ(s->topic("old"), nullptr);
  ASSERT_NE(s->topic("new"), nullptr);
  EXPECT_EQ(s->topic("new")->record.partitions, 4);
  // And it follows the watch again afterwards.
  const int64_t rev = put(keys_.topic("later"), encode_topic({"id-l", 1, "null", {}}));
  ASSERT_TRUE(testutil::wait_until([&] { return at_least(rev); }));
  EXPECT_NE(view->snapshot()->topic("later"), nullptr);
}

TEST_F(ClusterViewTest, OtherThreadsReadConsistentSnapshotsWhileItChanges) {
  auto view = start_view();
  ASSERT_TRUE(testutil::wait_until([&] { return view->full_reads() == 1; }));
  std::atomic<bool> done{false};
  std::atomic<int> violations{0};
  std::atomic<uint64_t> reads{0};
  const int64_t base = view->snapshot()->revision;
  std::thread reader([&] {
    int64_t last = 0;
    while (!done) {
      auto s = view->snapshot();
      // Topic i is written at the i-th revision after the start: a snapshot never goes back,
      // and holds exactly the topics written up to its revision.
      if (s->revision < last) ++violations;
      last = s->revision;
      if (static_cast<int64_t>(s->topics.size()) != s->revision - base) ++violations;
      for (const auto& [name, t] : s->topics) {
        if (t.create_revision > s->revision) ++violations;
      }
      ++reads;
    }
  });
  int64_t rev = 0;
  for (int i = 0; i < 50; ++i) rev = put(keys_.topic("t" + std::to_string(i)), encode_topic({"id", 1, "null", {}}));
  ASSERT_TRUE(testutil::wait_until([&] { return at_least(rev); }));
  done = true;
  reader.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GT(reads.load(), 0u);
  EXPECT_EQ(view->snapshot()->topics.size(), 50u);
}

}  // namespace
}  // namespace rokka::cluster
