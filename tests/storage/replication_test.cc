// Replication, storage side (SCALE-OUT.md §3.5-3.6): a leader store's CommitLog bytes
// copied to a follower store (read_log -> append_replicated), in process, and what a
// user of the follower would notice: identical segment files, offsets, batches,
// producer and transaction state, meta keys and epochs; across a clean reopen and a
// crash; after a divergent tail is truncated; and refusals that write nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <random>

#include "storage/checkpoint.h"
#include "storage/crc32c.h"
#include "storage/file_system.h"
#include "storage/format.h"
#include "storage/replication.h"
#include "storage/store.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage::test {
namespace {

namespace fb = format::batch;
using testutil::make_batch;
using testutil::make_control_batch;
using testutil::TempDir;

Status replicate(Store& s, int64_t from, std::span<const std::byte> bytes) {
  return wait_for<Status>([&](auto cb) { s.append_replicated(from, bytes, cb); });
}
Status truncate_to(Store& s, int64_t pos) {
  return wait_for<Status>([&](auto cb) { s.truncate_to(pos, cb); });
}
std::vector<ActiveProducer> producers(Store& s, PartitionId pid) {
  auto r = wait_for<Result<std::vector<ActiveProducer>>>([&](auto cb) { s.active_producers(pid, cb); });
  return r.ok() ? *r : std::vector<ActiveProducer>{};
}
Status rewrite(Store& s, PartitionId pid, int64_t from, int64_t to, const std::vector<std::vector<std::byte>>& batches) {
  Store::RewriteRequest rq{pid, from, to, {}};
  for (const auto& b : batches) rq.batches.emplace_back(b);
  return wait_for<Status>([&](auto cb) { s.rewrite(std::move(rq), cb); });
}

// set_confirmed, then an op queued behind it: on return the confirmation is applied.
void confirm(Store& s, int64_t position) {
  s.set_confirmed(position);
  (void)producers(s, 0);
}

void expect_same(Store& leader, const std::filesystem::path& ldir, Store& follower, const std::filesystem::path& fdir,
                 PartitionId partitions) {
  EXPECT_EQ(leader.log_end(), follower.log_end());
  EXPECT_EQ(leader.log_begin(), follower.log_begin());
  confirm(leader, leader.log_end());  // high watermarks up to the end: every batch readable
  confirm(follower, follower.log_end());
  size_t batches = 0;
  expect_same_files(ldir / "commitlog", fdir / "commitlog", "segment");
  EXPECT_TRUE(leader.epochs() == follower.epochs());
  EXPECT_EQ(leader.meta().scan(""), follower.meta().scan(""));
  for (PartitionId pid = 0; pid < partitions; ++pid) {
    const PartitionView a = view(leader, pid), b = view(follower, pid);
    EXPECT_EQ(a.code, b.code) << "partition " << pid;
    EXPECT_EQ(a.offsets.log_start_offset, b.offsets.log_start_offset) << "partition " << pid;
    EXPECT_EQ(a.offsets.next_offset, b.offsets.next_offset) << "partition " << pid;
    EXPECT_EQ(a.offsets.last_stable_offset, b.offsets.last_stable_offset) << "partition " << pid;
    EXPECT_EQ(a.offsets.high_watermark, a.offsets.next_offset) << "partition " << pid;
    EXPECT_EQ(b.offsets.high_watermark, b.offsets.next_offset) << "partition " << pid;
    batches += b.batches.size();
    EXPECT_TRUE(a.batches == b.batches) << "partition " << pid << ": " << a.batches.size() << " vs "
                                        << b.batches.size() << " batches";
    EXPECT_EQ(a.aborted, b.aborted) << "partition " << pid;
    EXPECT_EQ(producers(leader, pid), producers(follower, pid)) << "partition " << pid;
  }
  EXPECT_GT(batches, 0u);  // the comparison compared something
}

// Copies the leader's log to the follower in random slice sizes until both end alike.
void pump(Store& leader, Store& follower, std::mt19937& rng) {
  while (follower.log_end() < leader.log_end()) {
    const int64_t from = follower.log_end();
    const int64_t max_bytes = rng() % 4 == 0 ? 1 : 1 + static_cast<int64_t>(rng() % 40000);
    auto slice = leader.read_log(from, max_bytes);
    ASSERT_TRUE(slice.ok()) << slice.status().to_string();
    ASSERT_FALSE(slice->bytes.empty());
    ASSERT_TRUE(replicate(follower, from, slice->bytes).ok());
    ASSERT_EQ(follower.log_end(), from + static_cast<int64_t>(slice->bytes.size()));
  }
  ASSERT_EQ(follower.log_end(), leader.log_end());
  auto at_end = leader.read_log(leader.log_end(), 1 << 20);
  ASSERT_TRUE(at_end.ok());
  EXPECT_TRUE(at_end->bytes.empty());
}

class ReplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leader_ = open_store(small_options(ldir_.path()));
    follower_ = open_store(small_options(fdir_.path()));
    ASSERT_TRUE(leader_ && follower_);
    ASSERT_TRUE(set_role(*leader_, Role::kLeader, 1).ok());
    ASSERT_TRUE(set_role(*follower_, Role::kFollower, 1).ok());
  }
  void reopen_follower(bool crash) {
    if (!crash) { ASSERT_TRUE(follower_->close().ok()); }
    follower_.reset();  // without close(): like a crash
    follower_ = open_store(small_options(fdir_.path()));
    ASSERT_TRUE(follower_);
    ASSERT_TRUE(set_role(*follower_, Role::kFollower, 1).ok());
  }

  TempDir ldir_, fdir_;
  std::unique_ptr<Store> leader_, follower_;
  std::mt19937 rng_{7};
};

