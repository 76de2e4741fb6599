// The replication stream over loopback TCP (cluster/replication_server.h, replication_client.h),
// between in-memory logs (mem_replicated_log.h): a follower ends up byte-identical to its leader
// while the leader appends, C moves only with the in-sync followers' durable acks, a connection
// cut in the middle of a frame resumes without gap or duplicate (the follower's log refuses an
// append that is not at its end), a divergent tail is cut by the epoch rule, a follower refuses a
// leader of a lower epoch, and a frame with a bad CRC ends the session; with confirm_written C
// counts written ends; caught_up_at freezes for a follower that lags.
#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <random>

#include "cluster/replication_client.h"
#include "cluster/replication_server.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/cluster/mem_replicated_log.h"

namespace rokka::cluster {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using testutil::IoThread;
using testutil::MemReplicatedLog;
using testutil::wait_until;
using namespace std::chrono_literals;

constexpr int64_t kSegmentBytes = 1 << 30;
const tcp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);

std::vector<std::byte> random_blob(std::mt19937_64& rng, size_t max) {
  // Mostly small entries, some large ones (several frames' worth of entries, and single entries
  // close to the 1 MiB frame limit).
  size_t n = rng() % 4 == 0 ? rng() % max : rng() % 2000;
  if (rng() % 200 == 0) n = repl::kDataFrameBytes - MemReplicatedLog::kEntryHeader - rng() % 100;
  std::vector<std::byte> b(n);
  for (auto& x : b) x = std::byte{static_cast<uint8_t>(rng())};
  return b;
}

ReplicationServerOptions server_options(int32_t epoch, std::vector<int32_t> in_sync) {
  ReplicationServerOptions o;
  o.cluster_id = "cluster-A";
  o.group = "g1";
  o.leader_id = 1;
  o.epoch = epoch;
  o.segment_bytes = kSegmentBytes;
  o.in_sync = std::move(in_sync);
  return o;
}

ReplicationClientOptions client_options(tcp::endpoint leader, int32_t id = 2) {
  ReplicationClientOptions o;
  o.cluster_id = "cluster-A";
  o.group = "g1";
  o.follower_id = id;
  o.broker_epoch = 100 + id;
  o.segment_bytes = kSegmentBytes;
  o.leader = leader;
  o.backoff_min = 20ms;
  o.backoff_max = 200ms;
  return o;
}

bool same_log(const MemReplicatedLog& a, const MemReplicatedLog& b) {
  return a.log_end() == b.log_end() && a.contents() == b.contents() && a.epochs() == b.epochs();
}

// The leader's and the follower's io threads, logs, server and client, stopped in order.
class ReplicationStream : public ::testing::Test {
 protected:
  void TearDown() override {
    if (client) client->stop();
    if (server) server->stop();
    if (client) {
      EXPECT_TRUE(wait_until([&] { return !client->running(); }, 20s));
    }
    follower_io.stop();
    leader_io.stop();
  }

  tcp::endpoint start_server(int32_t epoch, std::vector<int32_t> in_sync) {
    server = ReplicationServer::create(leader_io.executor(), leader, server_options(epoch, std::move(in_sync)));
    auto bound = server->listen(kLoopback);
    EXPECT_TRUE(bound.ok()) << bound.status().to_string();
    return *bound;
  }
  void start_client(tcp::endpoint at) {
    client = ReplicationClient::create(follower_io.executor(), follower, client_options(at));
    client->start();
  }
  void append_entries(int32_t epoch, int n, size_t max = 64 * 1024) {
    for (int i = 0; i < n; ++i) {
      leader->append(epoch, random_blob(rng, max));
      if (i % 7 == 0 && server) server->notify_appended();
    }
    if (server) server->notify_appended();
  }

  std::mt19937_64 rng{42};
  IoThread leader_io;
  IoThread follower_io;
  std::shared_ptr<MemReplicatedLog> leader = std::make_shared<MemReplicatedLog>();
  std::shared_ptr<MemReplicatedLog> follower = std::make_shared<MemReplicatedLog>();
  std::shared_ptr<ReplicationServer> server;
  std::shared_ptr<ReplicationClient> client;
};

TEST_F(ReplicationStream, FollowerBecomesIdenticalWhileTheLeaderAppends) {
  leader->begin_epoch(1);
  append_entries(1, 200);
  start_client(start_server(1, {1, 2}));
  append_entries(1, 1500);
  ASSERT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 120s))
      << "leader " << leader->log_end() << " follower " << follower->log_end() << " " << client->last_error();
  EXPECT_EQ(follower->entry_count(), 1700u);
  // Everything is durable on both, so C reaches the end, on the leader and then on the follower
  // (the next heartbeat carries it).
  const int64_t end = leader->log_end();
  EXPECT_TRUE(wait_until([&] { return server->confirmed() == end && leader->confirmed() == end; }));
  EXPECT_TRUE(wait_until([&] { return client->confirmed() == end && follower->confirmed() == end; }));
  EXPECT_EQ(client->welcomes(), 1u);  // one session did it all
  EXPECT_TRUE(follower->truncations().empty());
  EXPECT_EQ(server->sessions(), 1u);
}

