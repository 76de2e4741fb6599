// Idempotent producers (Kafka's ProducerStateManager rules, see storage/producer_state.h).
#include "storage/producer_state.h"

#include <gtest/gtest.h>

#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

std::vector<std::byte> idem(int64_t pid, int16_t epoch, int32_t seq, int32_t records = 1, uint8_t fill = 1) {
  return make_batch({.records = records, .producer_id = pid, .producer_epoch = epoch, .base_sequence = seq,
                     .fill = fill});
}

class IdempotenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_store(options_);
    pid_ = create(*store_, 1)[0];
  }
  TempDir dir_;
  StoreOptions options_ = small_options(dir_.path());
  std::unique_ptr<Store> store_;
  PartitionId pid_ = 0;
};

TEST_F(IdempotenceTest, RetryOfOneOfTheLastFiveReturnsTheOriginalOffsetAndStoresNothing) {
  for (int i = 0; i < 6; ++i) ASSERT_EQ(append(*store_, pid_, idem(7, 0, i * 2, 2))->base_offset, i * 2);
  // batches 1..5 (sequences 2..11) are remembered; batch 0 (0..1) fell out of the window
  auto dup = append(*store_, pid_, idem(7, 0, 4, 2, 9));
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup->base_offset, 4);
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 12);
  EXPECT_EQ(append(*store_, pid_, idem(7, 0, 0, 2)).status().code(), StatusCode::kOutOfOrderSequence);
  EXPECT_EQ(append(*store_, pid_, idem(7, 0, 12))->base_offset, 12);
}

TEST_F(IdempotenceTest, SequenceGapIsOutOfOrder) {
  ASSERT_TRUE(append(*store_, pid_, idem(7, 0, 0)).ok());
  EXPECT_EQ(append(*store_, pid_, idem(7, 0, 2)).status().code(), StatusCode::kOutOfOrderSequence);
  EXPECT_EQ(store_->offsets(pid_)->next_offset, 1);
  EXPECT_TRUE(append(*store_, pid_, idem(7, 0, 1)).ok());
}

TEST_F(IdempotenceTest, OlderEpochIsRejectedAndNewerEpochMustStartAtZero) {
  ASSERT_TRUE(append(*store_, pid_, idem(7, 3, 0)).ok());
  EXPECT_EQ(append(*store_, pid_, idem(7, 2, 1)).status().code(), StatusCode::kInvalidProducerEpoch);
  EXPECT_EQ(append(*store_, pid_, idem(7, 4, 5)).status().code(), StatusCode::kOutOfOrderSequence);
  EXPECT_TRUE(append(*store_, pid_, idem(7, 4, 0)).ok());
  // the old epoch's batches are forgotten: a retry of epoch 3 seq 0 is fenced, not a duplicate
  EXPECT_EQ(append(*store_, pid_, idem(7, 3, 0)).status().code(), StatusCode::kInvalidProducerEpoch);
}

TEST_F(IdempotenceTest, UnknownProducerIsAcceptedAtAnySequence) {
  EXPECT_EQ(append(*store_, pid_, idem(8, 0, 42))->base_offset, 0);
  EXPECT_EQ(append(*store_, pid_, idem(8, 0, 43))->base_offset, 1);
}

TEST_F(IdempotenceTest, SequencesWrapAtInt32Max) {
  ASSERT_TRUE(append(*store_, pid_, idem(9, 0, INT32_MAX - 1, 2)).ok());  // covers MAX-1, MAX
  EXPECT_TRUE(append(*store_, pid_, idem(9, 0, 0, 3)).ok());
  EXPECT_TRUE(append(*store_, pid_, idem(9, 0, 3)).ok());
  EXPECT_EQ(increment_sequence(INT32_MAX - 1, 3), 1);
}

TEST_F(IdempotenceTest, StateSurvivesCleanRestartAndCrash) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(append(*store_, pid_, idem(7, 1, i)).ok());
  ASSERT_TRUE(store_->close().ok());
  store_ = open_store(options_);
  EXPECT_EQ(append(*store_, pid_, idem(7, 1, 1))->base_offset, 1);  // duplicate after clean restart
  ASSERT_TRUE(append(*store_, pid_, idem(7, 1, 3)).ok());
  store_.reset();  // crash: state after the checkpoint comes back from the log tail
  store_ = open_store(options_);
  EXPECT_EQ(append(*store_, pid_, idem(7, 1, 3))->base_offset, 3);
  EXPECT_EQ(append(*store_, pid_, idem(7, 1, 5)).status().code(), StatusCode::kOutOfOrderSequence);
  EXPECT_EQ(append(*store_, pid_, idem(7, 1, 4))->base_offset, 4);
}

TEST_F(IdempotenceTest, StateIsRebuiltFromTheLogWhenTheCheckpointIsLost) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(append(*store_, pid_, idem(7, 1, i)).ok());
  ASSERT_TRUE(store_->close().ok());
  std::filesystem::remove(dir_.path() / "checkpoint");
  store_ = open_store(options_);
  EXPECT_EQ(append(*store_, pid_, idem(7, 1, 2))->base_offset, 2);
  EXPECT_EQ(append(*store_, pid_, idem(7, 1, 4)).status().code(), StatusCode::kOutOfOrderSequence);
}

TEST(ProducerStateTableTest, SnapshotRoundTripsAndRejectsHostileCounts) {
  ProducerStateTable t;
  t.update(5, 2, {0, 9, 100, -1}, 1000);
  format::Encoder e;
  t.encode(e);
  ProducerStateTable back;
  format::Decoder d(e.buffer());
  ASSERT_TRUE(back.decode(d));
  EXPECT_TRUE(back.check(5, 2, 0, 9)->has_value());
  format::Encoder hostile;
  hostile.u32(0x7fffffff);
  format::Decoder hd(hostile.buffer());
  ProducerStateTable none;
  EXPECT_FALSE(none.decode(hd));
}

}  // namespace
}  // namespace rokka::storage::test