TEST_F(ReplicationTest, FollowerEndsIdenticalToTheLeaderAcrossReopenAndCrash) {
  Workload w(*leader_, 42);
  w.create_partitions(12);
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 60; ++i) ASSERT_NO_FATAL_FAILURE(w.step());
    if (round == 1) {
      ASSERT_NO_FATAL_FAILURE(w.maintenance());
      w.create_partitions(3);
    }
    if (round % 2 == 0) { ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_)); }  // some rounds pile up
    if (round == 3) { ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/false)); }
    if (round == 4) { ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true)); }
  }
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  ASSERT_GT(files_in(ldir_.path() / "commitlog").size(), 5u);  // many rolls: blanks were copied too
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), w.partitions());
  ASSERT_EQ(leader_->epochs().size(), 1u);
  EXPECT_EQ(leader_->epochs()[0], (EpochStart{1, 0}));

  // The leader stamped its epoch into every batch it stored.
  const auto v = view(*follower_, 0);
  ASSERT_FALSE(v.batches.empty());
  for (const auto& b : v.batches) EXPECT_EQ(fb::i32(b, fb::kLeaderEpoch), 1);

  // Reopened after a clean close and after a crash, the follower reads the same and
  // resumes from its log end.
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/false));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), w.partitions());
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), w.partitions());
  for (int i = 0; i < 40; ++i) ASSERT_NO_FATAL_FAILURE(w.step());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), w.partitions());
}

TEST_F(ReplicationTest, AFollowerRefusesWritesWithNotLeader) {
  create(*leader_, 2);
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  const auto batch = make_batch({});
  EXPECT_EQ(append(*follower_, 0, batch).status().code(), StatusCode::kNotLeader);
  auto created = wait_for<Result<std::vector<PartitionId>>>([&](auto cb) { follower_->create_partitions(1, cb); });
  EXPECT_EQ(created.status().code(), StatusCode::kNotLeader);
  EXPECT_EQ(delete_partition(*follower_, 0).code(), StatusCode::kNotLeader);
  EXPECT_EQ(delete_records(*follower_, 0, 0).status().code(), StatusCode::kNotLeader);
  EXPECT_EQ(meta_write(*follower_, {{"o/x", "1", false}}).code(), StatusCode::kNotLeader);
  EXPECT_EQ(rewrite(*follower_, 0, 0, 0, {}).code(), StatusCode::kNotLeader);
  ASSERT_TRUE(set_role(*follower_, Role::kFenced, 1).ok());
  EXPECT_EQ(append(*follower_, 0, batch).status().code(), StatusCode::kNotLeader);
  EXPECT_EQ(replicate(*follower_, follower_->log_end(), {}).code(), StatusCode::kNotLeader);
  // The leader refuses replicated bytes; a new leader epoch must be above the last.
  EXPECT_EQ(replicate(*leader_, leader_->log_end(), {}).code(), StatusCode::kNotLeader);
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 1).code(), StatusCode::kOk);  // already leading it
  ASSERT_TRUE(set_role(*leader_, Role::kFollower, 1).ok());
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 1).code(), StatusCode::kConflict);
  EXPECT_EQ(append(*leader_, 0, batch).status().code(), StatusCode::kNotLeader);
  ASSERT_TRUE(set_role(*follower_, Role::kFollower, 1).ok());
  EXPECT_EQ(follower_->log_end(), leader_->log_end());  // nothing was written by the refusals
  EXPECT_EQ(follower_->offsets(0)->next_offset, 0);
}