TEST_F(ReplicationStream, ConfirmMovesOnlyWithTheInSyncFollowersDurableAcks) {
  leader->begin_epoch(1);
  follower->hold_durable(true);  // the follower writes but does not sync
  start_client(start_server(1, {1, 2}));
  append_entries(1, 50);
  const int64_t end = leader->log_end();
  std::atomic<int> answered{0};
  std::atomic<bool> answer_ok{false};
  server->waiters().add(end, std::chrono::steady_clock::now() + 60s, [&](ConfirmOutcome o) {
    answer_ok = o.ok();
    ++answered;
  });
  // The follower has written everything and said so...
  ASSERT_TRUE(wait_until([&] {
    auto p = server->follower(2);
    return p && p->written_end == end;
  })) << client->last_error();
  // ...several heartbeats and their ACKs later, still nothing durable there: C has not moved.
  const auto p = server->follower(2);
  ASSERT_TRUE(wait_until([&] { return server->follower(2)->last_ack > p->last_ack + 300ms; }));
  EXPECT_EQ(server->follower(2)->durable_end, 0);
  EXPECT_EQ(server->confirmed(), 0);
  EXPECT_EQ(leader->confirmed(), 0);
  EXPECT_EQ(answered.load(), 0);
  EXPECT_EQ(follower->confirmed(), 0);
  // Synced: the next ACK moves C to the end, answers the waiter, and the follower learns C.
  follower->hold_durable(false);
  ASSERT_TRUE(wait_until([&] { return server->confirmed() == end; }));
  EXPECT_TRUE(wait_until([&] { return answered.load() == 1; }));
  EXPECT_TRUE(answer_ok.load());
  EXPECT_EQ(leader->confirmed(), end);
  EXPECT_TRUE(wait_until([&] { return follower->confirmed() == end; }));

  // Member 3 joins the in-sync set but never connects: C stays, though 2 acks everything.
  server->set_in_sync({1, 2, 3});
  append_entries(1, 20);
  const int64_t end2 = leader->log_end();
  ASSERT_TRUE(wait_until([&] { return server->follower(2)->durable_end == end2; }));
  const auto ack = server->follower(2)->last_ack;
  ASSERT_TRUE(wait_until([&] { return server->follower(2)->last_ack > ack + 300ms; }));
  EXPECT_EQ(server->confirmed(), end);
  // A waiter for end2 (an acks=all produce) is still waiting on 3.
  std::atomic<int> answered2{0};
  ConfirmOutcome outcome2;
  server->waiters().add(end2, std::chrono::steady_clock::now() + 60s, [&](ConfirmOutcome o) {
    outcome2 = std::move(o);
    ++answered2;
  });
  EXPECT_EQ(answered2.load(), 0);
  // Shrunk back: C reaches the end at once, and the waiter learns the set that confirmed it
  // has two members (min.insync.replicas=3 makes that NOT_ENOUGH_REPLICAS_AFTER_APPEND).
  server->set_in_sync({1, 2});
  EXPECT_TRUE(wait_until([&] { return server->confirmed() == end2; }));
  ASSERT_TRUE(wait_until([&] { return answered2.load() == 1; }));
  EXPECT_TRUE(outcome2.ok());
  EXPECT_EQ(outcome2.in_sync, 2u);
  // The leader alone: its own durable end is C.
  leader->hold_durable(true);
  server->set_in_sync({1});
  append_entries(1, 5);
  const auto ack2 = server->follower(2)->last_ack;
  ASSERT_TRUE(wait_until([&] { return server->follower(2)->last_ack > ack2 + 300ms; }));
  EXPECT_EQ(server->confirmed(), end2);  // the leader's own durable end holds it
  leader->hold_durable(false);
  server->notify_appended();
  EXPECT_TRUE(wait_until([&] { return server->confirmed() == leader->log_end(); }));
}

// confirm_written (store.flush.mode=async): C counts written ends, the leader's log_end and each
// in-sync follower's acked written_end, so it moves while no member has synced anything (the test
// above is the default, durable ends, where it does not). Every in-sync member must still have
// written it.
TEST_F(ReplicationStream, ConfirmWrittenMovesCWhileNoMemberSyncs) {
  leader->begin_epoch(1);
  leader->hold_durable(true);
  follower->hold_durable(true);
  auto options = server_options(1, {1, 2});
  options.confirm_written = true;
  server = ReplicationServer::create(leader_io.executor(), leader, options);
  auto bound = server->listen(kLoopback);
  ASSERT_TRUE(bound.ok());
  start_client(*bound);
  append_entries(1, 50);
  const int64_t end = leader->log_end();
  std::atomic<int> answered{0};
  std::atomic<bool> answer_ok{false};
  server->waiters().add(end, std::chrono::steady_clock::now() + 60s, [&](ConfirmOutcome o) {
    answer_ok = o.ok();
    ++answered;
  });
  ASSERT_TRUE(wait_until([&] { return server->confirmed() == end; })) << client->last_error();
  EXPECT_TRUE(wait_until([&] { return answered.load() == 1; }));
  EXPECT_TRUE(answer_ok.load());
  EXPECT_EQ(leader->confirmed(), end);
  EXPECT_TRUE(wait_until([&] { return follower->confirmed() == end; }));
  EXPECT_EQ(leader->durable_end(), 0);  // nothing synced anywhere
  EXPECT_EQ(follower->durable_end(), 0);
  EXPECT_EQ(server->follower(2)->durable_end, 0);

  // Member 3 joins the in-sync set and never connects: C stays where 2 alone cannot take it.
  server->set_in_sync({1, 2, 3});
  append_entries(1, 20);
  const int64_t end2 = leader->log_end();
  ASSERT_TRUE(wait_until([&] { return server->follower(2)->written_end == end2; }));
  const auto ack = server->follower(2)->last_ack;
  ASSERT_TRUE(wait_until([&] { return server->follower(2)->last_ack > ack + 300ms; }));
  EXPECT_EQ(server->confirmed(), end);
  server->set_in_sync({1, 2});
  EXPECT_TRUE(wait_until([&] { return server->confirmed() == end2; }));
}

