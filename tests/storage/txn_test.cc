// Transactions in storage: the last stable offset and the aborted-transaction index a
// partition derives from its transactional and control batches, across a clean
// restart, a crash, a lost checkpoint and a cut log tail; and the producer-epoch rules
// for transaction markers.
#include <gtest/gtest.h>

#include <fstream>

#include "storage/checkpoint.h"
#include "storage/format.h"
#include "storage/txn_index.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

namespace fb = format::batch;
using testutil::make_batch;
using testutil::make_control_batch;
using testutil::TempDir;

// A transactional batch of `records` records from producer `pid`.
std::vector<std::byte> txn(int64_t pid, int16_t epoch, int32_t seq, int32_t records = 1) {
  return make_batch({.records = records, .producer_id = pid, .producer_epoch = epoch, .base_sequence = seq,
                     .attributes = fb::kTransactionalBit});
}
std::vector<std::byte> commit(int64_t pid, int16_t epoch) { return make_control_batch(pid, epoch, true); }
std::vector<std::byte> abort_marker(int64_t pid, int16_t epoch) { return make_control_batch(pid, epoch, false); }

class TxnStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_store(options_);
    pid_ = create(*store_, 1)[0];
  }
  int64_t append_ok(const std::vector<std::byte>& batch) {
    auto r = append(*store_, pid_, batch);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? r->base_offset : -1;
  }
  PartitionOffsets offsets() const { return *store_->offsets(pid_); }
  std::vector<AbortedTxn> aborted_from(int64_t offset) const {
    auto r = store_->read(pid_, offset, 1 << 20);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->aborted : std::vector<AbortedTxn>{};
  }
  void reopen() {
    store_.reset();  // a crash: no close, no checkpoint at the end
    store_ = open_store(options_);
  }
  void restart_cleanly() {
    ASSERT_TRUE(store_->close().ok());
    store_ = open_store(options_);
  }
  // Offsets 0..9: two producers' transactions interleaved with plain batches.
  //   0 A(txn)  1 plain  2 B(txn)  3 A(txn)  4 ABORT A  5 plain  6 COMMIT B  7 C(txn)
  void write_history() {
    ASSERT_EQ(append_ok(txn(100, 0, 0)), 0);
    ASSERT_EQ(append_ok(make_batch({})), 1);
    ASSERT_EQ(append_ok(txn(200, 0, 0)), 2);
    ASSERT_EQ(append_ok(txn(100, 0, 1)), 3);
    ASSERT_EQ(append_ok(abort_marker(100, 0)), 4);
    ASSERT_EQ(append_ok(make_batch({})), 5);
    ASSERT_EQ(append_ok(commit(200, 0)), 6);
    ASSERT_EQ(append_ok(txn(300, 0, 0)), 7);
  }
  void expect_history_state() {
    const PartitionOffsets o = offsets();
    EXPECT_EQ(o.next_offset, 8);
    EXPECT_EQ(o.last_stable_offset, 7);  // C is still open
    EXPECT_EQ(aborted_from(0), (std::vector<AbortedTxn>{{100, 0, 4}}));
    EXPECT_EQ(aborted_from(5), (std::vector<AbortedTxn>{}));
  }

  TempDir dir_;
  StoreOptions options_ = small_options(dir_.path());
  std::unique_ptr<Store> store_;
  PartitionId pid_ = 0;
};

TEST_F(TxnStoreTest, WithoutTransactionsTheLastStableOffsetIsTheHighWatermark) {
  EXPECT_EQ(offsets().last_stable_offset, 0);
  append_ok(make_batch({.records = 3}));
  append_ok(make_batch({.records = 1, .producer_id = 5, .producer_epoch = 0, .base_sequence = 0}));
  EXPECT_EQ(offsets().last_stable_offset, 4);
  EXPECT_TRUE(aborted_from(0).empty());
}

TEST_F(TxnStoreTest, AnOpenTransactionHoldsTheLastStableOffsetAtItsFirstBatch) {
  append_ok(make_batch({.records = 2}));         // 0-1
  append_ok(txn(100, 0, 0, 3));                   // 2-4
  append_ok(make_batch({}));                      // 5
  append_ok(txn(100, 0, 3));                      // 6: same transaction
  EXPECT_EQ(offsets().next_offset, 7);
  EXPECT_EQ(offsets().last_stable_offset, 2);
  append_ok(commit(100, 0));                      // 7
  EXPECT_EQ(offsets().next_offset, 8);
  EXPECT_EQ(offsets().last_stable_offset, 8);
  EXPECT_TRUE(aborted_from(0).empty());  // committed: nothing to skip
}

