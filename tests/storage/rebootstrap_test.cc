// Re-bootstrap below the leader's log_begin (Store::bootstrap_snapshot -> Store::reset_to,
// FORMAT.md "Re-bootstrap"): a follower whose log ends below what the leader still holds
// (retention deleted it) starts its log at the leader's log_begin from a snapshot, then
// follows as usual. What a user of the follower would notice: the same segment files
// from log_begin on, the same offsets, batches, timestamps, producer and transaction
// state and replicated meta keys as the leader; across a clean reopen and a crash; and a
// crash inside the reset leaves the old store or the reset one, never a mix.
#include <gtest/gtest.h>

#include <random>

#include "storage/meta_keys.h"
#include "storage/replication.h"
#include "storage/store.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage::test {
namespace {

using testutil::FaultyFileSystem;
using testutil::TempDir;

Status replicate(Store& s, int64_t from, std::span<const std::byte> bytes) {
  return wait_for<Status>([&](auto cb) { s.append_replicated(from, bytes, cb); });
}
Result<Store::BootstrapSnapshot> snapshot(Store& s) {
  return wait_for<Result<Store::BootstrapSnapshot>>([&](auto cb) { s.bootstrap_snapshot(cb); });
}
Status reset_to(Store& s, Store::BootstrapSnapshot snap) {
  return wait_for<Status>([&](auto cb) { s.reset_to(std::move(snap), cb); });
}
std::vector<ActiveProducer> producers(Store& s, PartitionId pid) {
  auto r = wait_for<Result<std::vector<ActiveProducer>>>([&](auto cb) { s.active_producers(pid, cb); });
  return r.ok() ? *r : std::vector<ActiveProducer>{};
}
void confirm(Store& s, int64_t position) {
  s.set_confirmed(position);
  (void)producers(s, 0);  // queued behind it: applied on return
}
// The journal without the node-local keys (each member's own).
std::vector<std::pair<std::string, std::string>> replicated_meta(Store& s) {
  auto all = s.meta().scan("");
  std::erase_if(all, [](const auto& kv) { return meta_prefix::node_local(kv.first); });
  return all;
}

// Copies the leader's log to the follower from the follower's end until both end alike.
void pump(Store& leader, Store& follower) {
  while (follower.log_end() < leader.log_end()) {
    const int64_t from = follower.log_end();
    auto slice = leader.read_log(from, 20000);
    ASSERT_TRUE(slice.ok()) << slice.status().to_string();
    ASSERT_FALSE(slice->bytes.empty());
    const Status s = replicate(follower, from, slice->bytes);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  ASSERT_EQ(follower.log_end(), leader.log_end());
}

// What a reader of either store sees, compared: segment files (byte for byte), epochs,
// replicated meta keys, and per partition its offsets, every batch, timestamps lookups
// (the index), producers and aborted transactions.
void expect_same(Store& leader, const std::filesystem::path& ldir, Store& follower, const std::filesystem::path& fdir,
                 PartitionId partitions) {
  EXPECT_EQ(leader.log_begin(), follower.log_begin());
  EXPECT_EQ(leader.log_end(), follower.log_end());
  confirm(leader, leader.log_end());
  confirm(follower, follower.log_end());
  expect_same_files(ldir / "commitlog", fdir / "commitlog", "segment");
  EXPECT_TRUE(leader.epochs() == follower.epochs());
  EXPECT_EQ(replicated_meta(leader), replicated_meta(follower));
  size_t batches = 0;
  for (PartitionId pid = 0; pid < partitions; ++pid) {
    const PartitionView a = view(leader, pid), b = view(follower, pid);
    EXPECT_EQ(a.code, b.code) << "partition " << pid;
    EXPECT_EQ(a.offsets.log_start_offset, b.offsets.log_start_offset) << "partition " << pid;
    EXPECT_EQ(a.offsets.next_offset, b.offsets.next_offset) << "partition " << pid;
    EXPECT_EQ(a.offsets.last_stable_offset, b.offsets.last_stable_offset) << "partition " << pid;
    EXPECT_EQ(b.offsets.high_watermark, b.offsets.next_offset) << "partition " << pid;
    EXPECT_TRUE(a.batches == b.batches) << "partition " << pid << ": " << a.batches.size() << " vs "
                                        << b.batches.size() << " batches";
    EXPECT_EQ(a.aborted, b.aborted) << "partition " << pid;
    EXPECT_EQ(producers(leader, pid), producers(follower, pid)) << "partition " << pid;
    batches += b.batches.size();
    if (a.code != StatusCode::kOk) continue;
    const auto ma = leader.max_timestamp(pid), mb = follower.max_timestamp(pid);
    ASSERT_TRUE(ma.ok() && mb.ok());
    EXPECT_EQ(ma->offset, mb->offset) << "partition " << pid;
    EXPECT_EQ(ma->timestamp, mb->timestamp) << "partition " << pid;
    for (int64_t ts : {int64_t{0}, ma->timestamp / 2, ma->timestamp}) {
      const auto la = leader.lookup_timestamp(pid, ts), lb = follower.lookup_timestamp(pid, ts);
      ASSERT_TRUE(la.ok() && lb.ok());
      EXPECT_EQ(la->offset, lb->offset) << "partition " << pid << " ts " << ts;
    }
    EXPECT_EQ(*leader.partition_bytes(pid), *follower.partition_bytes(pid)) << "partition " << pid;
  }
  EXPECT_GT(batches, 0u);  // the comparison compared something
}

StoreOptions leader_options(const std::filesystem::path& dir, bool retention) {
  StoreOptions o = small_options(dir);
  if (retention) {
    o.retention_bytes = 8 * o.segment_bytes;  // about the last eight segments stay
    o.retention_check_interval_ms = 1;        // a pass after every group
  }
  return o;
}

class RebootstrapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leader_ = open_store(leader_options(ldir_.path(), /*retention=*/true));
    ASSERT_TRUE(leader_);
    ASSERT_TRUE(set_role(*leader_, Role::kLeader, 1).ok());
    follower_options_ = small_options(fdir_.path());
    follower_options_.fs = &fs_;
    follower_ = open_store(follower_options_);
    ASSERT_TRUE(follower_);
    ASSERT_TRUE(set_role(*follower_, Role::kFollower, 1).ok());
    workload_ = std::make_unique<Workload>(*leader_, 11);
    workload_->create_partitions(10);
  }