TEST_F(ReplicationStream, StoppingTheServerFailsTheWaitersWithTheReason) {
  leader->begin_epoch(1);
  start_server(1, {1, 2});  // follower 2 never connects: nothing is confirmed
  append_entries(1, 3);
  std::atomic<int> answered{0};
  ConfirmOutcome outcome;
  server->waiters().add(leader->log_end(), std::chrono::steady_clock::now() + 60s, [&](ConfirmOutcome o) {
    outcome = std::move(o);
    ++answered;
  });
  server->stop(ConfirmOutcome::Kind::kNotLeader, "demoted: epoch 2 elected");
  ASSERT_TRUE(wait_until([&] { return answered.load() == 1; }));
  EXPECT_EQ(outcome.kind, ConfirmOutcome::Kind::kNotLeader);
  EXPECT_EQ(outcome.reason, "demoted: epoch 2 elected");
  EXPECT_EQ(server->confirmed(), 0);
  // Later waiters are refused at once.
  server->waiters().add(1, std::chrono::steady_clock::now() + 60s, [&](ConfirmOutcome o) {
    EXPECT_EQ(o.kind, ConfirmOutcome::Kind::kNotLeader);
    ++answered;
  });
  EXPECT_EQ(answered.load(), 2);
}

TEST_F(ReplicationStream, RejectedFollowerRetriesAndWritesNothing) {
  leader->begin_epoch(1);
  append_entries(1, 10);
  const auto at = start_server(1, {1, 2});
  auto options = client_options(at);
  options.segment_bytes = kSegmentBytes / 2;  // segments would roll elsewhere: refused
  client = ReplicationClient::create(follower_io.executor(), follower, options);
  client->start();
  ASSERT_TRUE(wait_until([&] { return client->rejects() >= 2; })) << client->last_error();
  EXPECT_NE(client->last_error().find("segment_bytes_mismatch"), std::string::npos) << client->last_error();
  EXPECT_EQ(client->welcomes(), 0u);
  EXPECT_EQ(follower->log_end(), 0);
  EXPECT_FALSE(server->follower(2).has_value());  // never got as far as a session
}

// A TCP proxy between follower and leader that can cut the connection in the middle of a frame:
// it follows the leader's frame headers and, when asked, forwards the next frame only up to 21
// bytes in (header plus 5 payload bytes), then closes both sides.
class CutProxy : public std::enable_shared_from_this<CutProxy> {
 public:
  CutProxy(asio::any_io_executor ex, tcp::endpoint target) : ex_(ex), acceptor_(ex, kLoopback), target_(target) {}
  tcp::endpoint endpoint() const { return acceptor_.local_endpoint(); }
  void start() {
    asio::co_spawn(ex_, [self = shared_from_this()] { return self->accept_loop(); }, asio::detached);
  }
  void stop() {
    asio::post(ex_, [self = shared_from_this()] {
      boost::system::error_code ignored;
      self->acceptor_.close(ignored);
      for (auto& p : self->pairs_) p->close();
    });
  }
  void cut_mid_frame() { cut_requested_ = true; }
  int cuts() const { return cuts_.load(); }

 private:
  struct Pair {
    explicit Pair(asio::any_io_executor ex) : down(ex), up(ex) {}
    tcp::socket down;  // to the follower
    tcp::socket up;    // to the leader
    void close() {
      boost::system::error_code ignored;
      down.close(ignored);
      up.close(ignored);
    }
  };

