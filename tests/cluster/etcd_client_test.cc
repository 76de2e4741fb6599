// EtcdClient against a real single-member etcd: kv calls, transactions, leases, deadlines,
// size caps and endpoint rotation.
#include "cluster/etcd_client.h"

#include <gtest/gtest.h>

#include "tests/cluster/cluster_fixture.h"

namespace rokka::cluster {
namespace {

using namespace std::chrono_literals;
using testutil::EtcdTest;

class EtcdClientTest : public EtcdTest {
 protected:
  Result<RangeResult> get(const std::string& key) { return io_.run(client_->range({.key = key})); }
  Result<PutResult> put(const std::string& key, const std::string& value, int64_t lease = 0) {
    return io_.run(client_->put({.key = key, .value = value, .lease = lease}));
  }
};

TEST_F(EtcdClientTest, PutThenRangeReturnsTheBytesAndRevisions) {
  const std::string value("bin\0ary\xff", 8);  // values are bytes, not text
  auto p = put("/t/a", value);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_GT(p->header.revision, 1);
  auto r = get("/t/a");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "/t/a");
  EXPECT_EQ(r->kvs[0].value, value);
  EXPECT_EQ(r->kvs[0].create_revision, p->header.revision);
  EXPECT_EQ(r->kvs[0].mod_revision, p->header.revision);
  EXPECT_EQ(r->kvs[0].version, 1);

  auto p2 = put("/t/a", "second");
  ASSERT_TRUE(p2.ok());
  r = get("/t/a");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kvs[0].value, "second");
  EXPECT_EQ(r->kvs[0].create_revision, p->header.revision);
  EXPECT_EQ(r->kvs[0].mod_revision, p2->header.revision);
  EXPECT_EQ(r->kvs[0].version, 2);

  auto missing = get("/t/none");
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->kvs.empty());
  EXPECT_EQ(missing->count, 0);
}

TEST_F(EtcdClientTest, PrefixRangeAtAnOldRevisionAndPaging) {
  ASSERT_TRUE(put("/p/1", "a").ok());
  auto mid = put("/p/2", "b");
  ASSERT_TRUE(mid.ok());
  ASSERT_TRUE(put("/p/3", "c").ok());
  ASSERT_TRUE(put("/q", "outside").ok());

  auto all = io_.run(client_->range({.key = "/p/", .range_end = prefix_range_end("/p/")}));
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->kvs.size(), 3u);
  EXPECT_EQ(all->kvs[2].key, "/p/3");

  auto old = io_.run(client_->range({.key = "/p/", .range_end = prefix_range_end("/p/"), .revision = mid->header.revision}));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->kvs.size(), 2u);

  auto page = io_.run(client_->range({.key = "/p/", .range_end = prefix_range_end("/p/"), .limit = 2}));
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->kvs.size(), 2u);
  EXPECT_TRUE(page->more);
  EXPECT_EQ(page->count, 3);
}

TEST_F(EtcdClientTest, TxnCompareSucceedsOnceThenFailsAndRunsTheFailureBranch) {
  Txn create{{Compare::absent("/t/c")}, {PutRequest{"/t/c", "first"}}, {RangeRequest{.key = "/t/c"}}};
  auto t1 = io_.run(client_->txn(create));
  ASSERT_TRUE(t1.ok()) << t1.status().to_string();
  EXPECT_TRUE(t1->succeeded);
  ASSERT_EQ(t1->responses.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<PutResult>(t1->responses[0]));

  create.success = {PutRequest{"/t/c", "second"}};
  auto t2 = io_.run(client_->txn(create));
  ASSERT_TRUE(t2.ok());
  EXPECT_FALSE(t2->succeeded);
  ASSERT_EQ(t2->responses.size(), 1u);
  const auto& seen = std::get<RangeResult>(t2->responses[0]);
  ASSERT_EQ(seen.kvs.size(), 1u);
  EXPECT_EQ(seen.kvs[0].value, "first");
  EXPECT_EQ(seen.kvs[0].create_revision, t1->header.revision);

  // A guard on the creation revision: right once, wrong with a stale one.
  Txn guarded{{Compare::created_at("/t/c", t1->header.revision)}, {PutRequest{"/t/c", "guarded"}}, {}};
  auto t3 = io_.run(client_->txn(guarded));
  ASSERT_TRUE(t3.ok());
  EXPECT_TRUE(t3->succeeded);
  Txn stale{{Compare::created_at("/t/c", t1->header.revision - 1)}, {PutRequest{"/t/c", "stale"}}, {}};
  auto t4 = io_.run(client_->txn(stale));
  ASSERT_TRUE(t4.ok());
  EXPECT_FALSE(t4->succeeded);
  Txn by_value{{Compare::value_is("/t/c", "guarded")}, {DeleteRequest{.key = "/t/c", .prev_kv = true}}, {}};
  auto t5 = io_.run(client_->txn(by_value));
  ASSERT_TRUE(t5.ok());
  EXPECT_TRUE(t5->succeeded);
  EXPECT_EQ(std::get<DeleteResult>(t5->responses[0]).deleted, 1);
  auto r = get("/t/c");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kvs.empty());
}

TEST_F(EtcdClientTest, EtcdRefusalsMapToStatusCodes) {
  // The same key twice in one txn: etcd refuses the request (InvalidArgument).
  Txn twice{{}, {PutRequest{"/t/d", "1"}, PutRequest{"/t/d", "2"}}, {}};
  auto t = io_.run(client_->txn(twice));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument) << t.status().to_string();
  // A put under a lease that does not exist.
  auto p = put("/t/d", "x", 12345);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound) << p.status().to_string();
  // A range at a compacted revision: ErrCompacted.
  ASSERT_TRUE(put("/t/d", "1").ok());
  auto last = put("/t/d", "2");
  ASSERT_TRUE(last.ok());
  ASSERT_TRUE(io_.run(client_->compact(last->header.revision, true)).ok());
  auto old = io_.run(client_->range({.key = "/t/d", .revision = last->header.revision - 1}));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), StatusCode::kOutOfRange) << old.status().to_string();
}