// A leader fenced at its epoch (its lease lapsed, then was confirmed still its own) leads that
// epoch again: writes resume stamped with it and nothing new is logged for it. Only that store,
// only that epoch, only while it is the last one and the log was not cut since.
TEST_F(ReplicationTest, AFencedLeaderResumesItsOwnEpochOnly) {
  create(*leader_, 1);
  ASSERT_TRUE(append(*leader_, 0, make_batch({.records = 2})).ok());
  ASSERT_TRUE(set_role(*leader_, Role::kFenced, 1).ok());
  const auto batch = make_batch({.records = 3});
  EXPECT_EQ(append(*leader_, 0, batch).status().code(), StatusCode::kNotLeader);
  const int64_t fenced_end = leader_->log_end();
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 0).code(), StatusCode::kConflict);  // an older epoch
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 1).code(), StatusCode::kOk);
  EXPECT_EQ(leader_->log_end(), fenced_end);  // no epoch record: epoch 1 began earlier
  ASSERT_EQ(leader_->epochs().size(), 1u);
  EXPECT_EQ(leader_->epochs()[0], (EpochStart{1, 0}));
  auto resumed = append(*leader_, 0, batch);
  ASSERT_TRUE(resumed.ok()) << resumed.status().to_string();
  EXPECT_EQ(resumed->base_offset, 2);
  confirm(*leader_, leader_->log_end());  // readable up to the high watermark
  {
    const auto v = view(*leader_, 0);
    ASSERT_EQ(v.batches.size(), 2u);
    EXPECT_EQ(fb::i32(v.batches[1], fb::kLeaderEpoch), 1);
  }
  // The follower takes the resumed epoch's entries like any others.
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), 1);

  // A follower at epoch 1 never led it: not directly, not through the fenced role.
  EXPECT_EQ(set_role(*follower_, Role::kLeader, 1).code(), StatusCode::kConflict);
  ASSERT_TRUE(set_role(*follower_, Role::kFenced, 1).ok());
  EXPECT_EQ(set_role(*follower_, Role::kLeader, 1).code(), StatusCode::kConflict);
  EXPECT_EQ(append(*follower_, 0, batch).status().code(), StatusCode::kNotLeader);

  // Once it led a later epoch, the earlier one is refused even fenced at it.
  ASSERT_TRUE(set_role(*leader_, Role::kLeader, 2).ok());
  ASSERT_TRUE(set_role(*leader_, Role::kFenced, 1).ok());
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 1).code(), StatusCode::kConflict);
  // Fenced at 2, it resumes 2.
  ASSERT_TRUE(set_role(*leader_, Role::kFenced, 2).ok());
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 2).code(), StatusCode::kOk);
  ASSERT_TRUE(append(*leader_, 0, batch).ok());
  // A follower in between, or a cut while fenced, and the epoch is no longer its own.
  ASSERT_TRUE(set_role(*leader_, Role::kFollower, 2).ok());
  ASSERT_TRUE(set_role(*leader_, Role::kFenced, 2).ok());
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 2).code(), StatusCode::kConflict);
  ASSERT_TRUE(set_role(*leader_, Role::kLeader, 3).ok());
  const int64_t before_last = leader_->log_end();
  ASSERT_TRUE(append(*leader_, 0, batch).ok());
  ASSERT_TRUE(set_role(*leader_, Role::kFenced, 3).ok());
  ASSERT_TRUE(truncate_to(*leader_, before_last).ok());
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 3).code(), StatusCode::kConflict);
  EXPECT_EQ(append(*leader_, 0, batch).status().code(), StatusCode::kNotLeader);
  EXPECT_EQ(set_role(*leader_, Role::kLeader, 4).code(), StatusCode::kOk);
}

TEST_F(ReplicationTest, SingleRoleStoresNoEpochAndLogsNoMetaEntry) {
  TempDir dir;
  auto single = open_store(small_options(dir.path()));
  create(*single, 1);
  auto batch = make_batch({});
  format::put_be(batch.data() + fb::kLeaderEpoch, 77, 4);  // whatever the broker stamped stays
  ASSERT_TRUE(append(*single, 0, batch).ok());
  EXPECT_EQ(fb::i32(read_one(*single, 0, 0), fb::kLeaderEpoch), 77);
  EXPECT_TRUE(single->epochs().empty());
  // The log holds the one data entry only: the create was not logged.
  auto slice = single->read_log(0, 1 << 20);
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(static_cast<int64_t>(slice->bytes.size()), format::kEntryHeaderSize + static_cast<int64_t>(batch.size()));
  EXPECT_EQ(format::get_le32(slice->bytes.data()), format::kEntryMagic);
  EXPECT_EQ(single->read_log(-1, 10).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(single->read_log(single->log_end() + 1, 10).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(single->durable_end(), single->log_end());  // sync mode
  EXPECT_EQ(single->offsets(0)->high_watermark, single->offsets(0)->next_offset);
  // AppendInfo.log_end: the position after the entry.
  const int64_t before = single->log_end();
  auto info = append(*single, 0, make_batch({.value_bytes = 64}));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->log_end, single->log_end());
  EXPECT_EQ(info->log_end - before, format::kEntryHeaderSize + static_cast<int64_t>(make_batch({.value_bytes = 64}).size()));
}

TEST_F(ReplicationTest, BadBytesAreRefusedWithNothingWritten) {
  Workload w(*leader_, 3);
  w.create_partitions(2);
  for (int i = 0; i < 10; ++i) ASSERT_NO_FATAL_FAILURE(w.step());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(append(*leader_, 0, make_batch({.value_bytes = 100})).ok());
  const int64_t from = follower_->log_end();
  auto slice = leader_->read_log(from, 1 << 20);
  ASSERT_TRUE(slice.ok());
  const std::vector<std::byte> good(slice->bytes.begin(), slice->bytes.end());
  ASSERT_GT(good.size(), 200u);
  const auto files_before = files_in(fdir_.path() / "commitlog");
  const auto next_before = follower_->offsets(0)->next_offset;

  auto flipped = [&](size_t at) {
    auto b = good;
    b[at] ^= std::byte{0x01};
    return b;
  };
  EXPECT_EQ(replicate(*follower_, from, flipped(good.size() - 1)).code(), StatusCode::kCorruption);  // batch CRC
  EXPECT_EQ(replicate(*follower_, from, flipped(8)).code(), StatusCode::kCorruption);   // entry CRC field
  EXPECT_EQ(replicate(*follower_, from, flipped(20)).code(), StatusCode::kCorruption);  // header under the CRC
  EXPECT_EQ(replicate(*follower_, from, flipped(0)).code(), StatusCode::kCorruption);   // magic
  auto huge = good;
  format::put_le32(huge.data() + 4, 0x7fffffff);  // a length past everything
  EXPECT_NE(replicate(*follower_, from, huge).code(), StatusCode::kOk);
  EXPECT_EQ(replicate(*follower_, from, std::span(good).first(good.size() - 1)).code(), StatusCode::kCorruption);
  EXPECT_EQ(replicate(*follower_, from, std::span(good).first(30)).code(), StatusCode::kCorruption);  // torn header
  EXPECT_EQ(replicate(*follower_, from + 1, good).code(), StatusCode::kConflict);
  EXPECT_EQ(replicate(*follower_, from - static_cast<int64_t>(good.size()) / 2, good).code(), StatusCode::kConflict);

  EXPECT_EQ(follower_->log_end(), from);
  EXPECT_EQ(follower_->offsets(0)->next_offset, next_before);
  EXPECT_TRUE(files_in(fdir_.path() / "commitlog") == files_before);
  // The good bytes still apply.
  ASSERT_TRUE(replicate(*follower_, from, good).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), w.partitions());
}