  // The leader writes until retention has deleted its first segments; the follower, if
  // `copy_first`, copied the start of the log before that (a follower left behind).
  void write_past_retention(bool copy_first) {
    for (int i = 0; i < 30; ++i) ASSERT_NO_FATAL_FAILURE(workload_->step());
    if (copy_first) { ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_)); }
    const auto o = leader_->offsets(3);
    ASSERT_TRUE(o.ok());
    const auto trimmed = delete_records(*leader_, 3, (o->log_start_offset + o->next_offset + 1) / 2);
    ASSERT_TRUE(trimmed.ok()) << trimmed.status().to_string();
    // A partition of its own (the workload keeps writing to its ones), deleted below log_begin.
    const auto doomed = create(*leader_, 1);
    ASSERT_EQ(doomed.size(), 1u);
    ASSERT_TRUE(append(*leader_, doomed[0], testutil::make_batch({})).ok());
    ASSERT_TRUE(delete_partition(*leader_, doomed[0]).ok());
    for (int i = 0; i < 800 && leader_->log_begin() < 6 * small_options(ldir_.path()).segment_bytes; ++i)
      ASSERT_NO_FATAL_FAILURE(workload_->step());
    workload_->create_partitions(2);  // created after log_begin: in the snapshot and in the log
    for (int i = 0; i < 60; ++i) ASSERT_NO_FATAL_FAILURE(workload_->step());
    // Retention stops moving log_begin (a clean reopen without it) while the follower catches up.
    ASSERT_TRUE(leader_->close().ok());
    leader_ = open_store(leader_options(ldir_.path(), /*retention=*/false));
    ASSERT_TRUE(leader_);
    ASSERT_TRUE(set_role(*leader_, Role::kLeader, 2).ok());
    workload_ = std::make_unique<Workload>(*leader_, 12);
    workload_->create_partitions(1);
    for (int i = 0; i < 20; ++i) ASSERT_NO_FATAL_FAILURE(workload_->step());
    ASSERT_GT(leader_->log_begin(), 0);
    ASSERT_GT(leader_->log_begin(), follower_->log_end());
    // What the follower cannot be sent any more: the log below log_begin.
    EXPECT_EQ(leader_->read_log(follower_->log_end(), 1 << 20).status().code(), StatusCode::kOutOfRange);
  }

  // The snapshot as it crosses the wire: encoded, decoded.
  Store::BootstrapSnapshot wire_snapshot() {
    auto snap = snapshot(*leader_);
    EXPECT_TRUE(snap.ok()) << snap.status().to_string();
    if (!snap.ok()) return {};
    EXPECT_EQ(snap->begin, leader_->log_begin());
    EXPECT_EQ(snap->end, leader_->log_end());
    auto decoded = replication::decode_snapshot(replication::encode_snapshot(*snap));
    EXPECT_TRUE(decoded.ok()) << decoded.status().to_string();
    return decoded.ok() ? std::move(*decoded) : Store::BootstrapSnapshot{};
  }

  void reopen_follower(bool crash) {
    if (!crash) { ASSERT_TRUE(follower_->close().ok()); }
    follower_.reset();  // without close(): like a crash
    follower_ = open_store(follower_options_);
    ASSERT_TRUE(follower_);
    ASSERT_TRUE(set_role(*follower_, Role::kFollower, 2).ok());
  }

  PartitionId partitions() const { return 20; }  // ids above the last one read kNotFound on both

  TempDir ldir_, fdir_;
  FaultyFileSystem fs_;
  StoreOptions follower_options_;
  std::unique_ptr<Store> leader_, follower_;
  std::unique_ptr<Workload> workload_;
};