TEST_F(TxnStoreTest, AbortIsIndexedAndTheEarliestOpenTransactionBoundsStability) {
  append_ok(txn(100, 0, 0));  // 0
  append_ok(txn(200, 0, 0));  // 1
  EXPECT_EQ(offsets().last_stable_offset, 0);
  append_ok(abort_marker(100, 0));  // 2
  EXPECT_EQ(offsets().last_stable_offset, 1);  // B is still open
  EXPECT_EQ(aborted_from(0), (std::vector<AbortedTxn>{{100, 0, 2}}));
  append_ok(commit(200, 0));  // 3
  EXPECT_EQ(offsets().last_stable_offset, 4);
  // A new transaction of A starts at its next batch, not at its old first offset.
  append_ok(txn(100, 0, 1));  // 4
  EXPECT_EQ(offsets().last_stable_offset, 4);
}

TEST_F(TxnStoreTest, ReadReturnsOnlyAbortedTransactionsOverlappingTheBatchesRead) {
  for (int i = 0; i < 3; ++i) {  // three aborted transactions: [0,1] [2,3] [4,5]
    append_ok(txn(100, 0, i));
    append_ok(abort_marker(100, 0));
  }
  EXPECT_EQ(aborted_from(0).size(), 3u);
  EXPECT_EQ(aborted_from(2), (std::vector<AbortedTxn>{{100, 2, 3}, {100, 4, 5}}));
  EXPECT_EQ(aborted_from(4), (std::vector<AbortedTxn>{{100, 4, 5}}));
  // Reading only the batch at 2 (max_bytes 1 returns one batch): [4,5] starts after it.
  auto r = store_->read(pid_, 2, 1);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->batches.size(), 1u);
  EXPECT_EQ(r->aborted, (std::vector<AbortedTxn>{{100, 2, 3}}));
}

TEST_F(TxnStoreTest, MarkerNeedsNoSequenceAndIsFencedByANewerEpoch) {
  append_ok(txn(100, 3, 0));
  // A marker written with an older epoch than the partition knows is refused.
  EXPECT_EQ(append(*store_, pid_, abort_marker(100, 2)).status().code(), StatusCode::kInvalidProducerEpoch);
  // The coordinator aborts with a bumped epoch: the zombie's next batch is fenced...
  EXPECT_EQ(append_ok(abort_marker(100, 4)), 1);
  EXPECT_EQ(append(*store_, pid_, txn(100, 3, 1)).status().code(), StatusCode::kInvalidProducerEpoch);
  // ... and the re-initialized producer starts its new epoch at sequence 0.
  EXPECT_EQ(append(*store_, pid_, txn(100, 5, 7)).status().code(), StatusCode::kOutOfOrderSequence);
  EXPECT_EQ(append_ok(txn(100, 5, 0)), 2);
  EXPECT_EQ(aborted_from(0), (std::vector<AbortedTxn>{{100, 0, 1}}));
}

TEST_F(TxnStoreTest, MarkerWithoutATransactionOnThePartitionChangesNothing) {
  append_ok(make_batch({}));
  append_ok(commit(100, 0));
  append_ok(abort_marker(200, 0));
  EXPECT_EQ(offsets().last_stable_offset, 3);
  EXPECT_TRUE(aborted_from(0).empty());
}

TEST_F(TxnStoreTest, StateSurvivesACleanRestart) {
  write_history();
  restart_cleanly();
  expect_history_state();
}

TEST_F(TxnStoreTest, StateSurvivesACrashAfterACheckpoint) {
  append_ok(txn(100, 0, 0));
  append_ok(txn(200, 0, 0));
  restart_cleanly();  // the checkpoint holds both open transactions
  append_ok(abort_marker(100, 0));  // 2: only in the log tail
  reopen();
  EXPECT_EQ(offsets().last_stable_offset, 1);
  EXPECT_EQ(aborted_from(0), (std::vector<AbortedTxn>{{100, 0, 2}}));
  append_ok(commit(200, 0));
  EXPECT_EQ(offsets().last_stable_offset, 4);
}

TEST_F(TxnStoreTest, StateIsRebuiltFromTheLogWhenTheCheckpointIsLost) {
  write_history();
  ASSERT_TRUE(store_->close().ok());
  store_.reset();
  std::filesystem::remove(dir_.path() / "checkpoint");
  store_ = open_store(options_);
  expect_history_state();
}

TEST_F(TxnStoreTest, ACutAbortMarkerReopensItsTransaction) {
  append_ok(txn(100, 0, 0));        // 0
  append_ok(abort_marker(100, 0));  // 1
  ASSERT_TRUE(store_->close().ok());
  store_.reset();
  // Tear the marker's entry (the last one in the log), then reopen as after a crash.
  const auto seg = dir_.path() / "commitlog" / format::segment_name(0);
  const int64_t marker_at = format::kEntryHeaderSize + static_cast<int64_t>(txn(100, 0, 0).size());
  {
    std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(marker_at + format::kEntryHeaderSize + fb::kRecordsCount);
    f.put('\x7f');
  }
  std::ofstream(dir_.path() / "abort").put('x');  // the checkpoint still lists the abort
  store_ = open_store(options_);
  EXPECT_EQ(offsets().next_offset, 1);
  EXPECT_EQ(offsets().last_stable_offset, 0);
  EXPECT_TRUE(aborted_from(0).empty());
}