  asio::awaitable<void> accept_loop() {
    constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
    while (true) {
      auto [ec, s] = co_await acceptor_.async_accept(kNoThrow);
      if (ec) co_return;
      auto pair = std::make_shared<Pair>(ex_);
      pair->down = std::move(s);
      auto [cec] = co_await pair->up.async_connect(target_, kNoThrow);
      if (cec) {
        pair->close();
        continue;
      }
      pairs_.push_back(pair);
      auto self = shared_from_this();
      asio::co_spawn(ex_, [self, pair] { return self->pump_up(pair); }, asio::detached);
      asio::co_spawn(ex_, [self, pair] { return self->pump_down(pair); }, asio::detached);
    }
  }
  asio::awaitable<void> pump_up(std::shared_ptr<Pair> p) {
    constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
    std::array<char, 64 * 1024> buf;
    while (true) {
      auto [ec, n] = co_await p->down.async_read_some(asio::buffer(buf), kNoThrow);
      if (ec) break;
      auto [wec, w] = co_await asio::async_write(p->up, asio::buffer(buf.data(), n), kNoThrow);
      if (wec) break;
    }
    p->close();
  }
  asio::awaitable<void> pump_down(std::shared_ptr<Pair> p) {
    constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
    std::vector<char> buf(256 * 1024);
    uint64_t base = 0;        // stream position of buf[0]
    uint64_t next_start = 0;  // where the next frame's header starts
    std::array<unsigned char, 16> header{};
    size_t header_have = 0;
    uint64_t cut_at = UINT64_MAX;
    while (true) {
      auto [ec, n] = co_await p->up.async_read_some(asio::buffer(buf), kNoThrow);
      if (ec) break;
      for (size_t i = 0; i < n;) {
        const uint64_t pos = base + i;
        if (pos < next_start) {
          i += static_cast<size_t>(std::min<uint64_t>(n - i, next_start - pos));
          continue;
        }
        if (header_have == 0 && cut_at == UINT64_MAX && cut_requested_.exchange(false)) cut_at = next_start + 21;
        const size_t take = std::min(n - i, 16 - header_have);
        std::memcpy(header.data() + header_have, buf.data() + i, take);
        header_have += take;
        i += take;
        if (header_have == 16) {
          const uint32_t len = header[0] | header[1] << 8 | header[2] << 16 | static_cast<uint32_t>(header[3]) << 24;
          next_start += 16 + len;
          header_have = 0;
        }
      }
      size_t forward = n;
      if (cut_at < base + n) forward = static_cast<size_t>(cut_at - base);
      auto [wec, w] = co_await asio::async_write(p->down, asio::buffer(buf.data(), forward), kNoThrow);
      if (wec) break;
      if (forward < n) {
        ++cuts_;
        break;
      }
      base += n;
    }
    p->close();
  }

  asio::any_io_executor ex_;
  tcp::acceptor acceptor_;
  tcp::endpoint target_;
  std::vector<std::shared_ptr<Pair>> pairs_;
  std::atomic<bool> cut_requested_{false};
  std::atomic<int> cuts_{0};
};

TEST_F(ReplicationStream, ConnectionCutMidFrameResumesWithoutGapsOrDuplicates) {
  leader->begin_epoch(1);
  const auto at = start_server(1, {1, 2});
  IoThread proxy_io;
  auto proxy = std::make_shared<CutProxy>(proxy_io.executor(), at);
  proxy->start();
  start_client(proxy->endpoint());
  // The leader appends until the three cuts are done (and at least 3000 entries), so every cut
  // falls while entries stream.
  std::atomic<bool> cuts_done{false};
  std::thread writer([&] {
    std::mt19937_64 wrng(7);
    for (int i = 0; i < 3000 || !cuts_done.load(); ++i) {
      leader->append(1, random_blob(wrng, 128 * 1024));
      if (i % 5 == 0) server->notify_appended();
      if (i % 50 == 0) std::this_thread::sleep_for(2ms);  // let the stream keep up now and then
    }
    server->notify_appended();
  });
  struct JoinOnExit {
    std::atomic<bool>& done;
    std::thread& t;
    ~JoinOnExit() {
      done = true;
      if (t.joinable()) t.join();
    }
  } join_writer{cuts_done, writer};
  for (int cut = 1; cut <= 3; ++cut) {
    const int64_t reached = follower->log_end();
    ASSERT_TRUE(wait_until([&] { return follower->log_end() > reached; }, 60s)) << client->last_error();
    proxy->cut_mid_frame();
    ASSERT_TRUE(wait_until([&] { return proxy->cuts() == cut; }, 60s));
    ASSERT_TRUE(wait_until([&] { return client->welcomes() == static_cast<uint64_t>(cut) + 1; }, 60s))
        << client->last_error();
  }
  cuts_done = true;
  writer.join();
  ASSERT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 120s))
      << "leader " << leader->log_end() << " follower " << follower->log_end() << " " << client->last_error();
  EXPECT_GE(follower->entry_count(), 3000u);
  EXPECT_EQ(follower->entry_count(), leader->entry_count());
  EXPECT_TRUE(follower->truncations().empty());  // each resumption started exactly at the follower's end
  EXPECT_EQ(client->welcomes(), 4u);
  EXPECT_EQ(server->follower(2)->sessions, 4u);
  client->stop();
  proxy->stop();
  ASSERT_TRUE(wait_until([&] { return !client->running(); }));
  proxy_io.stop();
}

