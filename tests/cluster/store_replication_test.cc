// The replication stream over real Stores (cluster/store_log.h): a leader Store (kLeader) behind a
// ReplicationServer and a follower Store (kFollower) behind a ReplicationClient, over loopback
// TCP, in temp dirs. A random workload runs on the leader while the follower streams (plain,
// idempotent and transactional batches over many partitions, partitions created and deleted, a
// compaction rewrite, delete_records, committed offsets through MetaStore), and the test checks
// what a user would notice: identical segment files, index files, meta keys, epochs, offsets and
// read() bytes per partition; high watermarks following the leader's C on both; a connection cut
// mid-stream, a follower crashed and reopened, and a follower wiped, each ending identical; a
// wiped follower below the leader's log_begin (retention deleted the start) re-bootstrapped from
// a snapshot and following on; an acks=all waiter answered only once the follower acked; a 4 MiB
// batch replicated.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <random>
#include <thread>
#include <utility>

#include "cluster/replication_client.h"
#include "cluster/replication_server.h"
#include "cluster/store_log.h"
#include "storage/format.h"
#include "storage/meta_keys.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::cluster {
namespace {

namespace asio = boost::asio;
namespace fb = storage::format::batch;
using asio::ip::tcp;
using storage::PartitionId;
using storage::Result;
using storage::Role;
using storage::Status;
using storage::Store;
using storage::StoreOptions;
using testutil::IoThread;
using testutil::make_batch;
using testutil::make_control_batch;
using testutil::TempDir;
using testutil::wait_until;
using storage::test::files_in;
using storage::test::expect_same_files;
using storage::test::PartitionView;
using storage::test::set_role;
using storage::test::wait_for;
using storage::test::Workload;
using namespace std::chrono_literals;

const tcp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);
constexpr int32_t kEpoch = 3;
constexpr int32_t kLeaderId = 1;
constexpr int32_t kFollowerId = 2;

// The journal without the node-local keys (each member's own: storage/meta_keys.h).
std::vector<std::pair<std::string, std::string>> replicated_meta(Store& s) {
  auto all = s.meta().scan("");
  std::erase_if(all, [](const auto& kv) { return storage::meta_prefix::node_local(kv.first); });
  return all;
}

StoreOptions store_options(const std::filesystem::path& dir) {
  StoreOptions o = storage::test::small_options(dir);  // 64 KiB segments: many rolls, blanks copied too
  return o;
}

class StoreLogReplication : public ::testing::Test {
 protected:
  void SetUp() override {
    leader_options = store_options(ldir.path());
    auto l = Store::open(leader_options);
    ASSERT_TRUE(l.ok()) << l.status().to_string();
    leader = std::shared_ptr<Store>(std::move(*l));
    ASSERT_TRUE(set_role(*leader, Role::kLeader, kEpoch).ok());
    leader_log = std::make_shared<StoreLog>(leader, leader_options.max_append_bytes);
    ASSERT_NO_FATAL_FAILURE(open_follower());
  }

  void TearDown() override {
    stop_client();
    if (server) server->stop();
    follower_io.stop();
    leader_io.stop();
    follower_log.reset();
    if (follower) { EXPECT_TRUE(follower->close().ok()); }
    leader_log.reset();
    if (leader) { EXPECT_TRUE(leader->close().ok()); }
  }

  void open_follower() {
    follower_options = store_options(fdir.path());
    auto f = Store::open(follower_options);
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    follower = std::shared_ptr<Store>(std::move(*f));
    ASSERT_TRUE(set_role(*follower, Role::kFollower, kEpoch).ok());
    follower_log = std::make_shared<StoreLog>(follower, follower_options.max_append_bytes);
  }

  tcp::endpoint start_server() {
    ReplicationServerOptions o;
    o.cluster_id = "cluster-A";
    o.group = "g1";
    o.leader_id = kLeaderId;
    o.epoch = kEpoch;
    o.segment_bytes = leader_options.segment_bytes;
    o.in_sync = {kLeaderId, kFollowerId};
    o.max_entry_bytes = leader_log->max_entry_bytes();
    o.heartbeat = heartbeat;
    o.idle_timeout = idle_timeout;
    server = ReplicationServer::create(leader_io.executor(), leader_log, o);
    auto bound = server->listen(kLoopback);
    EXPECT_TRUE(bound.ok()) << bound.status().to_string();
    endpoint = *bound;
    return endpoint;
  }