TEST_F(ReplicationTest, AFollowerWithOtherSegmentSizesIsRefusedAtTheFirstRoll) {
  TempDir dir;
  auto o = small_options(dir.path());
  o.segment_bytes = 128 * 1024;
  auto other = open_store(o);
  ASSERT_TRUE(set_role(*other, Role::kFollower, 1).ok());
  create(*leader_, 1);
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(append(*leader_, 0, make_batch({.value_bytes = 3000})).ok());
  ASSERT_GT(files_in(ldir_.path() / "commitlog").size(), 1u);
  Status last;
  while (other->log_end() < leader_->log_end()) {
    const int64_t from = other->log_end();
    auto slice = leader_->read_log(from, 1 << 20);
    ASSERT_TRUE(slice.ok());
    last = replicate(*other, from, slice->bytes);
    if (!last.ok()) break;
  }
  EXPECT_EQ(last.code(), StatusCode::kInvalidArgument) << last.to_string();
  EXPECT_LT(other->log_end(), int64_t{64 * 1024});  // nothing past the leader's first segment
}

TEST_F(ReplicationTest, ADivergentTailIsTruncatedThenCaughtUp) {
  // A leads epoch 1; B and C follow. A writes a tail only C receives; B is elected
  // (epoch 2) and writes on; C cuts its tail at the end of epoch 1 on B and follows B.
  TempDir cdir;
  auto c = open_store(small_options(cdir.path()));
  ASSERT_TRUE(set_role(*c, Role::kFollower, 1).ok());
  Store& a = *leader_;
  Store& b = *follower_;
  Workload wa(a, 11);
  wa.create_partitions(6);
  for (int i = 0; i < 80; ++i) ASSERT_NO_FATAL_FAILURE(wa.step());
  ASSERT_NO_FATAL_FAILURE(pump(a, b, rng_));
  ASSERT_NO_FATAL_FAILURE(pump(a, *c, rng_));
  const int64_t agreed = b.log_end();
  for (int i = 0; i < 30; ++i)  // A's unreplicated tail: data only
    ASSERT_TRUE(append(a, static_cast<PartitionId>(i % 6), make_batch({.value_bytes = 500 + 37 * i})).ok());
  ASSERT_NO_FATAL_FAILURE(pump(a, *c, rng_));
  ASSERT_GT(c->log_end(), agreed);

  ASSERT_TRUE(set_role(b, Role::kLeader, 2).ok());
  ASSERT_EQ(b.epochs().size(), 2u);
  EXPECT_EQ(b.epochs()[1], (EpochStart{2, agreed}));
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(append(b, static_cast<PartitionId>(i % 6), make_batch({.value_bytes = 900 + 11 * i})).ok());

  EXPECT_EQ(truncate_to(*c, c->log_end() + 1).code(), StatusCode::kOutOfRange);
  ASSERT_TRUE(truncate_to(*c, agreed).ok());
  EXPECT_EQ(c->log_end(), agreed);
  ASSERT_NO_FATAL_FAILURE(pump(b, *c, rng_));
  expect_same(b, fdir_.path(), *c, cdir.path(), wa.partitions());

  // And after a crash of C, the same again.
  c.reset();
  c = open_store(small_options(cdir.path()));
  ASSERT_TRUE(c);
  expect_same(b, fdir_.path(), *c, cdir.path(), wa.partitions());
}