TEST_F(ReplicationStream, DivergentTailOfAnOlderEpochIsCutThenCaughtUp) {
  // Both hold the same 50 entries of epoch 1; the follower then took 30 entries of epoch 2 from a
  // leader that died; the new leader (epoch 3) never had them and wrote 40 of its own.
  for (int i = 0; i < 50; ++i) {
    const auto blob = random_blob(rng, 8192);
    leader->append(1, blob);
    follower->append(1, blob);
  }
  const int64_t common = leader->log_end();
  for (int i = 0; i < 30; ++i) follower->append(2, random_blob(rng, 8192));
  ASSERT_GT(follower->log_end(), common);
  leader->begin_epoch(3);
  append_entries(3, 40, 8192);
  start_client(start_server(3, {1, 2}));
  ASSERT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 60s)) << client->last_error();
  EXPECT_EQ(follower->truncations(), std::vector<int64_t>{common});
  EXPECT_EQ(follower->epochs(), (std::vector<EpochStart>{{1, 0}, {3, common}}));
  EXPECT_EQ(client->truncations(), 1u);
  EXPECT_EQ(client->highest_epoch(), 3);
}

TEST_F(ReplicationStream, FollowerRefusesALeaderBelowTheEpochItWasTold) {
  leader->begin_epoch(4);
  append_entries(4, 30);
  const auto at4 = start_server(4, {1, 2});
  client = ReplicationClient::create(follower_io.executor(), follower, client_options(at4));
  client->observe_epoch(5);  // the follower read the group state: epoch 5 was elected
  client->start();
  ASSERT_TRUE(wait_until([&] { return client->refusals() >= 3; })) << client->last_error();
  EXPECT_EQ(follower->log_end(), 0);
  EXPECT_EQ(client->welcomes(), 0u);
  EXPECT_NE(client->last_error().find("below epoch 5"), std::string::npos) << client->last_error();

  // The epoch-5 leader (a second server over the same log, as after the election) is followed.
  auto old_server = server;
  leader->begin_epoch(5);
  append_entries(5, 10);
  const auto at5 = start_server(5, {1, 2});
  client->set_leader(at5);
  ASSERT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 60s)) << client->last_error();
  EXPECT_EQ(client->highest_epoch(), 5);

  // Told of epoch 6 mid-session: the session ends and the epoch-5 leader is refused from then on.
  const uint64_t refused = client->refusals();
  client->observe_epoch(6);
  ASSERT_TRUE(wait_until([&] { return client->refusals() >= refused + 2; })) << client->last_error();
  const int64_t held = follower->log_end();
  append_entries(5, 10);
  const uint64_t refused2 = client->refusals();
  ASSERT_TRUE(wait_until([&] { return client->refusals() >= refused2 + 2; }));
  EXPECT_EQ(follower->log_end(), held);
  old_server->stop();
}

// ---- a raw socket speaking the protocol (blocking, with a poll timeout) ----

bool readable(int fd, std::chrono::milliseconds timeout) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, static_cast<int>(timeout.count())) == 1;
}

// One frame, or nullopt on EOF / error / timeout.
std::optional<std::vector<std::byte>> read_raw_frame(tcp::socket& s) {
  std::vector<std::byte> frame(repl::kHeaderBytes);
  auto read_exact = [&](std::byte* at, size_t n) {
    while (n > 0) {
      if (!readable(s.native_handle(), 20s)) return false;
      boost::system::error_code ec;
      const size_t got = s.read_some(asio::buffer(at, n), ec);
      if (ec) return false;
      at += got;
      n -= got;
    }
    return true;
  };
  if (!read_exact(frame.data(), repl::kHeaderBytes)) return std::nullopt;
  auto h = repl::decode_header(frame);
  if (!h.ok()) return std::nullopt;
  frame.resize(repl::kHeaderBytes + h->payload_bytes);
  if (!read_exact(frame.data() + repl::kHeaderBytes, h->payload_bytes)) return std::nullopt;
  return frame;
}

// True once the peer closed (frames before that are read and dropped), false on a 20 s timeout.
bool closed_by_peer(tcp::socket& s) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  std::array<char, 4096> buf;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!readable(s.native_handle(), 1s)) continue;
    boost::system::error_code ec;
    s.read_some(asio::buffer(buf), ec);
    if (ec) return true;
  }
  return false;
}

repl::Hello raw_hello(const std::string& group = "g1") {
  repl::Hello h;
  h.cluster_id = "cluster-A";
  h.group = group;
  h.follower_id = 9;
  h.segment_bytes = kSegmentBytes;
  return h;
}