  void start_client() {
    ReplicationClientOptions o;
    o.cluster_id = "cluster-A";
    o.group = "g1";
    o.follower_id = kFollowerId;
    o.broker_epoch = 102;
    o.segment_bytes = follower_options.segment_bytes;
    o.leader = endpoint;
    o.max_entry_bytes = follower_log->max_entry_bytes();
    o.backoff_min = 20ms;
    o.backoff_max = 200ms;
    o.idle_timeout = idle_timeout;
    client = ReplicationClient::create(follower_io.executor(), follower_log, o);
    client->start();
  }

  void stop_client() {
    if (!client) return;
    client->stop();
    EXPECT_TRUE(wait_until([&] { return !client->running(); }, 30s));
    client.reset();
  }

  // Workload steps, waking the server now and then (its heartbeat finds the rest).
  void steps(Workload& w, int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_NO_FATAL_FAILURE(w.step());
      if (server && i % 5 == 0) server->notify_appended();
    }
    if (server) server->notify_appended();
  }

  // The follower holds everything the leader wrote, and C (on the leader's server, the leader's
  // and the follower's stores) reached the leader's end.
  void wait_caught_up() {
    const int64_t end = leader->log_end();
    ASSERT_TRUE(wait_until([&] { return follower->log_end() == end; }, 120s))
        << "leader " << end << " follower " << follower->log_end() << ": " << (client ? client->last_error() : "");
    ASSERT_TRUE(wait_until([&] { return server->confirmed() == end && client && client->confirmed() == end; }, 60s))
        << "C " << server->confirmed() << " follower's C " << (client ? client->confirmed() : -1) << " end " << end;
  }

  // What a user would notice, once caught up: the same segment and index files byte for byte,
  // meta keys, epochs, and per partition the same offsets and read() bytes, with high watermarks
  // at the next offset on both (C reached the end).
  void expect_identical(PartitionId partitions) {
    EXPECT_EQ(leader->log_begin(), follower->log_begin());
    EXPECT_EQ(leader->log_end(), follower->log_end());
    EXPECT_GT(files_in(ldir.path() / "commitlog").size(), 3u);  // rolled several times: blanks were copied too
    expect_same_files(ldir.path() / "commitlog", fdir.path() / "commitlog", "segment");
    EXPECT_TRUE(leader->epochs() == follower->epochs());
    ASSERT_FALSE(leader->epochs().empty());
    EXPECT_EQ(leader->epochs().back().epoch, kEpoch);
    EXPECT_EQ(replicated_meta(*leader), replicated_meta(*follower));
    // High watermarks follow C: wait for them on both (set_confirmed is queued on the writers).
    PartitionId lagging = 0;
    EXPECT_TRUE(wait_until([&] {
      for (lagging = 0; lagging < partitions; ++lagging) {
        auto a = leader->offsets(lagging), b = follower->offsets(lagging);
        if (!a.ok() || !b.ok()) {
          if (a.status().code() != b.status().code()) return false;
          continue;
        }
        if (a->high_watermark != a->next_offset || b->high_watermark != b->next_offset) return false;
      }
      return true;
    }, 30s)) << "partition " << lagging << ": high watermarks did not reach the next offset";
    size_t batches = 0;
    for (PartitionId pid = 0; pid < partitions; ++pid) {
      const PartitionView a = storage::test::view(*leader, pid, storage::test::ReadUntil::kHighWatermark),
                        b = storage::test::view(*follower, pid, storage::test::ReadUntil::kHighWatermark);
      EXPECT_EQ(a.code, b.code) << "partition " << pid;
      EXPECT_EQ(a.offsets.log_start_offset, b.offsets.log_start_offset) << "partition " << pid;
      EXPECT_EQ(a.offsets.next_offset, b.offsets.next_offset) << "partition " << pid;
      EXPECT_EQ(a.offsets.high_watermark, b.offsets.high_watermark) << "partition " << pid;
      EXPECT_EQ(a.offsets.last_stable_offset, b.offsets.last_stable_offset) << "partition " << pid;
      EXPECT_TRUE(a.batches == b.batches) << "partition " << pid << ": " << a.batches.size() << " vs "
                                          << b.batches.size() << " batches";
      batches += b.batches.size();
    }
    EXPECT_GT(batches, 100u);  // the comparison compared something
  }

  // The index files, byte for byte (called after expect_identical, whose high watermark wait went
  // through both writers' queues after the last entry).
  void expect_same_index() {
    ASSERT_FALSE(files_in(ldir.path() / "index").empty());
    expect_same_files(ldir.path() / "index", fdir.path() / "index", "index file");
  }

  std::chrono::milliseconds heartbeat{100}, idle_timeout{5000};  // the stream's defaults
  TempDir ldir, fdir;
  StoreOptions leader_options, follower_options;
  std::shared_ptr<Store> leader, follower;
  std::shared_ptr<StoreLog> leader_log, follower_log;
  IoThread leader_io, follower_io;
  std::shared_ptr<ReplicationServer> server;
  std::shared_ptr<ReplicationClient> client;
  tcp::endpoint endpoint;
};