// A cut log tail takes its meta writes with it: every key a cut RKM1 entry wrote is back at its
// value before the cut (k=v1 replicated, then k=v2, a new key, an erased key, a delete_records
// floor and a new partition in a tail only C received), and the new leader's writes then apply
// on top as on the leader.
TEST_F(ReplicationTest, ATruncationUndoesTheMetaWritesOfTheEntriesItCuts) {
  TempDir cdir;
  auto c = open_store(small_options(cdir.path()));
  ASSERT_TRUE(c);
  ASSERT_TRUE(set_role(*c, Role::kFollower, 1).ok());
  Store& a = *leader_;
  Store& b = *follower_;
  ASSERT_EQ(create(a, 2).size(), 2u);
  ASSERT_TRUE(meta_write(a, {{"o/g/k", "v1", false}, {"o/g/old", "x", false}}).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(append(a, 0, make_batch({.value_bytes = 200})).ok());
  ASSERT_NO_FATAL_FAILURE(pump(a, b, rng_));
  ASSERT_NO_FATAL_FAILURE(pump(a, *c, rng_));
  const int64_t agreed = b.log_end();
  const auto meta_before = b.meta().scan("");

  // A's tail, which only C receives.
  ASSERT_TRUE(meta_write(a, {{"o/g/k", "v2", false}}).ok());
  ASSERT_TRUE(meta_write(a, {{"o/g/new", "n", false}, {"o/g/k", "v3", false}}).ok());
  ASSERT_TRUE(meta_write(a, {{"o/g/old", "", true}}).ok());
  ASSERT_TRUE(delete_records(a, 0, 2).ok());
  const auto created = create(a, 1);
  ASSERT_EQ(created, std::vector<PartitionId>{2});
  ASSERT_TRUE(append(a, 2, make_batch({.value_bytes = 100})).ok());
  ASSERT_NO_FATAL_FAILURE(pump(a, *c, rng_));
  ASSERT_EQ(c->meta().scan(""), a.meta().scan(""));
  ASSERT_EQ(c->offsets(0)->log_start_offset, 2);

  // B leads epoch 2; C is cut back to what B holds.
  ASSERT_TRUE(set_role(b, Role::kLeader, 2).ok());
  ASSERT_TRUE(truncate_to(*c, agreed).ok());
  EXPECT_EQ(c->meta().scan(""), meta_before);
  EXPECT_EQ(c->meta().scan("o/g/k"), (std::vector<std::pair<std::string, std::string>>{{"o/g/k", "v1"}}));
  EXPECT_EQ(c->offsets(2).status().code(), StatusCode::kNotFound);
  confirm(*c, agreed);
  EXPECT_EQ(c->offsets(0)->log_start_offset, 0);
  EXPECT_EQ(view(*c, 0).batches.size(), 4u);

  // B's own writes (partition 2 created again, another k) reach C as they are on B.
  ASSERT_EQ(create(b, 1), std::vector<PartitionId>{2});
  ASSERT_TRUE(append(b, 2, make_batch({.records = 3, .value_bytes = 50})).ok());
  ASSERT_TRUE(meta_write(b, {{"o/g/k", "v4", false}}).ok());
  ASSERT_NO_FATAL_FAILURE(pump(b, *c, rng_));
  expect_same(b, fdir_.path(), *c, cdir.path(), 3);
  EXPECT_EQ(c->offsets(2)->next_offset, 3);
  c.reset();  // crash
  c = open_store(small_options(cdir.path()));
  ASSERT_TRUE(c);
  expect_same(b, fdir_.path(), *c, cdir.path(), 3);
}

// The follower's meta listener runs after replicated meta writes were applied (RKM1 entries, a
// truncation's undo), not for data alone; what it announces is in the journal and the
// partition table by the time the operation is answered.
TEST_F(ReplicationTest, TheReplicatedMetaListenerRunsForReplicatedMetaWrites) {
  std::atomic<int> calls{0};
  follower_->set_replicated_meta_listener([&] { ++calls; });
  ASSERT_EQ(create(*leader_, 1).size(), 1u);
  ASSERT_TRUE(meta_write(*leader_, {{"t/x", "record", false}}).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  EXPECT_GE(calls.load(), 1);
  EXPECT_TRUE(follower_->offsets(0).ok());
  EXPECT_EQ(follower_->meta().scan("t/"), (std::vector<std::pair<std::string, std::string>>{{"t/x", "record"}}));

  const int after_meta = calls.load();
  ASSERT_TRUE(append(*leader_, 0, make_batch({.value_bytes = 100})).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  EXPECT_EQ(calls.load(), after_meta);  // data alone

  const int64_t agreed = follower_->log_end();
  ASSERT_TRUE(meta_write(*leader_, {{"t/x", "", true}}).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  EXPECT_GT(calls.load(), after_meta);
  EXPECT_TRUE(follower_->meta().scan("t/").empty());
  // Cut back (another member leads): the undo brings the record back, and says so.
  ASSERT_TRUE(set_role(*follower_, Role::kFenced, 1).ok());
  const int before_cut = calls.load();
  ASSERT_TRUE(truncate_to(*follower_, agreed).ok());
  EXPECT_GT(calls.load(), before_cut);
  EXPECT_EQ(follower_->meta().scan("t/"), (std::vector<std::pair<std::string, std::string>>{{"t/x", "record"}}));
  follower_->set_replicated_meta_listener({});
}

TEST_F(ReplicationTest, ARewriteCommitSurvivesAFollowerCrashBeforeItsCheckpoint) {
  create(*leader_, 1);
  std::vector<int64_t> bases;
  for (int i = 0; i < 6; ++i) bases.push_back(append(*leader_, 0, make_batch({.value_bytes = 200})).value().base_offset);
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/false));  // a checkpoint before the rewrite
  const auto kept = with_base(make_batch({.value_bytes = 10, .fill = 0x22}), bases[1]);
  ASSERT_TRUE(rewrite(*leader_, 0, bases[0], bases[4], {kept}).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  confirm(*follower_, follower_->log_end());
  EXPECT_EQ(view(*follower_, 0).batches.size(), 3u);  // kept + the two after the range
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));  // its checkpoint is older than the RKW1
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), 1);
  EXPECT_EQ(view(*follower_, 0).batches.size(), 3u);
}

