// Watcher against a real etcd: events in revision order, resumption across an etcd restart
// (same data dir and port), and ErrCompacted.
#include "cluster/watcher.h"

#include <gtest/gtest.h>

#include <mutex>

#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;

struct Seen {
  std::string key;
  WatchEvent::Type type;
  int64_t revision;
  std::string value;
  bool operator==(const Seen&) const = default;
};

class WatcherTest : public testutil::EtcdTest {
 protected:
  void watch(int64_t from) {
    watcher_ = io_.call([&] {
      return Watcher::start(
          client_, {"/w/", prefix_range_end("/w/"), from},
          [this](const WatchResponse& msg) {
            std::lock_guard lock(mu_);
            for (const auto& e : msg.events) seen_.push_back({e.kv.key, e.type, e.kv.mod_revision, e.kv.value});
          },
          [this](int64_t compact_revision) { compacted_at_ = compact_revision; });
    });
  }
  void before_stop() override {
    if (watcher_) io_.call([&] { watcher_->stop(); });
  }
  int64_t put(const std::string& key, const std::string& value) {
    auto r = io_.run(client_->put({.key = key, .value = value}));
    if (!r.ok()) throw std::runtime_error(r.status().to_string());
    return r->header.revision;
  }
  int64_t del(const std::string& key) {
    auto r = io_.run(client_->delete_range({.key = key}));
    if (!r.ok()) throw std::runtime_error(r.status().to_string());
    return r->header.revision;
  }
  std::vector<Seen> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

  std::shared_ptr<Watcher> watcher_;
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::atomic<int64_t> compacted_at_{0};
};

TEST_F(WatcherTest, SeesPutsAndDeletesOfThePrefixInRevisionOrder) {
  const int64_t r0 = put("/w/a", "0");  // before the watch: not seen
  watch(r0 + 1);
  std::vector<Seen> expected;
  expected.push_back({"/w/a", WatchEvent::Type::kPut, put("/w/a", "1"), "1"});
  put("/other", "x");  // outside the prefix
  expected.push_back({"/w/b", WatchEvent::Type::kPut, put("/w/b", "2"), "2"});
  expected.push_back({"/w/a", WatchEvent::Type::kDelete, del("/w/a"), ""});
  expected.push_back({"/w/b", WatchEvent::Type::kPut, put("/w/b", "3"), "3"});
  ASSERT_TRUE(testutil::wait_until([&] { return seen().size() >= expected.size(); }));
  EXPECT_EQ(seen(), expected);
}

TEST_F(WatcherTest, ResumesAfterEtcdRestartsWithoutLosingOrRepeatingEvents) {
  watch(put("/w/start", "s") + 1);
  std::vector<Seen> expected;
  expected.push_back({"/w/1", WatchEvent::Type::kPut, put("/w/1", "1"), "1"});
  ASSERT_TRUE(testutil::wait_until([&] { return seen().size() == 1; }));

  etcd_->kill9();  // the stream breaks
  etcd_->start();  // same data dir, same ports
  etcd_->wait_healthy();
  // Written while the watcher is still reconnecting (or just after): it resumes from the
  // revision after the last one it delivered.
  expected.push_back({"/w/2", WatchEvent::Type::kPut, put("/w/2", "2"), "2"});
  expected.push_back({"/w/1", WatchEvent::Type::kDelete, del("/w/1"), ""});
  ASSERT_TRUE(testutil::wait_until([&] { return seen().size() >= expected.size(); }));
  expected.push_back({"/w/3", WatchEvent::Type::kPut, put("/w/3", "3"), "3"});
  ASSERT_TRUE(testutil::wait_until([&] { return seen().size() >= expected.size(); }));
  EXPECT_EQ(seen(), expected);
  EXPECT_GE(io_.call([&] { return watcher_->streams_opened(); }), 2u);
}

TEST_F(WatcherTest, ResumesAfterTheStreamIsCut) {
  watch(put("/w/start", "s") + 1);
  std::vector<Seen> expected;
  for (int i = 0; i < 20; ++i) {
    if (i % 5 == 2) io_.call([&] { watcher_->break_stream_for_test(); });
    expected.push_back({"/w/k", WatchEvent::Type::kPut, put("/w/k", std::to_string(i)), std::to_string(i)});
  }
  ASSERT_TRUE(testutil::wait_until([&] { return seen().size() >= expected.size(); }));
  EXPECT_EQ(seen(), expected);
  EXPECT_GE(io_.call([&] { return watcher_->streams_opened(); }), 2u);
}

TEST_F(WatcherTest, ReportsErrCompactedWhenItsRevisionIsGone) {
  const int64_t first = put("/w/a", "1");
  put("/w/a", "2");
  const int64_t last = put("/w/a", "3");
  ASSERT_TRUE(io_.run(client_->compact(last, true)).ok());  // POST /v3/kv/compaction
  watch(first);
  ASSERT_TRUE(testutil::wait_until([&] { return compacted_at_.load() != 0; }));
  EXPECT_EQ(compacted_at_.load(), last);
  EXPECT_TRUE(io_.call([&] { return watcher_->stopped(); }));
  EXPECT_TRUE(seen().empty());
}

}  // namespace
}  // namespace rokka::cluster