TEST_F(StoreLogReplication, TheAdapterMapsTheStoreOneToOne) {
  Workload w(*leader, 1);
  w.create_partitions(3);
  for (int i = 0; i < 30; ++i) ASSERT_NO_FATAL_FAILURE(w.step());
  EXPECT_EQ(leader_log->log_begin(), leader->log_begin());
  EXPECT_EQ(leader_log->log_end(), leader->log_end());
  EXPECT_GT(leader_log->log_end(), 0);
  EXPECT_EQ(leader_log->durable_end(), leader->durable_end());
  EXPECT_TRUE(leader_log->epochs() == leader->epochs());
  EXPECT_EQ(leader_log->epochs().back(), (EpochStart{kEpoch, 0}));
  EXPECT_EQ(leader_log->max_entry_bytes(), leader_options.max_append_bytes + storage::format::kEntryHeaderSize);
  auto a = leader_log->read_log(0, 5000);
  auto b = leader->read_log(0, 5000);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->bytes.empty());
  EXPECT_TRUE(std::equal(a->bytes.begin(), a->bytes.end(), b->bytes.begin(), b->bytes.end()));
  EXPECT_EQ(leader_log->read_log(leader->log_end() + 1, 10).status().code(), storage::StatusCode::kOutOfRange);

  // Follower: append_replicated and truncate_to through the adapter, answered with the Store's
  // Status (a refusal too), and set_confirmed moving the follower's high watermarks.
  auto status_of = [](auto op) { return wait_for<Status>([&](auto cb) { op(storage::StatusCallback(cb)); }); };
  const auto cut = static_cast<int64_t>(a->bytes.size());
  EXPECT_EQ(status_of([&](auto cb) { follower_log->append_replicated(1, a->bytes, cb); }).code(),
            storage::StatusCode::kConflict);
  ASSERT_TRUE(status_of([&](auto cb) { follower_log->append_replicated(0, a->bytes, cb); }).ok());
  EXPECT_EQ(follower_log->log_end(), cut);
  for (int64_t at = cut; at < leader->log_end();) {
    auto s = leader->read_log(at, 1 << 20);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(status_of([&](auto cb) { follower_log->append_replicated(at, s->bytes, cb); }).ok());
    at += static_cast<int64_t>(s->bytes.size());
  }
  EXPECT_EQ(follower_log->log_end(), leader->log_end());
  EXPECT_TRUE(follower_log->epochs() == leader->epochs());
  const auto before_confirm = follower->offsets(0);
  ASSERT_TRUE(before_confirm.ok()) << before_confirm.status().to_string();
  EXPECT_GT(before_confirm->next_offset, 0);
  EXPECT_EQ(before_confirm->high_watermark, 0);  // nothing confirmed yet
  follower_log->set_confirmed(follower_log->log_end());
  EXPECT_TRUE(wait_until([&] {
    auto o = follower->offsets(0);
    return o.ok() && o->next_offset > 0 && o->high_watermark == o->next_offset;
  }));
  ASSERT_TRUE(status_of([&](auto cb) { follower_log->truncate_to(cut, cb); }).ok());
  EXPECT_EQ(follower_log->log_end(), cut);
  EXPECT_EQ(follower->log_end(), cut);
}