TEST_F(RebootstrapTest, AWipedFollowerRebuildsFromTheLeadersLogBeginAndKeepsFollowing) {
  ASSERT_NO_FATAL_FAILURE(write_past_retention(/*copy_first=*/false));
  ASSERT_EQ(follower_->log_end(), 0);  // wiped: nothing at all
  const Status s = reset_to(*follower_, wire_snapshot());
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(follower_->log_begin(), leader_->log_begin());
  EXPECT_EQ(follower_->log_end(), leader_->log_begin());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());

  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/false));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());

  // The leader goes on; the follower follows as any follower.
  for (int i = 0; i < 80; ++i) ASSERT_NO_FATAL_FAILURE(workload_->step());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
}

TEST_F(RebootstrapTest, AFollowerLeftBehindIsResetAndACrashBeforeItsFirstBytesRecovers) {
  ASSERT_NO_FATAL_FAILURE(write_past_retention(/*copy_first=*/true));
  ASSERT_GT(follower_->log_end(), 0);  // it holds a start of the log the leader no longer has
  ASSERT_TRUE(reset_to(*follower_, wire_snapshot()).ok());
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));  // before any byte arrived
  EXPECT_EQ(follower_->log_begin(), leader_->log_begin());
  EXPECT_EQ(follower_->log_end(), leader_->log_begin());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
}

TEST_F(RebootstrapTest, ResetIsRefusedOutsideTheFollowerRoleOrAtAPositionItCannotStartAt) {
  ASSERT_NO_FATAL_FAILURE(write_past_retention(/*copy_first=*/true));
  const int64_t end = follower_->log_end();
  const auto meta = follower_->meta().scan("");
  Store::BootstrapSnapshot snap = wire_snapshot();

  Store::BootstrapSnapshot unaligned = snap;
  unaligned.begin += 1;
  EXPECT_EQ(reset_to(*follower_, unaligned).code(), StatusCode::kInvalidArgument);
  Store::BootstrapSnapshot below = snap;
  below.begin = 0;
  EXPECT_EQ(reset_to(*follower_, below).code(), StatusCode::kInvalidArgument);
  Store::BootstrapSnapshot local = snap;
  local.meta.emplace_back("c/cluster_id", "another cluster");
  EXPECT_EQ(reset_to(*follower_, local).code(), StatusCode::kInvalidArgument);
  Store::BootstrapSnapshot bad_state = snap;
  ASSERT_FALSE(bad_state.partitions.empty());
  bad_state.partitions[0].state.push_back(std::byte{1});  // trailing garbage
  EXPECT_EQ(reset_to(*follower_, bad_state).code(), StatusCode::kCorruption);
  ASSERT_TRUE(set_role(*follower_, Role::kFenced, 2).ok());
  EXPECT_EQ(reset_to(*follower_, snap).code(), StatusCode::kNotLeader);

  // Nothing was written: the store is the one it was, and still takes the reset.
  EXPECT_EQ(follower_->log_end(), end);
  EXPECT_EQ(follower_->meta().scan(""), meta);
  ASSERT_TRUE(set_role(*follower_, Role::kFollower, 2).ok());
  ASSERT_TRUE(reset_to(*follower_, snap).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
}

// A crash inside reset_to, at each step: before its journal record (the old store), after
// it with the log half restarted, after the log restart but before the checkpoint (both:
// the reset store, which recovery finishes).
TEST_F(RebootstrapTest, ACrashBeforeTheJournalRecordLeavesTheOldStore) {
  ASSERT_NO_FATAL_FAILURE(write_past_retention(/*copy_first=*/true));
  const int64_t begin = follower_->log_begin(), end = follower_->log_end();
  const auto meta = follower_->meta().scan("");
  const auto segments = files_in(fdir_.path() / "commitlog");
  fs_.fail_write = true;
  EXPECT_FALSE(reset_to(*follower_, wire_snapshot()).ok());
  fs_.fail_write = false;
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));
  EXPECT_EQ(follower_->log_begin(), begin);
  EXPECT_EQ(follower_->log_end(), end);
  EXPECT_EQ(follower_->meta().scan(""), meta);
  EXPECT_TRUE(files_in(fdir_.path() / "commitlog") == segments);
  // And it can still be reset.
  ASSERT_TRUE(reset_to(*follower_, wire_snapshot()).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
}

