// Store::epoch_end_offset (OffsetForLeaderEpoch, as Kafka's leader epoch cache answers it):
// the epoch a leader stamped into each batch, found in offset order, through role
// changes, on a follower, after a cut tail, after a compaction rewrite moved batches to
// later log positions, on a store that never led, and while the writer appends.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "storage/format.h"
#include "storage/store.h"
#include "tests/storage/store_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage::test {
namespace {

namespace fb = format::batch;
using testutil::make_batch;
using testutil::TempDir;

EpochEndOffset answer(const Store& s, PartitionId pid, int32_t epoch) {
  auto r = s.epoch_end_offset(pid, epoch);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : EpochEndOffset{-2, -2};
}

int64_t next_offset(const Store& s, PartitionId pid) { return s.offsets(pid).value().next_offset; }

// Appends `n` batches of 3 records; the base offset of the first.
int64_t append_n(Store& s, PartitionId pid, int n) {
  int64_t first = -1;
  for (int i = 0; i < n; ++i) {
    auto r = append(s, pid, make_batch({.records = 3, .value_bytes = 300 + 17 * i}));
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (r.ok() && first < 0) first = r->base_offset;
  }
  return first;
}

Status replicate(Store& s, int64_t from, std::span<const std::byte> bytes) {
  return wait_for<Status>([&](auto cb) { s.append_replicated(from, bytes, cb); });
}

// Copies the leader's log to the follower up to the leader's end.
void pump(Store& leader, Store& follower) {
  while (follower.log_end() < leader.log_end()) {
    const int64_t from = follower.log_end();
    auto slice = leader.read_log(from, 1 << 20);
    ASSERT_TRUE(slice.ok()) << slice.status().to_string();
    ASSERT_FALSE(slice->bytes.empty());
    ASSERT_TRUE(replicate(follower, from, slice->bytes).ok());
  }
}

// A leader at epoch 3, then 5: partition 0 has batches of both, 1 only of epoch 3, 2 none.
class EpochEndOffsetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leader_ = open_store(small_options(ldir_.path()));
    ASSERT_TRUE(leader_);
    ASSERT_TRUE(set_role(*leader_, Role::kLeader, 3).ok());
    ASSERT_EQ(create(*leader_, 3).size(), 3u);
    ASSERT_EQ(append_n(*leader_, 0, 6), 0);
    ASSERT_EQ(append_n(*leader_, 1, 4), 0);
    epoch5_start_ = leader_->log_end();
    ASSERT_TRUE(set_role(*leader_, Role::kLeader, 5).ok());
    first5_ = append_n(*leader_, 0, 5);
    ASSERT_EQ(first5_, 18);  // after six batches of three records
  }

  // What every member of the group must answer for the setup's log.
  void expect_setup_answers(const Store& s) {
    const int64_t leo0 = next_offset(s, 0), leo1 = next_offset(s, 1);
    EXPECT_EQ(leo0, first5_ + 15);
    EXPECT_EQ(leo1, 12);
    EXPECT_EQ(answer(s, 0, 1), (EpochEndOffset{-1, 0}));  // below every epoch held: the first one's start
    EXPECT_EQ(answer(s, 0, 3), (EpochEndOffset{3, first5_}));
    EXPECT_EQ(answer(s, 0, 4), (EpochEndOffset{3, first5_}));
    EXPECT_EQ(answer(s, 0, 5), (EpochEndOffset{5, leo0}));
    EXPECT_EQ(answer(s, 0, 6), (EpochEndOffset{}));  // above the last epoch: unknown
    EXPECT_EQ(answer(s, 0, -1), (EpochEndOffset{}));
    EXPECT_EQ(answer(s, 1, 3), (EpochEndOffset{3, leo1}));
    EXPECT_EQ(answer(s, 1, 4), (EpochEndOffset{3, leo1}));
    EXPECT_EQ(answer(s, 1, 5), (EpochEndOffset{5, leo1}));  // the last epoch, with no batch of it
    EXPECT_EQ(answer(s, 2, 3), (EpochEndOffset{-1, 0}));    // empty
    EXPECT_EQ(answer(s, 2, 5), (EpochEndOffset{5, 0}));
    EXPECT_EQ(answer(s, 2, 6), (EpochEndOffset{}));
  }

  TempDir ldir_, fdir_;
  std::unique_ptr<Store> leader_;
  int64_t epoch5_start_ = 0;
  int64_t first5_ = 0;
};

TEST_F(EpochEndOffsetTest, AnswersFromTheStampedEpochsOnLeaderAndFollower) {
  expect_setup_answers(*leader_);

  auto follower = open_store(small_options(fdir_.path()));
  ASSERT_TRUE(follower);
  ASSERT_TRUE(set_role(*follower, Role::kFollower, 5).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower));
  expect_setup_answers(*follower);

  // And after both reopen (the answers come from the log and the journal, nothing in memory).
  ASSERT_TRUE(leader_->close().ok());
  leader_ = open_store(small_options(ldir_.path()));
  ASSERT_TRUE(leader_);
  expect_setup_answers(*leader_);
  follower.reset();  // a crash
  follower = open_store(small_options(fdir_.path()));
  ASSERT_TRUE(follower);
  expect_setup_answers(*follower);
}