TEST_F(EtcdClientTest, LeaseExpiryDeletesTheKeyAndKeepaliveKeepsIt) {
  auto kept = io_.run(client_->lease_grant(2));
  auto lost = io_.run(client_->lease_grant(2));
  ASSERT_TRUE(kept.ok() && lost.ok());
  EXPECT_EQ(kept->ttl, 2);
  ASSERT_TRUE(put("/t/kept", "1", kept->id).ok());
  ASSERT_TRUE(put("/t/lost", "1", lost->id).ok());
  // Keep one lease alive for over two TTLs; the other expires meanwhile.
  const auto until = std::chrono::steady_clock::now() + 4500ms;
  bool lost_gone = false;
  while (std::chrono::steady_clock::now() < until) {
    auto k = io_.run(client_->lease_keepalive(kept->id));
    ASSERT_TRUE(k.ok()) << k.status().to_string();
    ASSERT_EQ(k->ttl, 2);
    auto r = get("/t/lost");
    ASSERT_TRUE(r.ok());
    lost_gone = lost_gone || r->kvs.empty();
    std::this_thread::sleep_for(500ms);  // the keepalive period under test, not a wait for a condition
  }
  EXPECT_TRUE(lost_gone);
  auto r = get("/t/kept");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kvs.size(), 1u);
  // A keepalive of the expired lease answers TTL 0: the lease is gone.
  auto gone = io_.run(client_->lease_keepalive(lost->id));
  ASSERT_TRUE(gone.ok()) << gone.status().to_string();
  EXPECT_EQ(gone->ttl, 0);
  // Revoking deletes the key at once.
  ASSERT_TRUE(io_.run(client_->lease_revoke(kept->id)).ok());
  r = get("/t/kept");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kvs.empty());
}

TEST_F(EtcdClientTest, AnAnswerOverTheSizeCapIsRefusedBeforeParsing) {
  const std::string big(200 * 1024, 'x');
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(put("/big/" + std::to_string(i), big).ok());
  auto opts = testutil::client_options(etcd_->client_url());
  opts.max_response_bytes = 400 * 1024;  // base64: one value is 273 KiB of answer, three 820 KiB
  auto small = EtcdClient::create(io_.executor(), opts);
  auto r = io_.run(small->range({.key = "/big/", .range_end = prefix_range_end("/big/")}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTooLarge) << r.status().to_string();
  // One value fits, and the client still works after the refusal.
  auto one = io_.run(small->range({.key = "/big/0"}));
  ASSERT_TRUE(one.ok()) << one.status().to_string();
  EXPECT_EQ(one->kvs.at(0).value, big);
  io_.call([&] { small->shutdown(); });
}

TEST_F(EtcdClientTest, DeadEndpointsAreSkipped) {
  // Two endpoints where nothing listens, then the real one.
  const std::string eps = "http://127.0.0.1:" + std::to_string(testutil::free_port()) + ",127.0.0.1:" +
                          std::to_string(testutil::free_port()) + "," + etcd_->client_url();
  auto c = EtcdClient::create(io_.executor(), testutil::client_options(eps));
  auto p = io_.run(c->put({.key = "/t/rot", .value = "v"}));  // not sent to the dead ones: safe to retry
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(io_.call([&] { return c->current_endpoint().to_string(); }), etcd_->client_url().substr(7));
  EXPECT_EQ(io_.call([&] { return c->endpoint_switches(); }), 2u);
  io_.call([&] { c->shutdown(); });
}

TEST_F(EtcdClientTest, AStoppedMemberFailsTheCallAtItsDeadline) {
  ASSERT_TRUE(put("/t/x", "1").ok());
  etcd_->pause();
  const auto start = std::chrono::steady_clock::now();
  auto r = io_.run(client_->range({.key = "/t/x"}, std::chrono::steady_clock::now() + 700ms));
  const auto took = std::chrono::steady_clock::now() - start;
  etcd_->resume();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError) << r.status().to_string();
  EXPECT_GE(took, 650ms);
  EXPECT_LT(took, 5s);
  // The mutation was sent to the stopped member: its outcome is unknown, so it is not retried.
  etcd_->pause();
  auto p = io_.run(client_->put({.key = "/t/x", .value = "2"}, std::chrono::steady_clock::now() + 500ms));
  etcd_->resume();
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("outcome unknown"), std::string::npos) << p.status().to_string();
  // Afterwards the same client works again (a fresh connection).
  auto again = get("/t/x");
  ASSERT_TRUE(again.ok()) << again.status().to_string();
}

TEST(EndpointsTest, ParsesTheConfigValue) {
  auto eps = parse_endpoints("http://127.0.0.1:2379, 10.0.0.2:2380/,http://[::1]:2381,");
  ASSERT_TRUE(eps.ok()) << eps.status().to_string();
  ASSERT_EQ(eps->size(), 3u);
  EXPECT_EQ((*eps)[0].host, "127.0.0.1");
  EXPECT_EQ((*eps)[0].port, "2379");
  EXPECT_EQ((*eps)[1].to_string(), "10.0.0.2:2380");
  EXPECT_EQ((*eps)[2].host, "::1");
  EXPECT_EQ((*eps)[2].to_string(), "[::1]:2381");
  for (const char* bad : {"", ",", "https://h:1", "h", "h:0", "h:65536", "h:12x", ":1", "[::1:2", "a:b:c"}) {
    EXPECT_FALSE(parse_endpoints(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace rokka::cluster