TEST_F(StoreLogReplication, FollowerStoreEndsIdenticalWhileTheLeaderWorks) {
  Workload w(*leader, 42);
  w.create_partitions(16);
  steps(w, 100);  // some before the follower connects
  start_server();
  start_client();
  for (int round = 0; round < 6; ++round) {
    ASSERT_NO_FATAL_FAILURE(steps(w, 80));
    if (round == 1) {
      ASSERT_NO_FATAL_FAILURE(w.maintenance(/*require_rewrite=*/true));
      w.create_partitions(4);
    }
    if (round == 3) { ASSERT_NO_FATAL_FAILURE(w.maintenance(/*require_rewrite=*/true)); }
  }
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  EXPECT_GT(w.idempotent(), 50u);
  expect_identical(w.partitions());
  expect_same_index();
  EXPECT_EQ(client->welcomes(), 1u);  // one session did it all
  EXPECT_EQ(client->truncations(), 0u);
  auto p = server->follower(kFollowerId);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->durable_end, leader->log_end());
}

// The Store tells the server of every append (Store::set_log_listener through the StoreLog): a
// fresh batch reaches the follower, and becomes readable there, long before a heartbeat. Nothing
// here calls notify_appended().
TEST_F(StoreLogReplication, AFreshAppendLeavesAtOnceNotAtTheNextHeartbeat) {
  heartbeat = 10s;
  idle_timeout = 60s;  // no session ends for silence in this test
  const auto pids = storage::test::create(*leader, 1);
  ASSERT_EQ(pids.size(), 1u);
  start_server();
  start_client();
  const int64_t before = leader->log_end();
  ASSERT_TRUE(wait_until([&] { return follower->log_end() == before && server->confirmed() == before; }, 30s))
      << client->last_error();
  for (int round = 0; round < 3; ++round) {
    const auto sent = std::chrono::steady_clock::now();
    auto info = storage::test::append(*leader, pids[0], make_batch({.records = 2, .value_bytes = 100}));
    ASSERT_TRUE(info.ok()) << info.status().to_string();
    const int64_t next = info->base_offset + 2;
    EXPECT_TRUE(wait_until([&] {
      auto o = follower->offsets(pids[0]);
      return o.ok() && o->high_watermark == next;
    }, 5s)) << "round " << round << ": the follower's log ends at " << follower->log_end() << ", the leader's at "
            << leader->log_end();
    EXPECT_LT(std::chrono::steady_clock::now() - sent, 5s);
    ASSERT_TRUE(wait_until([&] { return leader->offsets(pids[0])->high_watermark == next; }, 5s));
    const auto copy = storage::test::read_one(*follower, pids[0], info->base_offset);
    EXPECT_FALSE(copy.empty());
    EXPECT_EQ(copy, storage::test::read_one(*leader, pids[0], info->base_offset));
  }
  EXPECT_EQ(client->welcomes(), 1u);
}

TEST_F(StoreLogReplication, CutConnectionsResumeWithNothingLostOrDuplicated) {
  Workload w(*leader, 7);
  w.create_partitions(12);
  start_server();
  start_client();
  int behind = 0;  // cuts made while entries were still streaming to the follower
  for (int cut = 0; cut < 5; ++cut) {
    ASSERT_NO_FATAL_FAILURE(steps(w, 60));
    // The follower's socket closed under the stream (it was in the middle of something: the
    // leader was still sending), then it reconnects to the same leader.
    const uint64_t before = client->welcomes();
    if (follower->log_end() < leader->log_end()) ++behind;
    client->set_leader(endpoint);
    ASSERT_TRUE(wait_until([&] { return client->welcomes() > before; }, 30s)) << client->last_error();
    if (cut == 2) { ASSERT_NO_FATAL_FAILURE(w.maintenance(/*require_rewrite=*/true)); }
  }
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  EXPECT_GE(client->welcomes(), 6u);
  EXPECT_GT(behind, 0);  // cut mid-stream, not only between catch-ups (in practice all five are)
  EXPECT_EQ(client->truncations(), 0u);  // every session resumed at the follower's end
  expect_identical(w.partitions());
  expect_same_index();
}