// The RKW1 rewrite commits in the log from `from` on, in order.
std::vector<replication::RewriteCommit> rewrite_commits(Store& s, int64_t from) {
  std::vector<replication::RewriteCommit> out;
  while (from < s.log_end()) {
    auto slice = s.read_log(from, 1 << 20);
    EXPECT_TRUE(slice.ok() && !slice->bytes.empty());
    if (!slice.ok() || slice->bytes.empty()) break;
    for (size_t at = 0; at + format::kEntryHeaderSize <= slice->bytes.size();) {
      const auto h = format::decode_entry_header(slice->bytes.data() + at);
      if (h.magic == format::kBlankMagic) break;  // the segment's tail
      if (h.magic == format::kRewriteCommitMagic) {
        auto c = replication::decode_rewrite_commit(slice->bytes.subspan(at + format::kEntryHeaderSize,
                                                                         h.length - format::kEntryHeaderSize));
        EXPECT_TRUE(c.has_value());
        if (c) out.push_back(std::move(*c));
      }
      at += h.length;
    }
    from += static_cast<int64_t>(slice->bytes.size());
  }
  return out;
}

// A leader's rewrite commit (RKW1) names new batches; it may not outgrow the largest batch entry
// (max_append_bytes, what a follower's DATA frames are sized for). A rewrite into more batches
// than one may name goes out as several, cut between stored batches and chained, and a follower
// ends identical, also after a crash that makes it re-apply them. A rewrite that cannot be cut so
// (new batches straddling every stored batch boundary it would need) is refused with kTooLarge
// and changes nothing; a kSingle store, which writes no commit, takes it.
TEST_F(ReplicationTest, ARewriteIntoMoreBatchesThanOneCommitMayNameGoesOutAsSeveral) {
  const int64_t limit = (small_options(ldir_.path()).max_append_bytes - 20) / 32;  // 1023 at 32 KiB
  const auto n = static_cast<size_t>(3 * limit);
  std::vector<std::vector<std::byte>> batches;
  std::vector<AppendRequest> reqs;
  for (size_t i = 0; i < n; ++i) batches.push_back(make_batch({.value_bytes = 4}));
  for (const auto& b : batches) reqs.push_back({0, b, TimestampType::kCreateTime});
  auto fill = [&](Store& s) {
    ASSERT_EQ(create(s, 1), std::vector<PartitionId>{0});
    for (const auto& r : append_all(s, reqs)) { ASSERT_TRUE(r.ok()) << r.status().to_string(); }
  };
  ASSERT_NO_FATAL_FAILURE(fill(*leader_));
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  const int64_t end = leader_->log_end();

  // A rewrite no cut fits: one stored batch of limit + 1 records rewritten into limit + 1
  // one-record batches, with no stored batch boundary between them.
  {
    TempDir dir;
    auto a = open_store(small_options(dir.path()));
    ASSERT_TRUE(a);
    ASSERT_TRUE(set_role(*a, Role::kLeader, 1).ok());
    ASSERT_EQ(create(*a, 1), std::vector<PartitionId>{0});
    const auto big = make_batch({.records = static_cast<int>(limit + 1), .value_bytes = 1});
    ASSERT_TRUE(append(*a, 0, big).ok());
    ASSERT_TRUE(append(*a, 0, make_batch({.value_bytes = 4})).ok());
    std::vector<std::vector<std::byte>> straddling;
    for (int64_t i = 0; i <= limit; ++i) straddling.push_back(with_base(make_batch({.value_bytes = 2}), i));
    const int64_t a_end = a->log_end();
    const Status refused = rewrite(*a, 0, 0, limit + 1, straddling);
    EXPECT_EQ(refused.code(), StatusCode::kTooLarge) << refused.to_string();
    EXPECT_NE(refused.to_string().find(std::to_string(limit)), std::string::npos) << refused.to_string();
    EXPECT_EQ(a->log_end(), a_end);  // nothing written
    confirm(*a, a_end);
    const auto kept = view(*a, 0);
    ASSERT_EQ(kept.batches.size(), 2u);
    EXPECT_TRUE(std::equal(kept.batches[0].begin() + 16, kept.batches[0].end(), big.begin() + 16, big.end()));
  }

  // Every stored batch rewritten, one in 50 dropped: three commits' worth.
  std::vector<std::vector<std::byte>> out;
  for (size_t i = 0; i < n; ++i)
    if (i % 50 != 7) out.push_back(with_base(make_batch({.value_bytes = 2, .fill = 0x33}), static_cast<int64_t>(i)));
  ASSERT_GT(out.size(), static_cast<size_t>(2 * limit));
  const Status rewritten = rewrite(*leader_, 0, 0, static_cast<int64_t>(n), out);
  ASSERT_TRUE(rewritten.ok()) << rewritten.to_string();
  const auto commits = rewrite_commits(*leader_, end);
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_EQ(commits.front().from, 0);
  EXPECT_EQ(commits.back().to, static_cast<int64_t>(n));
  size_t named = 0;
  for (size_t i = 0; i < commits.size(); ++i) {
    EXPECT_LE(static_cast<int64_t>(commits[i].units.size()), limit);
    if (i > 0) { EXPECT_EQ(commits[i].from, commits[i - 1].to); }
    named += commits[i].units.size();
  }
  EXPECT_EQ(named, out.size());

  confirm(*leader_, leader_->log_end());
  {
    const auto v = view(*leader_, 0);
    ASSERT_EQ(v.batches.size(), out.size());
    EXPECT_EQ(v.batches[1000], out[1000]);
  }
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), 1);
  EXPECT_EQ(view(*follower_, 0).batches.back(), out.back());
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));  // its checkpoint may be older than the commits
  expect_same(*leader_, ldir_.path(), *follower_, fdir_.path(), 1);

  // A kSingle store writes no commit: the same rewrite, in one piece.
  TempDir sdir;
  auto single = open_store(small_options(sdir.path()));
  ASSERT_TRUE(single);
  ASSERT_NO_FATAL_FAILURE(fill(*single));
  ASSERT_TRUE(rewrite(*single, 0, 0, static_cast<int64_t>(n), out).ok());
  EXPECT_EQ(view(*single, 0).batches[5], out[5]);
}