TEST_F(RebootstrapTest, ACrashWhileTheLogRestartsLeavesTheResetStore) {
  ASSERT_NO_FATAL_FAILURE(write_past_retention(/*copy_first=*/true));
  fs_.fail_create = true;  // the new segment at begin cannot be created: the old ones are gone
  EXPECT_FALSE(reset_to(*follower_, wire_snapshot()).ok());
  fs_.fail_create = false;
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));
  EXPECT_EQ(follower_->log_begin(), leader_->log_begin());
  EXPECT_EQ(follower_->log_end(), leader_->log_begin());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
}

TEST_F(RebootstrapTest, ACrashBeforeTheResetsCheckpointLeavesTheResetStore) {
  ASSERT_NO_FATAL_FAILURE(write_past_retention(/*copy_first=*/true));
  fs_.fail_rename = true;  // the checkpoint file cannot replace the old one
  EXPECT_FALSE(reset_to(*follower_, wire_snapshot()).ok());
  fs_.fail_rename = false;
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));
  EXPECT_EQ(follower_->log_begin(), leader_->log_begin());
  EXPECT_EQ(follower_->log_end(), leader_->log_begin());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), partitions());
}

TEST(RebootstrapSnapshotTest, HostileSnapshotBytesAreRefusedBeforeAllocating) {
  Store::BootstrapSnapshot snap;
  snap.begin = 1 << 16;
  snap.end = 1 << 17;
  snap.meta = {{"s/p/0000000000", std::string(8, '\0')}, {"t/topic", "config"}};
  snap.partitions.push_back({0, 5, 1000, replication::encode_partition_state(nullptr, nullptr)});
  const auto good = replication::encode_snapshot(snap);
  ASSERT_TRUE(replication::decode_snapshot(good).ok());

  auto with_u32_at = [&](size_t at, uint32_t v) {
    auto b = good;
    format::put_le32(b.data() + at, v);
    return b;
  };
  const size_t meta_count_at = 4 + 8 + 8;
  EXPECT_FALSE(replication::decode_snapshot(with_u32_at(meta_count_at, 0xFFFFFFFFu)).ok());  // more keys than bytes
  EXPECT_FALSE(replication::decode_snapshot(with_u32_at(meta_count_at + 4, 0x7FFFFFFFu)).ok());  // key longer than all
  EXPECT_FALSE(replication::decode_snapshot(with_u32_at(0, 0x12345678u)).ok());                  // not a snapshot
  for (size_t cut = 0; cut < good.size(); ++cut)  // every truncation
    EXPECT_FALSE(replication::decode_snapshot({good.data(), cut}).ok()) << cut;
  auto trailing = good;
  trailing.push_back(std::byte{0});
  EXPECT_FALSE(replication::decode_snapshot(trailing).ok());
  Store::BootstrapSnapshot backwards = snap;
  backwards.end = snap.begin - 1;  // E before the start
  EXPECT_FALSE(replication::decode_snapshot(replication::encode_snapshot(backwards)).ok());
  Store::BootstrapSnapshot twice = snap;
  twice.partitions.push_back(snap.partitions[0]);  // partitions must ascend
  EXPECT_FALSE(replication::decode_snapshot(replication::encode_snapshot(twice)).ok());
  Store::BootstrapSnapshot bad_state = snap;
  format::Encoder huge;
  huge.u32(0xFFFFFFFFu);  // a producer count no state bytes hold
  bad_state.partitions[0].state = huge.buffer();
  EXPECT_FALSE(replication::decode_snapshot(replication::encode_snapshot(bad_state)).ok());
}

}  // namespace
}  // namespace rokka::storage::test