TEST_F(ReplicationStream, FrameWithABadCrcClosesTheSession) {
  leader->begin_epoch(1);
  append_entries(1, 20);
  const auto at = start_server(1, {1});
  asio::io_context io;
  {  // A HELLO whose payload CRC fails: closed without an answer.
    tcp::socket s(io);
    s.connect(at);
    auto frame = repl::encode(raw_hello());
    frame.back() ^= std::byte{0x40};
    asio::write(s, asio::buffer(frame));
    EXPECT_FALSE(read_raw_frame(s).has_value());
    EXPECT_TRUE(closed_by_peer(s));
  }
  {  // A session past WELCOME, then an ACK whose header CRC fails: the session ends.
    tcp::socket s(io);
    s.connect(at);
    asio::write(s, asio::buffer(repl::encode(raw_hello())));
    auto welcome = read_raw_frame(s);
    ASSERT_TRUE(welcome.has_value());
    auto decoded = repl::decode_frame(*welcome);
    ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
    EXPECT_EQ(std::get<repl::Welcome>(*decoded).epoch, 1);
    EXPECT_EQ(std::get<repl::Welcome>(*decoded).truncate_to, 0);
    auto data = read_raw_frame(s);  // the log from 0
    ASSERT_TRUE(data.has_value());
    auto d = repl::decode_frame(*data);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(std::get<repl::Data>(*d).header.from_pos, 0);
    ASSERT_TRUE(wait_until([&] { return server->sessions() == 1; }));
    // A valid ACK first (the session stays), then a corrupt one.
    asio::write(s, asio::buffer(repl::encode(repl::Ack{0, 0})));
    auto bad = repl::encode(repl::Ack{0, 0});
    bad[13] ^= std::byte{0x01};  // inside header_crc
    asio::write(s, asio::buffer(bad));
    EXPECT_TRUE(closed_by_peer(s));
    EXPECT_TRUE(wait_until([&] { return server->sessions() == 0; }));
  }
  {  // An ACK beyond what was sent would inflate C: refused, the session ends.
    tcp::socket s(io);
    s.connect(at);
    asio::write(s, asio::buffer(repl::encode(raw_hello())));
    ASSERT_TRUE(read_raw_frame(s).has_value());
    asio::write(s, asio::buffer(repl::encode(repl::Ack{1 << 30, 1 << 30})));
    EXPECT_TRUE(closed_by_peer(s));
  }
  {  // The wrong group: REJECT with the reason, then closed.
    tcp::socket s(io);
    s.connect(at);
    asio::write(s, asio::buffer(repl::encode(raw_hello("g2"))));
    auto frame = read_raw_frame(s);
    ASSERT_TRUE(frame.has_value());
    auto decoded = repl::decode_frame(*frame);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(std::get<repl::Reject>(*decoded).reason, repl::RejectReason::kWrongGroup);
    EXPECT_TRUE(closed_by_peer(s));
  }
  {  // A follower that has seen a later epoch than the leader's: REJECT stale_epoch.
    tcp::socket s(io);
    s.connect(at);
    auto hello = raw_hello();
    hello.epochs = {{7, 0}};
    asio::write(s, asio::buffer(repl::encode(hello)));
    auto frame = read_raw_frame(s);
    ASSERT_TRUE(frame.has_value());
    auto decoded = repl::decode_frame(*frame);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(std::get<repl::Reject>(*decoded).reason, repl::RejectReason::kStaleEpoch);
  }
  // The server is still serving after all that: a real follower catches up.
  start_client(at);
  EXPECT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 60s)) << client->last_error();
}