TEST_F(ReplicationTest, HighWatermarksMoveWithConfirmationsNotAppends) {
  std::mutex mu;
  std::vector<PartitionId> woken;
  leader_->set_append_listener([&](std::span<const PartitionId> ids) {
    std::lock_guard lock(mu);
    woken.insert(woken.end(), ids.begin(), ids.end());
  });
  const PartitionId pid = create(*leader_, 1)[0];
  auto info = append(*leader_, pid, make_batch({.records = 3}));
  ASSERT_TRUE(info.ok());
  auto o = leader_->offsets(pid);
  EXPECT_EQ(o->next_offset, 3);
  EXPECT_EQ(o->high_watermark, 0);
  EXPECT_TRUE(leader_->read(pid, 0, 1 << 20)->batches.empty());
  confirm(*leader_, info->log_end - 1);  // not the whole entry
  EXPECT_EQ(leader_->offsets(pid)->high_watermark, 0);
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(woken.empty());  // appends do not wake fetches in a replicated role
  }
  confirm(*leader_, info->log_end);
  EXPECT_EQ(leader_->offsets(pid)->high_watermark, 3);
  EXPECT_EQ(leader_->read(pid, 0, 1 << 20)->batches.size(), 1u);
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(woken, std::vector<PartitionId>{pid});
  }
  // The follower's high watermarks move with the confirmations it is given, too.
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  EXPECT_EQ(follower_->offsets(pid)->next_offset, 3);
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 0);
  confirm(*follower_, info->log_end);
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 3);
  // A cut lowers it with the next offset.
  ASSERT_TRUE(truncate_to(*follower_, info->log_end - static_cast<int64_t>(format::kEntryHeaderSize + make_batch({.records = 3}).size())).ok());
  EXPECT_EQ(follower_->offsets(pid)->next_offset, 0);
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 0);
}

// C and the high watermarks are in the checkpoint: after a clean restart, and after a crash
// whose recovery took the checkpoint the next crash recovers from, they are where they were,
// not back at the start offset; a cut below C lowers both, and that is what survives.
TEST_F(ReplicationTest, TheConfirmedPositionAndHighWatermarksSurviveRestarts) {
  const PartitionId pid = create(*leader_, 1)[0];
  int64_t confirmed_end = 0, two_batches = 0;
  for (int i = 0; i < 3; ++i) {
    auto r = append(*leader_, pid, make_batch({.records = 2, .value_bytes = 300}));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    confirmed_end = r->log_end;
    if (i == 1) two_batches = r->log_end;
  }
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));  // the follower's last group ends at C
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(append(*leader_, pid, make_batch({.records = 2})).ok());  // never confirmed
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower_, rng_));
  confirm(*leader_, confirmed_end);
  confirm(*follower_, confirmed_end);
  ASSERT_EQ(leader_->offsets(pid)->high_watermark, 6);
  ASSERT_EQ(follower_->offsets(pid)->high_watermark, 6);
  EXPECT_EQ(leader_->confirmed_position(), confirmed_end);

  ASSERT_TRUE(leader_->close().ok());
  leader_ = open_store(small_options(ldir_.path()));
  ASSERT_TRUE(leader_);
  EXPECT_EQ(leader_->confirmed_position(), confirmed_end);  // what a new ReplicationServer starts from
  ASSERT_TRUE(set_role(*leader_, Role::kLeader, 2).ok());
  EXPECT_EQ(leader_->offsets(pid)->next_offset, 10);
  EXPECT_EQ(leader_->offsets(pid)->high_watermark, 6);
  EXPECT_EQ(view(*leader_, pid, ReadUntil::kHighWatermark).batches.size(), 3u);

  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/false));
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 6);
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 6);
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/true));  // from the checkpoint the last recovery wrote
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 6);
  EXPECT_EQ(follower_->confirmed_position(), confirmed_end);
  confirm(*follower_, follower_->log_end());  // and it moves on from there
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 10);

  // A cut below C: C and the high watermark come down with it, and stay down across a restart.
  ASSERT_TRUE(truncate_to(*follower_, two_batches).ok());
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 4);
  EXPECT_EQ(follower_->confirmed_position(), two_batches);
  ASSERT_NO_FATAL_FAILURE(reopen_follower(/*crash=*/false));
  EXPECT_EQ(follower_->offsets(pid)->next_offset, 4);
  EXPECT_EQ(follower_->offsets(pid)->high_watermark, 4);
  EXPECT_EQ(follower_->confirmed_position(), two_batches);
}