TEST(TxnIndexTest, TruncateDropsWhatTheCutRemovedAndReopensACutAbort) {
  TxnIndex ix;
  ix.on_batch(txn(100, 0, 0), 0);
  ix.on_batch(abort_marker(100, 0), 5);
  ix.on_batch(txn(200, 0, 0), 6);
  ix.publish();
  EXPECT_EQ(ix.first_unstable(), 6);
  ix.truncate(5);  // the marker at 5 and B's batch at 6 are gone
  ix.publish();
  EXPECT_EQ(ix.first_unstable(), 0);
  EXPECT_TRUE(ix.aborted_overlapping(0, 100).empty());
}

TEST(TxnIndexTest, TrimForgetsAbortsBelowTheLogStart) {
  TxnIndex ix;
  for (int i = 0; i < 4; ++i) {
    ix.on_batch(txn(100, 0, i), 10 * i);
    ix.on_batch(abort_marker(100, 0), 10 * i + 5);
  }
  ix.trim(16);  // markers at 5 and 15 are below
  EXPECT_EQ(ix.aborted_overlapping(0, 100), (std::vector<AbortedTxn>{{100, 20, 25}, {100, 30, 35}}));
}

TEST(TxnIndexTest, CheckpointRoundTripAndEveryTruncationFails) {
  TxnIndex ix;
  ix.on_batch(txn(100, 0, 0), 0);
  ix.on_batch(abort_marker(100, 0), 1);
  ix.on_batch(txn(200, 0, 0), 2);
  ConsumeQueue::State q;
  q.next_offset = 3;
  CheckpointWriter w({64}, 1, {}, {});
  w.add_partition(0, q, nullptr, &ix);
  const auto good = w.finish();
  auto cp = decode_checkpoint(good);
  ASSERT_TRUE(cp.ok()) << cp.status().to_string();
  ASSERT_NE(cp->partitions.at(0).txns, nullptr);
  TxnIndex& back = *cp->partitions[0].txns;
  back.publish();
  EXPECT_EQ(back.first_unstable(), 2);
  EXPECT_EQ(back.aborted_overlapping(0, 3), (std::vector<AbortedTxn>{{100, 0, 1}}));
  for (size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(decode_checkpoint(std::span(good).first(n)).ok()) << n;
}

TEST(TxnIndexTest, DecodeRefusesUnsortedOrInvertedAbortsAndHugeCounts) {
  auto decode = [](const std::function<void(format::Encoder&)>& body) {
    format::Encoder e;
    body(e);
    format::Decoder d(e.buffer());
    TxnIndex ix;
    return ix.decode(d);
  };
  EXPECT_TRUE(decode([](format::Encoder& e) {
    e.u32(0);
    e.u32(2);
    for (int64_t v : {1, 0, 3, 1, 2, 5}) e.i64(v);
  }));
  EXPECT_FALSE(decode([](format::Encoder& e) {  // markers out of order
    e.u32(0);
    e.u32(2);
    for (int64_t v : {1, 0, 5, 1, 2, 3}) e.i64(v);
  }));
  EXPECT_FALSE(decode([](format::Encoder& e) {  // first offset after the marker
    e.u32(0);
    e.u32(1);
    for (int64_t v : {1, 9, 3}) e.i64(v);
  }));
  EXPECT_FALSE(decode([](format::Encoder& e) { e.u32(0x7fffffff); }));  // count beyond the bytes
}

TEST(ControlTypeTest, ReadsTheMarkerAndRejectsMalformedRecords) {
  EXPECT_EQ(fb::control_record_type(make_control_batch(1, 0, true)), fb::kControlCommit);
  EXPECT_EQ(fb::control_record_type(make_control_batch(1, 0, false)), fb::kControlAbort);
  const auto good = make_control_batch(1, 0, true);
  for (size_t n = fb::kHeaderSize; n < fb::kHeaderSize + 9; ++n)  // cut inside the record's first fields or key
    EXPECT_EQ(fb::control_record_type(std::span(good).first(n)), -1) << n;
  auto compressed = good;
  compressed[fb::kAttributes + 1] |= std::byte{1};  // gzip bit
  EXPECT_EQ(fb::control_record_type(compressed), -1);
  auto bad_varint = good;
  for (size_t i = fb::kHeaderSize; i < bad_varint.size(); ++i) bad_varint[i] = std::byte{0xff};
  EXPECT_EQ(fb::control_record_type(bad_varint), -1);
}

}  // namespace
}  // namespace rokka::storage::test