// caught_up_at: the arrival of the last ACK that reached the leader's log end of the moment the
// acknowledged frame left. A follower that keeps up (every heartbeat finds it at the end) sees it
// advance; one that acks every frame but holds no more than it had (follower 9, by hand) keeps the
// time it last had everything, however many ACKs it sends, until it acks the end again.
TEST_F(ReplicationStream, CaughtUpAtAdvancesWhileAFollowerKeepsUpAndFreezesWhileItLags) {
  using Clock = std::chrono::steady_clock;
  leader->begin_epoch(1);
  append_entries(1, 20, 1000);
  const auto at = start_server(1, {1});
  start_client(at);
  ASSERT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 60s)) << client->last_error();
  ASSERT_TRUE(wait_until([&] {
    auto p = server->follower(2);
    return p && p->caught_up_at != Clock::time_point{};
  }));
  const auto first = server->follower(2)->caught_up_at;
  EXPECT_TRUE(wait_until([&] { return server->follower(2)->caught_up_at > first + 300ms; }));

  asio::io_context io;
  tcp::socket s(io);
  s.connect(at);
  asio::write(s, asio::buffer(repl::encode(raw_hello())));
  struct Sent {
    int64_t from_pos = 0;
    int64_t bytes = 0;  // of entries: 0 for a heartbeat
  };
  auto next_data = [&]() -> std::optional<Sent> {
    auto f = read_raw_frame(s);
    if (!f) return std::nullopt;
    auto d = repl::decode_frame(*f);
    if (!d.ok() || !std::holds_alternative<repl::Data>(*d)) return std::nullopt;
    const auto& data = std::get<repl::Data>(*d);
    return Sent{data.header.from_pos, static_cast<int64_t>(data.bytes.size())};
  };
  // The ACK's durable_end (never above its written_end) marks which ACK the leader has taken in.
  auto ack = [&](int64_t written, int64_t durable) {
    asio::write(s, asio::buffer(repl::encode(repl::Ack{.written_end = written, .durable_end = durable})));
  };
  auto progress9 = [&] { return server->follower(9).value_or(FollowerProgress{}); };
  ASSERT_TRUE(read_raw_frame(s).has_value());  // WELCOME
  auto d = next_data();
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->from_pos, 0);
  const int64_t held = d->bytes;
  ASSERT_EQ(held, leader->log_end());  // 20 small entries: one frame
  ack(held, held);
  ASSERT_TRUE(wait_until([&] { return progress9().caught_up_at != Clock::time_point{}; }));

  // The leader appends; 9 acks every frame with the end it had.
  for (int i = 0; i < 5; ++i) leader->append(1, random_blob(rng, 1000));
  server->notify_appended();
  const int64_t end = leader->log_end();
  for (int64_t sent = held; sent < end;) {
    d = next_data();
    ASSERT_TRUE(d.has_value());
    if (d->bytes > 0) {
      ASSERT_EQ(d->from_pos, sent);
      sent += d->bytes;
    }
    ack(held, sent == end ? held - 1 : held);  // every frame after this one left with the log at `end`
  }
  ASSERT_TRUE(wait_until([&] { return progress9().durable_end == held - 1; }));
  const auto frozen = progress9().caught_up_at;
  for (int i = 0; i < 8; ++i) {  // heartbeats, 100 ms apart
    d = next_data();
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->bytes, 0);
    ack(held, i == 7 ? held - 2 : held - 1);
  }
  ASSERT_TRUE(wait_until([&] { return progress9().durable_end == held - 2; }));
  const auto lagging = progress9();
  EXPECT_EQ(lagging.caught_up_at, frozen);
  EXPECT_GT(lagging.last_ack, frozen + 300ms);
  EXPECT_EQ(lagging.written_end, held);
  EXPECT_TRUE(lagging.connected);
  // Follower 2 kept up meanwhile.
  EXPECT_GT(server->follower(2)->caught_up_at, frozen + 300ms);

  // 9 acks the end: caught up again.
  d = next_data();
  ASSERT_TRUE(d.has_value());
  ack(end, end);
  EXPECT_TRUE(wait_until([&] { return progress9().caught_up_at > lagging.last_ack; }));

  // More ACKs than DATA frames sent: nothing to acknowledge, the session ends.
  const auto extra = repl::encode(repl::Ack{.written_end = end, .durable_end = end});
  for (int i = 0; i < 50; ++i) {
    boost::system::error_code ec;
    asio::write(s, asio::buffer(extra), ec);
    if (ec) break;  // closed already
  }
  EXPECT_TRUE(closed_by_peer(s));
  EXPECT_TRUE(wait_until([&] { return !progress9().connected; }));
}

// Silence ends a session on both sides: a follower that never acks is dropped by the leader after
// idle_timeout, and a follower whose leader goes quiet after WELCOME reconnects after its own.
TEST_F(ReplicationStream, SilentPeersAreDroppedAfterTheIdleTimeout) {
  leader->begin_epoch(1);
  auto options = server_options(1, {1});
  options.idle_timeout = 300ms;
  server = ReplicationServer::create(leader_io.executor(), leader, options);
  auto bound = server->listen(kLoopback);
  ASSERT_TRUE(bound.ok());
  asio::io_context io;
  tcp::socket s(io);
  s.connect(*bound);
  asio::write(s, asio::buffer(repl::encode(raw_hello())));
  ASSERT_TRUE(read_raw_frame(s).has_value());  // WELCOME; then heartbeats, never acked
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(closed_by_peer(s));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 250ms);
  EXPECT_TRUE(wait_until([&] { return server->sessions() == 0; }));

  // A "leader" that answers HELLO with WELCOME and then says nothing.
  tcp::acceptor quiet(io, kLoopback);
  auto client_opts = client_options(quiet.local_endpoint());
  client_opts.idle_timeout = 300ms;
  client = ReplicationClient::create(follower_io.executor(), follower, client_opts);
  client->start();
  for (int i = 0; i < 2; ++i) {
    tcp::socket conn(io);
    ASSERT_TRUE(readable(quiet.native_handle(), 20s));  // the follower connects (again)
    quiet.accept(conn);
    ASSERT_TRUE(read_raw_frame(conn).has_value());  // HELLO
    asio::write(conn, asio::buffer(repl::encode(repl::Welcome{.leader_id = 1, .epoch = 1})));
    EXPECT_TRUE(closed_by_peer(conn));  // the follower gave up on the silence
  }
  EXPECT_TRUE(wait_until([&] { return client->welcomes() >= 2; }));
  EXPECT_NE(client->last_error().find("deadline"), std::string::npos) << client->last_error();
}