// A checkpoint of the previous version (4: no C, no high watermarks) still opens with every
// batch; a replicated role then starts its high watermarks at the start offset, as before.
TEST_F(ReplicationTest, AVersion4CheckpointOpensWithoutAConfirmedPosition) {
  const PartitionId pid = create(*leader_, 1)[0];
  int64_t end = 0;
  for (int i = 0; i < 3; ++i) end = append(*leader_, pid, make_batch({.records = 2})).value().log_end;
  confirm(*leader_, end);
  ASSERT_TRUE(leader_->close().ok());
  leader_.reset();
  // The version 5 file, re-encoded in the version 4 layout (FORMAT.md): no confirmed position
  // after the segment ages, no high watermark after each partition's digest.
  const auto path = ldir_.path() / "checkpoint";
  auto bytes = read_file(FileSystem::real(), path);
  ASSERT_TRUE(bytes.ok());
  auto cp = decode_checkpoint(*bytes);
  ASSERT_TRUE(cp.ok()) << cp.status().to_string();
  ASSERT_EQ(cp->confirmed, end);
  format::Encoder body;
  body.i64(cp->log_end.value);
  body.u32(cp->next_chunk);
  body.u32(static_cast<uint32_t>(cp->free_chunks.size()));
  for (uint32_t c : cp->free_chunks) body.u32(c);
  body.u32(cp->chunk_units);
  body.u32(cp->first_chunk_units);
  body.u32(static_cast<uint32_t>(cp->free_small_chunks.size()));
  for (uint32_t c : cp->free_small_chunks) body.u32(c);
  body.u32(static_cast<uint32_t>(cp->segment_ages.size()));
  for (const auto& [start, ms] : cp->segment_ages) {
    body.i64(start);
    body.i64(ms);
  }
  body.u32(static_cast<uint32_t>(cp->partitions.size()));
  for (const auto& p : cp->partitions) {
    const auto& q = p.queue;
    body.u32(p.id);
    for (int64_t v : {q.floor, q.next_offset, q.first_unit, q.unit_end, q.running_max_ts, q.first_base,
                      q.dir.first_chunk_ordinal})
      body.i64(v);
    body.u8(q.dir.small_first ? 1 : 0);
    body.u32(static_cast<uint32_t>(q.dir.chunks.size()));
    for (uint32_t c : q.dir.chunks) body.u32(c);
    body.u8(q.digest ? 1 : 0);
    body.u64(q.digest.value_or(0));
    p.producers.encode(body);
    if (p.txns) {
      p.txns->encode(body);
    } else {
      body.u32(0);
      body.u32(0);
    }
  }
  std::vector<std::byte> file(format::kCheckpointHeaderSize);
  format::put_le32(file.data(), format::kCheckpointMagic);
  format::put_le32(file.data() + 4, 4);
  format::put_le64(file.data() + 8, body.buffer().size());
  format::put_le32(file.data() + 16, crc32c(body.buffer()));
  file.insert(file.end(), body.buffer().begin(), body.buffer().end());
  ASSERT_TRUE(write_file_atomic(FileSystem::real(), path, file).ok());

  leader_ = open_store(small_options(ldir_.path()));
  ASSERT_TRUE(leader_);
  EXPECT_EQ(view(*leader_, pid).batches.size(), 3u);  // kSingle: everything readable
  EXPECT_EQ(leader_->confirmed_position(), 0);
  ASSERT_TRUE(set_role(*leader_, Role::kLeader, 2).ok());
  EXPECT_EQ(leader_->offsets(pid)->high_watermark, 0);
  confirm(*leader_, leader_->log_end());
  EXPECT_EQ(leader_->offsets(pid)->high_watermark, 6);
}

TEST_F(ReplicationTest, ReadLogStopsAtMaxBytesButReturnsAWholeFirstEntry) {
  create(*leader_, 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(append(*leader_, 0, make_batch({.value_bytes = 1000})).ok());
  const int64_t begin = 0;
  auto one = leader_->read_log(begin, 1);
  ASSERT_TRUE(one.ok());
  ASSERT_GE(one->bytes.size(), static_cast<size_t>(format::kEntryHeaderSize));
  EXPECT_EQ(static_cast<int64_t>(format::get_le32(one->bytes.data() + 4)), static_cast<int64_t>(one->bytes.size()));
  auto all = leader_->read_log(begin, 1 << 20);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(static_cast<int64_t>(all->bytes.size()), leader_->log_end());
  auto mid = leader_->read_log(begin + 1, 1 << 20);  // not an entry boundary
  EXPECT_EQ(mid.status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace rokka::storage::test