TEST_F(StoreLogReplication, AKilledFollowerReopensAndResumesFromItsLogEnd) {
  Workload w(*leader, 11);
  w.create_partitions(10);
  start_server();
  start_client();
  ASSERT_NO_FATAL_FAILURE(steps(w, 150));
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  ASSERT_NO_FATAL_FAILURE(steps(w, 40));  // the follower may be anywhere in these
  // Killed: the session ends and the Store is destroyed without close() (a crash).
  stop_client();
  const int64_t had = follower->log_end();
  ASSERT_GT(had, 0);
  follower_log.reset();
  follower.reset();
  ASSERT_NO_FATAL_FAILURE(steps(w, 60));  // the leader goes on meanwhile
  ASSERT_NO_FATAL_FAILURE(open_follower());
  EXPECT_EQ(follower->log_end(), had);  // sync flush: everything it acked survived the crash
  const auto p = server->follower(kFollowerId);
  ASSERT_TRUE(p.has_value());
  EXPECT_LE(p->durable_end, had);
  start_client();
  ASSERT_NO_FATAL_FAILURE(steps(w, 60));
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  EXPECT_EQ(client->truncations(), 0u);  // resumed from its log end: nothing cut, nothing re-sent before it
  expect_identical(w.partitions());
  expect_same_index();
}

// Issue 24's required test: a follower whose directory was wiped rebuilds from the leader, log
// and index byte-identical.
TEST_F(StoreLogReplication, AWipedFollowerRebuildsByteIdenticalLogAndIndex) {
  Workload w(*leader, 23);
  w.create_partitions(14);
  start_server();
  start_client();
  ASSERT_NO_FATAL_FAILURE(steps(w, 120));
  ASSERT_NO_FATAL_FAILURE(w.maintenance(/*require_rewrite=*/true));
  ASSERT_NO_FATAL_FAILURE(steps(w, 120));
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  stop_client();
  follower_log.reset();
  ASSERT_TRUE(follower->close().ok());
  follower.reset();
  std::filesystem::remove_all(fdir.path());
  std::filesystem::create_directories(fdir.path());
  ASSERT_NO_FATAL_FAILURE(steps(w, 60));
  ASSERT_NO_FATAL_FAILURE(open_follower());
  ASSERT_EQ(follower->log_end(), 0);
  start_client();
  ASSERT_NO_FATAL_FAILURE(steps(w, 60));
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  expect_identical(w.partitions());
  expect_same_index();
  // And it stays so across its own clean reopen.
  stop_client();
  follower_log.reset();
  ASSERT_TRUE(follower->close().ok());
  follower.reset();
  ASSERT_NO_FATAL_FAILURE(open_follower());
  follower->set_confirmed(follower->log_end());
  expect_identical(w.partitions());
}