TEST_F(EpochEndOffsetTest, AnUnknownOrDeletedPartitionIsNotFoundAsForReads) {
  EXPECT_EQ(leader_->epoch_end_offset(99, 3).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(leader_->read(99, 0, 1).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(delete_partition(*leader_, 1).ok());
  EXPECT_EQ(leader_->epoch_end_offset(1, 3).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(leader_->offsets(1).status().code(), StatusCode::kNotFound);
}

TEST_F(EpochEndOffsetTest, ACutTailTakesItsEpochAndANewLeaderStartsAfterIt) {
  auto follower = open_store(small_options(fdir_.path()));
  ASSERT_TRUE(follower);
  ASSERT_TRUE(set_role(*follower, Role::kFollower, 5).ok());
  ASSERT_NO_FATAL_FAILURE(pump(*leader_, *follower));
  // Epoch 5 never reached the rest of the group: the follower cuts it and leads epoch 6.
  ASSERT_TRUE(wait_for<Status>([&](auto cb) { follower->truncate_to(epoch5_start_, cb); }).ok());
  ASSERT_EQ(next_offset(*follower, 0), first5_);
  EXPECT_EQ(answer(*follower, 0, 3), (EpochEndOffset{3, first5_}));  // the last epoch again
  EXPECT_EQ(answer(*follower, 0, 5), (EpochEndOffset{}));            // no longer known
  ASSERT_TRUE(set_role(*follower, Role::kLeader, 6).ok());
  const int64_t first6 = append_n(*follower, 0, 2);
  ASSERT_EQ(first6, first5_);
  EXPECT_EQ(answer(*follower, 0, 3), (EpochEndOffset{3, first6}));
  EXPECT_EQ(answer(*follower, 0, 5), (EpochEndOffset{3, first6}));
  EXPECT_EQ(answer(*follower, 0, 6), (EpochEndOffset{6, first6 + 6}));
  EXPECT_EQ(answer(*follower, 1, 5), (EpochEndOffset{3, 12}));
}

TEST_F(EpochEndOffsetTest, ACompactionRewriteKeepsEachBatchsEpochByOffset) {
  // The cleaner copies each kept batch's header, epoch included; the rewritten batches are
  // written at the log's end, in epoch 5's positions, but still answer for epoch 3.
  auto kept = [](int64_t base) {
    auto b = with_base(make_batch({.records = 3, .value_bytes = 40, .fill = 0x11}), base);
    format::put_be(b.data() + fb::kLeaderEpoch, uint32_t{3}, 4);
    return b;
  };
  const std::vector<std::vector<std::byte>> batches = {kept(3), kept(9)};
  Store::RewriteRequest rq{0, 0, 15, {}};
  for (const auto& b : batches) rq.batches.emplace_back(b);
  ASSERT_TRUE(wait_for<Status>([&](auto cb) { leader_->rewrite(std::move(rq), cb); }).ok());
  EXPECT_EQ(answer(*leader_, 0, 1), (EpochEndOffset{-1, 0}));
  EXPECT_EQ(answer(*leader_, 0, 3), (EpochEndOffset{3, first5_}));
  EXPECT_EQ(answer(*leader_, 0, 4), (EpochEndOffset{3, first5_}));
  EXPECT_EQ(answer(*leader_, 0, 5), (EpochEndOffset{5, first5_ + 15}));
  // Below the start offset nothing counts: delete_records past the epoch-3 batches.
  ASSERT_TRUE(delete_records(*leader_, 0, first5_ + 1).ok());
  EXPECT_EQ(answer(*leader_, 0, 3), (EpochEndOffset{-1, first5_ + 1}));
  EXPECT_EQ(answer(*leader_, 0, 4), (EpochEndOffset{-1, first5_ + 1}));
}

TEST_F(EpochEndOffsetTest, ReadersAnswerWhileTheWriterAppends) {
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, reads{0};
  std::thread reader([&] {
    int64_t last5 = 0;
    while (!stop.load()) {
      auto three = leader_->epoch_end_offset(0, 3);
      auto five = leader_->epoch_end_offset(0, 5);
      if (!three.ok() || !five.ok() || !(*three == EpochEndOffset{3, first5_}) || five->leader_epoch != 5 ||
          five->end_offset < last5)
        bad.fetch_add(1);
      if (five.ok()) last5 = five->end_offset;
      reads.fetch_add(1);
    }
  });
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(append(*leader_, 0, make_batch({.records = 2})).ok());
  while (reads.load() < 10) std::this_thread::yield();
  stop.store(true);
  reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(answer(*leader_, 0, 5), (EpochEndOffset{5, first5_ + 15 + 400}));
}

// A store that never led writes the producer's PartitionLeaderEpoch unchanged: it is no
// epoch of the store's, and the store knows none.
TEST(EpochEndOffsetSingleTest, AStoreThatNeverLedKnowsNoEpoch) {
  TempDir dir;
  auto s = open_store(small_options(dir.path()));
  ASSERT_TRUE(s);
  ASSERT_EQ(create(*s, 1).size(), 1u);
  auto b = make_batch({.records = 2});
  format::put_be(b.data() + fb::kLeaderEpoch, uint32_t{7}, 4);
  ASSERT_TRUE(append(*s, 0, b).ok());
  const auto stored = read_one(*s, 0, 0);
  ASSERT_FALSE(stored.empty());
  EXPECT_EQ(fb::i32(stored, fb::kLeaderEpoch), 7);  // as the producer sent it
  EXPECT_TRUE(s->epochs().empty());
  for (int32_t e : {-1, 0, 7, 8}) EXPECT_EQ(answer(*s, 0, e), (EpochEndOffset{})) << "epoch " << e;
  EXPECT_EQ(s->epoch_end_offset(1, 0).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rokka::storage::test