// The leader's DATA frames never cross one of its epoch boundaries, and never exceed the frame limit.
TEST_F(ReplicationStream, DataFramesStopAtEpochBoundaries) {
  leader->begin_epoch(1);
  append_entries(1, 5, 1000);
  const int64_t e2 = leader->log_end();
  leader->begin_epoch(2);
  append_entries(2, 5, 1000);
  const auto at = start_server(2, {1});
  asio::io_context io;
  tcp::socket s(io);
  s.connect(at);
  asio::write(s, asio::buffer(repl::encode(raw_hello())));
  ASSERT_TRUE(read_raw_frame(s).has_value());  // WELCOME
  std::vector<std::pair<int64_t, size_t>> frames;
  int64_t reached = 0;
  while (reached < leader->log_end()) {
    auto f = read_raw_frame(s);
    ASSERT_TRUE(f.has_value());
    auto d = repl::decode_frame(*f);
    ASSERT_TRUE(d.ok());
    const auto& data = std::get<repl::Data>(*d);
    if (data.bytes.empty()) continue;
    EXPECT_EQ(data.header.from_pos, reached);
    frames.emplace_back(data.header.from_pos, data.bytes.size());
    reached += static_cast<int64_t>(data.bytes.size());
  }
  ASSERT_EQ(frames.size(), 2u);  // all of epoch 1 in one frame, all of epoch 2 in the next
  EXPECT_EQ(frames[0], (std::pair<int64_t, size_t>{0, static_cast<size_t>(e2)}));
  EXPECT_EQ(frames[1].first, e2);
}

// One entry larger than a frame's 1 MiB goes alone in its DATA when both sides are given a bound
// that holds it; a follower given the old 1 MiB bound is refused at HELLO (it would refuse that
// frame from its header at every reconnection) and writes nothing.
TEST_F(ReplicationStream, AnEntryLargerThanAFrameGoesAloneWhenTheBoundHoldsIt) {
  constexpr size_t kBig = size_t{4} << 20;
  leader->begin_epoch(1);
  append_entries(1, 30);
  std::vector<std::byte> big(kBig);
  for (auto& b : big) b = std::byte{static_cast<uint8_t>(rng())};
  const int64_t big_start = leader->log_end();
  leader->append(1, big);
  append_entries(1, 30);
  const int64_t max_entry = static_cast<int64_t>(kBig + MemReplicatedLog::kEntryHeader);

  // The old bound: refused with the reason, again after each backoff, nothing written.
  auto so = server_options(1, {1, 2});
  so.max_entry_bytes = max_entry;
  server = ReplicationServer::create(leader_io.executor(), leader, so);
  auto bound = server->listen(kLoopback);
  ASSERT_TRUE(bound.ok());
  client = ReplicationClient::create(follower_io.executor(), follower, client_options(*bound));
  client->start();
  ASSERT_TRUE(wait_until([&] { return client->rejects() >= 2; }, 60s)) << client->last_error();
  EXPECT_EQ(client->welcomes(), 0u);
  EXPECT_EQ(follower->log_end(), 0);
  EXPECT_GT(big_start, 0);
  EXPECT_NE(client->last_error().find("entry_bound_too_small"), std::string::npos) << client->last_error();
  client->stop();
  ASSERT_TRUE(wait_until([&] { return !client->running(); }, 20s));

  // Both sides given the store's largest entry: it replicates, and the follower ends identical.
  auto co = client_options(*bound);
  co.max_entry_bytes = max_entry;
  client = ReplicationClient::create(follower_io.executor(), follower, co);
  client->start();
  ASSERT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 120s))
      << "leader " << leader->log_end() << " follower " << follower->log_end() << " " << client->last_error();
  EXPECT_EQ(follower->entry_count(), 61u);
  const int64_t end = leader->log_end();
  EXPECT_TRUE(wait_until([&] { return server->confirmed() == end && follower->confirmed() == end; }));
}

// A failover: the old leader's endpoint failed for a while (the backoff grew), then the follower
// is told the new leader's endpoint a moment before that leader listens. It must not wait out the
// backoff the old endpoint built up (up to backoff_max, 2 s in the broker: acks=all waits for it).
TEST_F(ReplicationStream, AMovedLeaderIsTriedAfterTheShortestBackoff) {
  asio::io_context raw;
  tcp::acceptor old_leader(raw, kLoopback);
  auto options = client_options(old_leader.local_endpoint());
  options.backoff_min = 10ms;
  options.backoff_max = 1h;
  client = ReplicationClient::create(follower_io.executor(), follower, options);
  client->start();
  // Ten sessions accepted and closed at once (no WELCOME): the waits double, 10 ms up to 5.12 s.
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(readable(old_leader.native_handle(), 20s)) << "session " << i;
    tcp::socket s(raw);
    old_leader.accept(s);
  }
  old_leader.close();

  tcp::endpoint new_leader;
  {
    tcp::acceptor reserve(raw, kLoopback);
    new_leader = reserve.local_endpoint();
  }
  client->set_leader(new_leader);
  // Its first attempt there is refused (nothing listens yet).
  const std::string refused = "connect to 127.0.0.1:" + std::to_string(new_leader.port());
  ASSERT_TRUE(wait_until([&] { return client->last_error().find(refused) != std::string::npos; }))
      << client->last_error();

  leader->begin_epoch(1);
  append_entries(1, 20);
  server = ReplicationServer::create(leader_io.executor(), leader, server_options(1, {1, 2}));
  ASSERT_TRUE(server->listen(new_leader).ok());
  // Without the reset the next attempt comes 10.24 s after the refused one.
  EXPECT_TRUE(wait_until([&] { return same_log(*leader, *follower); }, 5s)) << client->last_error();
}

}  // namespace
}  // namespace rokka::cluster