// Re-bootstrap below log_begin (docs/cluster.md "Re-bootstrap"): the leader's retention deleted
// the start of its log, so a wiped follower cannot be sent it; it is WELCOMEd at log_begin, gets
// the snapshot in SNAPSHOT frames, resets, and ends identical from log_begin on: the same segment
// files, offsets, batches, producers, replicated meta; then it follows new appends (both stores
// keeping about eight segments, deleting the same old ones by size).
TEST_F(StoreLogReplication, AWipedFollowerBelowTheLeadersLogBeginRebootstrapsAndFollows) {
  // Both stores keep about four segments: the leader's retention moves log_begin.
  leader_log.reset();
  ASSERT_TRUE(leader->close().ok());
  leader.reset();
  std::filesystem::remove_all(ldir.path());
  std::filesystem::create_directories(ldir.path());
  leader_options.retention_bytes = 8 * leader_options.segment_bytes;
  leader_options.retention_check_interval_ms = 1;
  auto l = Store::open(leader_options);
  ASSERT_TRUE(l.ok()) << l.status().to_string();
  leader = std::shared_ptr<Store>(std::move(*l));
  ASSERT_TRUE(set_role(*leader, Role::kLeader, kEpoch).ok());
  leader_log = std::make_shared<StoreLog>(leader, leader_options.max_append_bytes);

  Workload w(*leader, 31);
  w.create_partitions(12);
  for (int i = 0; i < 1200 && leader->log_begin() < 8 * leader_options.segment_bytes; ++i) {
    ASSERT_NO_FATAL_FAILURE(w.step());
  }
  ASSERT_GE(leader->log_begin(), 8 * leader_options.segment_bytes);
  const auto o = leader->offsets(2);
  ASSERT_TRUE(o.ok());
  ASSERT_TRUE(storage::test::delete_records(*leader, 2, (o->log_start_offset + o->next_offset + 1) / 2).ok());
  const auto doomed = storage::test::create(*leader, 1);  // not the workload's: it keeps writing to those
  ASSERT_EQ(doomed.size(), 1u);
  ASSERT_TRUE(storage::test::append(*leader, doomed[0], make_batch({})).ok());
  ASSERT_TRUE(storage::test::delete_partition(*leader, doomed[0]).ok());
  ASSERT_NO_FATAL_FAILURE(steps(w, 20));
  // Retention settles (it depends on the log's end only, which stops moving here).
  int64_t begin = -1;
  ASSERT_TRUE(wait_until([&] {
    const int64_t b = leader->log_begin();
    std::this_thread::sleep_for(50ms);
    return std::exchange(begin, b) == b && leader->log_begin() == b;
  }, 30s));

  // The wiped follower, with the same retention.
  follower_log.reset();
  ASSERT_TRUE(follower->close().ok());
  follower.reset();
  std::filesystem::remove_all(fdir.path());
  std::filesystem::create_directories(fdir.path());
  follower_options = store_options(fdir.path());
  follower_options.retention_bytes = leader_options.retention_bytes;
  follower_options.retention_check_interval_ms = 1;
  auto f = Store::open(follower_options);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  follower = std::shared_ptr<Store>(std::move(*f));
  ASSERT_TRUE(set_role(*follower, Role::kFollower, kEpoch).ok());
  follower_log = std::make_shared<StoreLog>(follower, follower_options.max_append_bytes);
  ASSERT_EQ(follower->log_end(), 0);

  start_server();
  start_client();
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  EXPECT_EQ(client->rebootstraps(), 1u);
  EXPECT_EQ(follower->log_begin(), leader->log_begin());
  expect_identical(w.partitions());
  for (PartitionId pid = 0; pid < w.partitions(); ++pid) {
    const auto a = storage::test::view(*leader, pid, storage::test::ReadUntil::kHighWatermark);
    if (a.code != storage::StatusCode::kOk) continue;
    const auto pa = wait_for<Result<std::vector<storage::ActiveProducer>>>([&](auto cb) { leader->active_producers(pid, cb); });
    const auto pb = wait_for<Result<std::vector<storage::ActiveProducer>>>([&](auto cb) { follower->active_producers(pid, cb); });
    ASSERT_TRUE(pa.ok() && pb.ok());
    EXPECT_EQ(*pa, *pb) << "partition " << pid;
  }

  // The leader goes on (retention deleting more on both); the follower follows in the same session.
  ASSERT_NO_FATAL_FAILURE(steps(w, 150));
  ASSERT_NO_FATAL_FAILURE(wait_caught_up());
  EXPECT_TRUE(wait_until([&] { return leader->log_begin() == follower->log_begin(); }, 30s))
      << leader->log_begin() << " vs " << follower->log_begin();
  expect_identical(w.partitions());
  EXPECT_EQ(client->rebootstraps(), 1u);
  EXPECT_EQ(client->welcomes(), 1u);
}

