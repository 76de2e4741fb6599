// What the admin APIs read of one partition: the bytes its batches hold
// (DescribeLogDirs) and the producers it keeps state for (DescribeProducers), as
// batches arrive, records are deleted, transactions open and close, and after a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

namespace fb = format::batch;
using testutil::make_batch;
using testutil::make_control_batch;
using testutil::TempDir;

Result<std::vector<ActiveProducer>> producers(Store& s, PartitionId pid) {
  std::promise<Result<std::vector<ActiveProducer>>> p;
  s.active_producers(pid, [&](Result<std::vector<ActiveProducer>> r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}

TEST(PartitionStateTest, PartitionBytesAreTheStoredBatchesFromTheStartOffset) {
  TempDir dir;
  StoreOptions o = small_options(dir.path());
  PartitionId pid;
  const auto a = make_batch({.records = 5, .value_bytes = 100});   // offsets 0-4
  const auto b = make_batch({.records = 5, .value_bytes = 300});   // 5-9
  const auto c = make_batch({.records = 2, .value_bytes = 1000});  // 10-11
  const int64_t all = static_cast<int64_t>(a.size() + b.size() + c.size());
  {
    auto store = open_store(o);
    const auto pids = create(*store, 2);
    pid = pids[0];
    EXPECT_EQ(*store->partition_bytes(pid), 0);
    // Enough batches to span several index chunks (4 units each) on the other partition.
    for (int i = 0; i < 9; ++i) ASSERT_TRUE(append(*store, pids[1], a).ok());
    for (const auto* batch : {&a, &b, &c}) ASSERT_TRUE(append(*store, pid, *batch).ok());
    EXPECT_EQ(*store->partition_bytes(pid), all);
    EXPECT_EQ(*store->partition_bytes(pids[1]), 9 * static_cast<int64_t>(a.size()));
    // A start offset inside the second batch keeps that batch (it is still read whole).
    ASSERT_EQ(*delete_records(*store, pid, 7), 7);
    EXPECT_EQ(*store->partition_bytes(pid), static_cast<int64_t>(b.size() + c.size()));
    ASSERT_EQ(*delete_records(*store, pid, 10), 10);
    EXPECT_EQ(*store->partition_bytes(pid), static_cast<int64_t>(c.size()));
  }  // crash: recovery rebuilds the same answer
  auto store = open_store(o);
  EXPECT_EQ(*store->partition_bytes(pid), static_cast<int64_t>(c.size()));
  ASSERT_EQ(*delete_records(*store, pid, -1), 12);  // everything
  EXPECT_EQ(*store->partition_bytes(pid), 0);
  ASSERT_TRUE(delete_partition(*store, pid).ok());
  EXPECT_EQ(store->partition_bytes(pid).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->partition_bytes(12345).status().code(), StatusCode::kNotFound);
}

TEST(PartitionStateTest, ActiveProducersGiveEpochLastSequenceAndOpenTransaction) {
  TempDir dir;
  StoreOptions o = small_options(dir.path());
  std::atomic<int64_t> now{1'000'000};
  o.clock_ms = [&] { return now.load(); };
  PartitionId pid;
  {
    auto store = open_store(o);
    pid = create(*store, 1)[0];
    EXPECT_TRUE(producers(*store, pid)->empty());  // plain batches leave no producer state
    ASSERT_TRUE(append(*store, pid, make_batch({.records = 3})).ok());
    EXPECT_TRUE(producers(*store, pid)->empty());

    // Producer 7, epoch 1: sequences 0-2 then 3-4. Producer 3, epoch 0: sequence 0.
    ASSERT_TRUE(append(*store, pid, make_batch({.records = 3, .producer_id = 7, .producer_epoch = 1, .base_sequence = 0})).ok());
    now = 1'000'500;
    ASSERT_TRUE(append(*store, pid, make_batch({.records = 2, .producer_id = 7, .producer_epoch = 1, .base_sequence = 3})).ok());
    ASSERT_TRUE(append(*store, pid, make_batch({.records = 1, .producer_id = 3, .producer_epoch = 0, .base_sequence = 0})).ok());
    // Producer 9 opens a transaction at offset 9 (3 + 3 + 2 + 1 records before it).
    auto opened = append(*store, pid, make_batch({.records = 2, .producer_id = 9, .producer_epoch = 4, .base_sequence = 0,
                                                 .attributes = fb::kTransactionalBit}));
    ASSERT_TRUE(opened.ok());
    ASSERT_EQ(opened->base_offset, 9);

    const std::vector<ActiveProducer> expected = {
        {3, 0, 0, 1'000'500, -1}, {7, 1, 4, 1'000'500, -1}, {9, 4, 1, 1'000'500, 9}};
    EXPECT_EQ(*producers(*store, pid), expected);

    now = 1'002'000;
    ASSERT_TRUE(append(*store, pid, make_control_batch(9, 4, true)).ok());  // COMMIT closes it
    const auto after = producers(*store, pid);
    ASSERT_EQ(after->size(), 3u);
    EXPECT_EQ((*after)[2].producer_id, 9);
    EXPECT_EQ((*after)[2].txn_start_offset, -1);
    EXPECT_EQ((*after)[2].last_sequence, 1);  // a marker has no sequence of its own
    // An open transaction again, then a crash: the log replay rebuilds it.
    ASSERT_TRUE(append(*store, pid, make_batch({.records = 1, .producer_id = 9, .producer_epoch = 4, .base_sequence = 2,
                                                .attributes = fb::kTransactionalBit}))
                    .ok());
  }
  auto store = open_store(o);
  const auto rebuilt = producers(*store, pid);
  ASSERT_TRUE(rebuilt.ok());
  ASSERT_EQ(rebuilt->size(), 3u);
  EXPECT_EQ((*rebuilt)[0].producer_id, 3);
  EXPECT_EQ((*rebuilt)[1].last_sequence, 4);
  EXPECT_EQ((*rebuilt)[2].producer_id, 9);
  EXPECT_EQ((*rebuilt)[2].last_sequence, 2);
  EXPECT_EQ((*rebuilt)[2].txn_start_offset, 12);  // 9-10 data, 11 the COMMIT marker, 12 the new transaction
  EXPECT_EQ(producers(*store, 999).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rokka::storage::test