// A SNAPSHOT frame that lies (over the bound, past its total, out of order, another epoch) ends
// the session before anything is allocated or written: the follower's store is untouched.
TEST_F(StoreLogReplication, AHostileSnapshotEndsTheSessionWithNothingWritten) {
  // A fake leader: accepts, reads HELLO, sends a WELCOME above the follower's end, then the frame.
  struct Case {
    const char* what;
    std::function<std::vector<std::byte>()> frame;
    const char* why;  // in the follower's error
  };
  const std::vector<std::byte> some(64, std::byte{7});
  const std::vector<Case> cases = {
      {"a total over the bound",
       [&] { return repl::encode_snapshot_piece({kEpoch, repl::kMaxSnapshotBytes + 1, 0}, some); }, "out of bounds"},
      {"a piece past its total", [&] { return repl::encode_snapshot_piece({kEpoch, 32, 0}, some); }, "out of bounds"},
      {"a first piece not at 0", [&] { return repl::encode_snapshot_piece({kEpoch, 4096, 64}, some); }, "expected 0"},
      {"another epoch", [&] { return repl::encode_snapshot_piece({kEpoch + 1, 64, 0}, some); }, "of epoch 4"},
      {"bytes that are no snapshot", [&] { return repl::encode_snapshot_piece({kEpoch, 64, 0}, some); },
       "snapshot magic"},
      {"DATA instead", [&] { return repl::encode_data({kEpoch, 1 << 20, 0, 1 << 20}, {}); }, "expected SNAPSHOT"},
  };
  const auto meta_before = follower->meta().scan("");
  for (const auto& c : cases) {
    tcp::acceptor acceptor(leader_io.executor(), kLoopback);
    endpoint = acceptor.local_endpoint();
    std::promise<void> served;
    std::thread fake([&] {
      tcp::socket sock(leader_io.executor());
      acceptor.accept(sock);
      std::vector<std::byte> header(repl::kHeaderBytes);
      asio::read(sock, asio::buffer(header));
      auto h = repl::decode_header(header);
      std::vector<std::byte> payload(h.ok() ? h->payload_bytes : 0);
      asio::read(sock, asio::buffer(payload));
      const auto welcome = repl::encode(repl::Welcome{.leader_id = kLeaderId,
                                                      .epoch = kEpoch,
                                                      .epochs = {{kEpoch, 0}},
                                                      .truncate_to = 1 << 20,
                                                      .leader_log_begin = 1 << 20,
                                                      .leader_log_end = 1 << 20});
      asio::write(sock, asio::buffer(welcome));
      const auto frame = c.frame();
      boost::system::error_code ec;
      asio::write(sock, asio::buffer(frame), ec);
      std::array<std::byte, 1> one;
      asio::read(sock, asio::buffer(one), ec);  // until the follower closes
      served.set_value();
    });
    start_client();
    EXPECT_EQ(served.get_future().wait_for(30s), std::future_status::ready) << c.what;
    fake.join();
    EXPECT_TRUE(wait_until([&] { return client->last_error().find(c.why) != std::string::npos; }, 10s))
        << c.what << ": " << client->last_error();
    stop_client();
    EXPECT_EQ(follower->log_end(), 0) << c.what;
    EXPECT_EQ(follower->log_begin(), 0) << c.what;
    EXPECT_EQ(follower->meta().scan(""), meta_before) << c.what;
  }
}

TEST_F(StoreLogReplication, AnAcksAllWaiterResolvesOnlyOnceTheFollowerAcked) {
  Workload w(*leader, 5);
  w.create_partitions(4);
  start_server();
  ASSERT_NO_FATAL_FAILURE(steps(w, 30));
  const int64_t position = leader->log_end();
  std::atomic<int> answered{0};
  std::atomic<int64_t> follower_durable_at_answer{-1};
  ConfirmOutcome outcome;
  server->waiters().add(position, std::chrono::steady_clock::now() + 120s, [&](ConfirmOutcome o) {
    const auto p = server->follower(kFollowerId);
    follower_durable_at_answer = p ? p->durable_end : -1;
    outcome = std::move(o);
    ++answered;
  });
  // The leader's own durable end is there, the follower is not connected: C stays put.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(leader->durable_end(), position);
  EXPECT_EQ(answered.load(), 0);
  EXPECT_LT(server->confirmed(), position);
  start_client();
  ASSERT_TRUE(wait_until([&] { return answered.load() == 1; }, 60s)) << client->last_error();
  EXPECT_EQ(outcome.kind, ConfirmOutcome::Kind::kConfirmed);
  EXPECT_GE(follower_durable_at_answer.load(), position);
  EXPECT_GE(follower->durable_end(), position);
  EXPECT_GE(server->confirmed(), position);
}

// A batch of 4 MiB (a store whose max_append_bytes allows it) goes alone in one DATA frame.
TEST(StoreLogReplicationLarge, AFourMiBBatchReplicates) {
  TempDir ldir, fdir;
  auto options = [](const std::filesystem::path& dir) {
    StoreOptions o;
    o.dir = dir;
    o.segment_bytes = 16 << 20;
    o.max_append_bytes = 5 << 20;
    o.flush_mode = storage::FlushMode::kSync;
    return o;
  };
  const StoreOptions lo = options(ldir.path()), fo = options(fdir.path());
  std::shared_ptr<Store> leader(storage::test::open_store(lo)), follower(storage::test::open_store(fo));
  ASSERT_TRUE(leader && follower);
  ASSERT_TRUE(set_role(*leader, Role::kLeader, kEpoch).ok());
  ASSERT_TRUE(set_role(*follower, Role::kFollower, kEpoch).ok());
  const auto pids = storage::test::create(*leader, 2);
  ASSERT_EQ(pids.size(), 2u);
  const auto big = make_batch({.records = 1, .value_bytes = 4 << 20});
  ASSERT_GT(big.size(), size_t{4} << 20);
  ASSERT_TRUE(storage::test::append(*leader, pids[0], make_batch({.records = 2, .value_bytes = 100})).ok());
  ASSERT_TRUE(storage::test::append(*leader, pids[0], big).ok());
  ASSERT_TRUE(storage::test::append(*leader, pids[1], make_batch({.records = 3, .value_bytes = 100})).ok());

  IoThread leader_io, follower_io;
  auto leader_log = std::make_shared<StoreLog>(leader, lo.max_append_bytes);
  auto follower_log = std::make_shared<StoreLog>(follower, fo.max_append_bytes);
  ReplicationServerOptions so;
  so.cluster_id = "c";
  so.group = "g";
  so.leader_id = kLeaderId;
  so.epoch = kEpoch;
  so.segment_bytes = lo.segment_bytes;
  so.in_sync = {kLeaderId, kFollowerId};
  so.max_entry_bytes = leader_log->max_entry_bytes();
  auto server = ReplicationServer::create(leader_io.executor(), leader_log, so);
  auto bound = server->listen(kLoopback);
  ASSERT_TRUE(bound.ok());
  ReplicationClientOptions co;
  co.cluster_id = "c";
  co.group = "g";
  co.follower_id = kFollowerId;
  co.segment_bytes = fo.segment_bytes;
  co.leader = *bound;
  co.max_entry_bytes = follower_log->max_entry_bytes();
  auto client = ReplicationClient::create(follower_io.executor(), follower_log, co);
  client->start();
  const int64_t end = leader->log_end();
  EXPECT_TRUE(wait_until([&] { return follower->log_end() == end && server->confirmed() == end; }, 60s))
      << client->last_error();
  EXPECT_EQ(client->welcomes(), 1u);  // no refusal, no reconnect
  EXPECT_TRUE(wait_until([&] {
    auto o = follower->offsets(pids[0]);
    return o.ok() && o->high_watermark == 3;
  }));
  auto r = follower->read(pids[0], 2, 1);
  auto l = leader->read(pids[0], 2, 1);
  ASSERT_TRUE(r.ok() && l.ok()) << r.status().to_string();
  ASSERT_EQ(r->batches.size(), 1u);
  ASSERT_EQ(l->batches.size(), 1u);
  EXPECT_EQ(r->batches[0].bytes.size(), big.size());
  EXPECT_TRUE(std::equal(r->batches[0].bytes.begin(), r->batches[0].bytes.end(), l->batches[0].bytes.begin(),
                         l->batches[0].bytes.end()));
  // The records as produced (from the magic byte on: base offset and leader epoch are the broker's).
  EXPECT_TRUE(std::equal(r->batches[0].bytes.begin() + 16, r->batches[0].bytes.end(), big.begin() + 16, big.end()));
  EXPECT_EQ(files_in(ldir.path() / "commitlog"), files_in(fdir.path() / "commitlog"));
  client->stop();
  EXPECT_TRUE(wait_until([&] { return !client->running(); }, 30s));
  server->stop();
  follower_io.stop();
  leader_io.stop();
  EXPECT_TRUE(follower->close().ok());
  EXPECT_TRUE(leader->close().ok());
}

}  // namespace
}  // namespace rokka::cluster
