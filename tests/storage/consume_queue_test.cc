// ConsumeQueue alone over real IndexFiles in a TempDir: units put by "the writer",
// published, looked up by offset and by time, cut, dropped, replaced, checkpointed.
// Chunks of 4 units, so chunk boundaries come every 4 batches.
#include "storage/consume_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage {
namespace {

constexpr uint32_t kChunkUnits = 4;

class ConsumeQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { open_index(&FileSystem::real(), 16); }
  void open_index(FileSystem* fs, uint32_t file_chunks) {
    auto ix = IndexFiles::open({dir_ / "index", fs, kChunkUnits, file_chunks}, 0, {});
    ASSERT_TRUE(ix.ok()) << ix.status().to_string();
    ix_ = std::move(*ix);
  }

  // A batch of `records` at the queue's next offset, its entry `size` bytes after the last one's.
  QueueUnit next_unit(const ConsumeQueue& q, int32_t records = 1, int64_t max_ts = 100) {
    const QueueUnit u{{pos_}, 100, records - 1, q.writer_next_offset(), max_ts};
    pos_ += format::kEntryHeaderSize + 100;
    return u;
  }
  void put(ConsumeQueue& q, int32_t records = 1, int64_t max_ts = 100) {
    ASSERT_TRUE(q.put(*ix_, next_unit(q, records, max_ts)).ok());
  }
  // Base offsets of every readable unit, in ordinal order.
  std::vector<int64_t> bases(const ConsumeQueue& q) {
    std::vector<int64_t> out;
    const auto v = q.units();
    for (int64_t i = v.first; i < v.end; ++i) {
      auto u = q.unit(*ix_, v, i);
      if (u) out.push_back(u->base_offset);
    }
    return out;
  }

  testutil::TempDir dir_;
  std::unique_ptr<IndexFiles> ix_;
  ConsumeQueue q_;
  int64_t pos_ = 0;
};

TEST_F(ConsumeQueueTest, PutUnitsAreInvisibleToReadersUntilPublished) {
  put(q_, 3);
  EXPECT_EQ(q_.writer_next_offset(), 3);
  EXPECT_EQ(q_.next_offset(), 0);
  EXPECT_EQ(q_.units().end, 0);
  q_.publish();
  EXPECT_EQ(q_.next_offset(), 3);
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0}));
}

TEST_F(ConsumeQueueTest, FindOffsetReturnsTheBatchHoldingTheOffset) {
  put(q_, 3);  // 0..2
  put(q_, 1);  // 3
  put(q_, 5);  // 4..8
  q_.publish();
  const auto v = q_.units();
  EXPECT_EQ(q_.find_offset(*ix_, v, 0), 0);
  EXPECT_EQ(q_.find_offset(*ix_, v, 2), 0);
  EXPECT_EQ(q_.find_offset(*ix_, v, 3), 1);
  EXPECT_EQ(q_.find_offset(*ix_, v, 8), 2);
  EXPECT_EQ(q_.find_offset(*ix_, v, 9), 2);  // the caller checks against next_offset
}

TEST_F(ConsumeQueueTest, FindOffsetBelowTheFirstBatchOrInAnEmptyQueueIsMinusOne) {
  EXPECT_EQ(q_.find_offset(*ix_, q_.units(), 0), -1);
  q_.reset_to(10);
  put(q_);
  q_.publish();
  EXPECT_EQ(q_.find_offset(*ix_, q_.units(), 9), -1);
  EXPECT_EQ(q_.find_offset(*ix_, q_.units(), 10), 0);
}

TEST_F(ConsumeQueueTest, AUnitOutsideTheViewIsNullopt) {
  put(q_);
  q_.publish();
  const auto v = q_.units();
  EXPECT_TRUE(q_.unit(*ix_, v, 0).has_value());
  EXPECT_FALSE(q_.unit(*ix_, v, 1).has_value());
  EXPECT_FALSE(q_.unit(*ix_, v, -1).has_value());
}

TEST_F(ConsumeQueueTest, FindTimestampUsesTheRunningMaximum) {
  put(q_, 1, 10);
  put(q_, 1, 5);  // stored with running max 10
  put(q_, 1, 20);
  q_.publish();
  const auto v = q_.units();
  EXPECT_EQ(q_.unit(*ix_, v, 1)->max_timestamp, 10);
  EXPECT_EQ(q_.find_timestamp(*ix_, v, 0, 8), 0);
  EXPECT_EQ(q_.find_timestamp(*ix_, v, 0, 10), 0);
  EXPECT_EQ(q_.find_timestamp(*ix_, v, 0, 11), 2);
  EXPECT_EQ(q_.find_timestamp(*ix_, v, 1, 8), 1);  // not before `from`
  EXPECT_EQ(q_.find_timestamp(*ix_, v, 0, 21), -1);
}

// Invariant 5: a partition that never received data costs no index space.
TEST_F(ConsumeQueueTest, AQueueTakesAChunkPerChunkUnitsBatchesAndNoneWhenEmpty) {
  EXPECT_TRUE(q_.state().dir.chunks.empty());
  EXPECT_EQ(ix_->next_chunk(), 0u);
  for (int i = 0; i < 9; ++i) put(q_);
  EXPECT_EQ(q_.state().dir.chunks.size(), 3u);
  EXPECT_EQ(ix_->next_chunk(), 3u);
}

TEST_F(ConsumeQueueTest, ManyQueuesShareTheIndexFiles) {
  std::vector<ConsumeQueue> queues(20);
  for (auto& q : queues) put(q);
  EXPECT_EQ(ix_->next_chunk(), 20u);
  EXPECT_EQ(ix_->file_count(), 2u);  // 16 chunks per file
}

TEST_F(ConsumeQueueTest, DropBeforeMovesTheStartAndReleasesWholeChunks) {
  std::vector<int64_t> positions;
  for (int i = 0; i < 10; ++i) {
    positions.push_back(pos_);
    put(q_);
  }
  q_.publish();
  EXPECT_TRUE(q_.drop_before(*ix_, {positions[5]}));
  EXPECT_EQ(q_.start_offset(), 5);
  EXPECT_EQ(q_.unit_count(), 5);
  EXPECT_EQ(q_.state().dir.chunks.size(), 2u);  // chunk 0 (units 0-3) went; 4-7 holds unit 5
  ix_->recycle();
  EXPECT_EQ(ix_->free_chunks().size(), 1u);
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{5, 6, 7, 8, 9}));
  EXPECT_FALSE(q_.drop_before(*ix_, {positions[5]}));  // nothing more to drop
}

TEST_F(ConsumeQueueTest, DroppingEveryUnitLeavesTheNextOffset) {
  for (int i = 0; i < 3; ++i) put(q_, 2);
  q_.publish();
  EXPECT_TRUE(q_.drop_before(*ix_, {pos_}));
  EXPECT_EQ(q_.unit_count(), 0);
  EXPECT_EQ(q_.start_offset(), 6);
  EXPECT_EQ(q_.next_offset(), 6);
}

TEST_F(ConsumeQueueTest, TruncateAfterForgetsUnitsPastTheCutAndTheirTimestamps) {
  put(q_, 2, 10);
  const int64_t cut = pos_;
  put(q_, 2, 50);
  put(q_, 2, 60);
  q_.publish();
  q_.truncate_after(*ix_, {cut});
  EXPECT_EQ(q_.next_offset(), 2);
  EXPECT_EQ(q_.writer_next_offset(), 2);
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0}));
  put(q_, 1, 20);  // the running max restarts from the surviving unit's
  q_.publish();
  EXPECT_EQ(q_.unit(*ix_, q_.units(), 1)->max_timestamp, 20);
}

TEST_F(ConsumeQueueTest, TruncateBeforeTheFirstUnitEmptiesTheQueueAtItsFirstOffset) {
  q_.reset_to(7);
  put(q_);
  put(q_);
  q_.publish();
  q_.truncate_after(*ix_, {0});
  EXPECT_EQ(q_.unit_count(), 0);
  EXPECT_EQ(q_.next_offset(), 7);
}

TEST_F(ConsumeQueueTest, TheFloorRaisesTheStartOffsetAndNeverLowersIt) {
  for (int i = 0; i < 4; ++i) put(q_);
  q_.publish();
  q_.set_floor(2);
  EXPECT_EQ(q_.start_offset(), 2);
  q_.set_floor(1);
  EXPECT_EQ(q_.floor(), 2);
  EXPECT_EQ(q_.start_offset(), 2);
  q_.set_floor(10);  // beyond the data: the start offset stops at the next offset
  EXPECT_EQ(q_.start_offset(), 4);
}

TEST_F(ConsumeQueueTest, AnEmptyQueueBelowItsFloorContinuesAtTheFloor) {
  q_.set_floor(42);  // its data went with retention; the floor was durable
  EXPECT_EQ(q_.writer_next_offset(), 42);
  put(q_);
  q_.publish();
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{42}));
  EXPECT_EQ(q_.start_offset(), 42);
}

TEST_F(ConsumeQueueTest, BatchRangeNamesTheUnitsBetweenTwoBaseOffsets) {
  for (int i = 0; i < 5; ++i) put(q_, 2);  // bases 0 2 4 6 8, next 10
  auto r = q_.batch_range(*ix_, 2, 6);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->first, 1);
  EXPECT_EQ(r->last, 3);
  EXPECT_FALSE(r->whole);
  r = q_.batch_range(*ix_, 0, 10);  // up to the next offset: every unit
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->last, 5);
  EXPECT_TRUE(r->whole);
}

TEST_F(ConsumeQueueTest, BatchRangeRefusesOffsetsThatAreNotBatchStarts) {
  for (int i = 0; i < 5; ++i) put(q_, 2);
  EXPECT_FALSE(q_.batch_range(*ix_, 1, 6).has_value());  // inside a batch
  EXPECT_FALSE(q_.batch_range(*ix_, 2, 7).has_value());
  EXPECT_FALSE(q_.batch_range(*ix_, 4, 4).has_value());  // empty
  EXPECT_FALSE(q_.batch_range(*ix_, 6, 2).has_value());  // backwards
  q_.set_floor(3);
  EXPECT_FALSE(q_.batch_range(*ix_, 2, 6).has_value());  // below the floor
}

TEST_F(ConsumeQueueTest, ReplaceRangeSwapsTheUnitsInForReadersAtOnce) {
  for (int i = 0; i < 6; ++i) put(q_, 2);  // bases 0 2 4 6 8 10
  q_.publish();
  const auto before = q_.state().dir.chunks;
  // Compaction kept one batch (offsets 4..5) of the three covering 2..7.
  const QueueUnit kept{{pos_}, 100, 1, 4, 100};
  pos_ += 200;
  ASSERT_TRUE(q_.replace_range(*ix_, 1, 4, std::vector<QueueUnit>{kept}).ok());
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0, 4, 8, 10}));
  EXPECT_EQ(q_.next_offset(), 12);  // offsets do not move
  const auto v = q_.units();
  EXPECT_EQ(q_.find_offset(*ix_, v, 3), 0);  // in the gap: the batch before it (the store serves the next)
  EXPECT_EQ(q_.find_offset(*ix_, v, 5), 1);
  for (uint32_t c : before) {  // the old chunks are quarantined for recycling
    const auto now = q_.state().dir.chunks;
    EXPECT_EQ(std::count(now.begin(), now.end(), c), 0);
  }
  ix_->recycle();
  EXPECT_EQ(ix_->free_chunks().size(), before.size());
}

TEST_F(ConsumeQueueTest, OldestEntryIsTheLowestPositionEvenOutOfLogOrder) {
  EXPECT_FALSE(q_.oldest_entry(*ix_).has_value());
  const int64_t first = pos_;
  for (int i = 0; i < 3; ++i) put(q_);
  const QueueUnit moved{{pos_ + 1000}, 100, 0, 0, 100};  // batch 0 rewritten further down the log
  ASSERT_TRUE(q_.replace_range(*ix_, 0, 1, std::vector<QueueUnit>{moved}).ok());
  ASSERT_TRUE(q_.oldest_entry(*ix_).has_value());
  EXPECT_EQ(q_.oldest_entry(*ix_)->value, first + format::kEntryHeaderSize + 100);  // unit 1's
}

TEST_F(ConsumeQueueTest, FirstEntryAtOrAfterFindsAnEntryBoundary) {
  std::vector<int64_t> positions;
  for (int i = 0; i < 4; ++i) {
    positions.push_back(pos_);
    put(q_);
  }
  EXPECT_EQ(q_.first_entry_at_or_after(*ix_, {positions[1] - 1})->value, positions[1]);
  EXPECT_EQ(q_.first_entry_at_or_after(*ix_, {positions[2]})->value, positions[2]);
  EXPECT_FALSE(q_.first_entry_at_or_after(*ix_, {pos_}).has_value());
}

TEST_F(ConsumeQueueTest, StateRestoresIntoAQueueThatAnswersTheSame) {
  for (int i = 0; i < 7; ++i) put(q_, 3, 10 * i);
  q_.set_floor(4);
  q_.publish();
  ConsumeQueue copy;
  copy.restore(q_.state());
  copy.publish();
  EXPECT_EQ(bases(copy), bases(q_));
  EXPECT_EQ(copy.start_offset(), q_.start_offset());
  EXPECT_EQ(copy.next_offset(), 21);
  EXPECT_EQ(copy.find_timestamp(*ix_, copy.units(), 0, 35), q_.find_timestamp(*ix_, q_.units(), 0, 35));
  const auto all = [](const QueueUnit&) { return true; };
  EXPECT_TRUE(copy.units_consistent(*ix_, {pos_}, all));
}

// The writer remembers where its next unit goes; every change of the chunks or of the end
// (restore, a cut inside a chunk, a drop) must send the next put where readers look.
TEST_F(ConsumeQueueTest, PutsAfterARestoreACutAndADropLandWhereReadersLook) {
  std::vector<int64_t> positions;
  for (int i = 0; i < 6; ++i) {  // units 0-3 in one chunk, 4-5 in the next
    positions.push_back(pos_);
    put(q_);
  }
  ConsumeQueue copy;
  copy.restore(q_.state());
  put(copy);  // unit 6, into the restored queue's second chunk
  copy.publish();
  EXPECT_EQ(bases(copy), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  copy.truncate_after(*ix_, {positions[5]});  // inside that chunk: no chunk goes
  put(copy);
  put(copy);
  copy.publish();
  EXPECT_EQ(bases(copy), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(copy.drop_before(*ix_, {positions[4]}));  // the first chunk goes
  put(copy);
  put(copy);  // units 7-8: the third chunk
  copy.publish();
  EXPECT_EQ(bases(copy), (std::vector<int64_t>{4, 5, 6, 7, 8}));
  const auto all = [](const QueueUnit&) { return true; };
  EXPECT_TRUE(copy.units_consistent(*ix_, {pos_}, all));
}

// The checkpoint's digest vouches for the units at open (no entry header read below the
// re-verify window): it must follow every change a writer makes, and catch a changed unit.
TEST_F(ConsumeQueueTest, TheDigestFollowsEveryChangeAndCatchesADamagedUnit) {
  const auto none = [](const QueueUnit&) { return false; };  // the log is never asked below {pos_}
  auto restored_holds = [&] {
    ConsumeQueue copy;
    copy.restore(q_.state());
    return copy.units_consistent(*ix_, {pos_}, none, LogPosition{pos_});
  };
  std::vector<int64_t> positions;
  for (int i = 0; i < 10; ++i) {
    positions.push_back(pos_);
    put(q_);
  }
  EXPECT_TRUE(restored_holds());
  EXPECT_TRUE(q_.drop_before(*ix_, {positions[5]}));  // retention, across a chunk boundary
  EXPECT_TRUE(restored_holds());
  q_.truncate_after(*ix_, {positions[8]});  // a cut
  EXPECT_TRUE(restored_holds());
  const QueueUnit moved{{positions[6]}, 100, 0, 6, 100};
  ASSERT_TRUE(q_.replace_range(*ix_, 6, 7, std::vector<QueueUnit>{moved}).ok());  // compaction
  EXPECT_TRUE(restored_holds());
  put(q_);
  EXPECT_TRUE(restored_holds());
  // Without a digest (a version 1-2 checkpoint) every unit is checked against the log,
  // and the digest of the units read is taken over.
  ConsumeQueue::State without = q_.state();
  without.digest = std::nullopt;
  ConsumeQueue old;
  old.restore(without);
  EXPECT_FALSE(old.units_consistent(*ix_, {pos_}, none, LogPosition{pos_}));
  ConsumeQueue upgraded;
  upgraded.restore(without);
  EXPECT_TRUE(upgraded.units_consistent(*ix_, {pos_}, [](const QueueUnit&) { return true; }, LogPosition{pos_}));
  EXPECT_EQ(upgraded.state().digest, q_.state().digest);

  const ConsumeQueue::State st = q_.state();
  std::byte* first = ix_->unit_for_write(st.dir.chunks[0], static_cast<uint32_t>(st.first_unit % kChunkUnits));
  format::put_le32(first + 8, 99);  // its size: still a plausible unit, inside the log
  EXPECT_FALSE(restored_holds());
}

TEST_F(ConsumeQueueTest, UnitsConsistentFailsForADamagedUnitOrOneBeyondTheLog) {
  for (int i = 0; i < 5; ++i) put(q_, 2);
  const auto all = [](const QueueUnit&) { return true; };
  EXPECT_TRUE(q_.units_consistent(*ix_, {pos_}, all));
  EXPECT_FALSE(q_.units_consistent(*ix_, {pos_ - 1}, all));  // the last entry lies past the log's end
  EXPECT_FALSE(q_.units_consistent(*ix_, {pos_}, [](const QueueUnit& u) { return u.base_offset != 4; }));
  const uint32_t chunk = q_.state().dir.chunks[0];
  format::put_le64(ix_->unit_for_write(chunk, 2) + 16, 99);  // unit 2's base offset
  EXPECT_FALSE(q_.units_consistent(*ix_, {pos_}, all));
}

TEST_F(ConsumeQueueTest, ReleaseAllGivesEveryChunkBack) {
  for (int i = 0; i < 6; ++i) put(q_);
  q_.release_all(*ix_);
  ix_->recycle();
  EXPECT_EQ(ix_->free_chunks().size(), 2u);
  EXPECT_FALSE(q_.unit(*ix_, q_.units(), 0).has_value());
}

TEST_F(ConsumeQueueTest, APutThatGetsNoChunkChangesNothing) {
  testutil::FaultyFileSystem faulty;
  open_index(&faulty, 1);  // a file per chunk: the second chunk needs a new file
  for (int i = 0; i < 4; ++i) put(q_);
  faulty.fail_create = true;
  EXPECT_EQ(q_.put(*ix_, next_unit(q_)).code(), StatusCode::kIoError);
  EXPECT_EQ(q_.writer_next_offset(), 4);
  EXPECT_EQ(q_.unit_count(), 4);
  faulty.fail_create = false;
  put(q_);
  q_.publish();
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  ix_.reset();  // before `faulty`
}

// Small first chunks (2 units; 2 per chunk of 4): a queue's first 2 units take half a
// page, later units whole chunks, and every writer call keeps the addressing straight.
class SmallFirstChunkTest : public ConsumeQueueTest {
 protected:
  void SetUp() override {
    auto ix = IndexFiles::open({dir_ / "index", &FileSystem::real(), kChunkUnits, 16, 2}, 0, {});
    ASSERT_TRUE(ix.ok()) << ix.status().to_string();
    ix_ = std::move(*ix);
  }
};

TEST_F(SmallFirstChunkTest, QueuesWithAFewBatchesSharePagesAndLaterUnitsTakeWholeChunks) {
  std::vector<ConsumeQueue> queues(8);
  for (auto& q : queues) put(q);
  for (auto& q : queues) put(q);
  EXPECT_EQ(ix_->next_chunk(), 4u);  // 8 queues of 2 units: 4 chunks (8 with one chunk each)
  put(queues[0]);                    // its third unit: a chunk of its own
  EXPECT_EQ(ix_->next_chunk(), 5u);
  for (int i = 0; i < 5; ++i) put(queues[0]);  // units 3-7: the rest of that chunk, then another
  EXPECT_EQ(queues[0].state().dir.chunks.size(), 3u);
  EXPECT_EQ(ix_->next_chunk(), 6u);
  for (auto& q : queues) q.publish();
  EXPECT_EQ(bases(queues[0]), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (size_t i = 1; i < queues.size(); ++i) EXPECT_EQ(bases(queues[i]), (std::vector<int64_t>{0, 1})) << i;
  const auto v = queues[0].units();
  for (int64_t off = 0; off < 8; ++off) EXPECT_EQ(queues[0].find_offset(*ix_, v, off), off);
}

TEST_F(SmallFirstChunkTest, DropCutReplaceAndReleaseGiveTheSmallChunkBackAsASmallChunk) {
  std::vector<int64_t> positions;
  for (int i = 0; i < 9; ++i) {  // units 0-1 small, 2-5 and 6-8 in chunks
    positions.push_back(pos_);
    put(q_, 1, 10 * i);
  }
  q_.publish();
  const uint32_t small = q_.state().dir.chunks[0];
  ASSERT_TRUE(q_.drop_before(*ix_, {positions[2]}));  // the whole small chunk goes
  EXPECT_EQ(q_.state().dir.chunks.size(), 2u);
  EXPECT_EQ(q_.state().dir.first_chunk_ordinal, 1);
  ix_->recycle();
  EXPECT_EQ(ix_->free_small_chunks(), (std::vector<uint32_t>{1, small}));
  EXPECT_TRUE(ix_->free_chunks().empty());
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{2, 3, 4, 5, 6, 7, 8}));
  q_.truncate_after(*ix_, {positions[6]});  // back to units 2-5: the last chunk goes
  EXPECT_EQ(q_.state().dir.chunks.size(), 1u);
  ix_->recycle();
  EXPECT_EQ(ix_->free_chunks().size(), 1u);
  const QueueUnit kept{{pos_}, 100, 1, 3, 100};  // compaction: 3-4 as one batch
  pos_ += 200;
  ASSERT_TRUE(q_.replace_range(*ix_, 3, 5, std::vector<QueueUnit>{kept}).ok());
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{2, 3, 5}));
  const auto all = [](const QueueUnit&) { return true; };
  ConsumeQueue copy;
  copy.restore(q_.state());
  EXPECT_TRUE(copy.units_consistent(*ix_, {pos_}, all, LogPosition{0}));
  q_.release_all(*ix_);
  ix_->recycle();
  EXPECT_EQ(ix_->free_chunks().size(), 2u);        // both whole chunks are free again;
  EXPECT_EQ(ix_->free_small_chunks().size(), 2u);  // chunk 0 stays cut in two, both free
}

TEST_F(SmallFirstChunkTest, ACompactedQueueGetsASmallFirstChunkAgain) {
  for (int i = 0; i < 3; ++i) put(q_, 2);  // units 0-1 small, 2 in a chunk
  const QueueUnit kept{{pos_}, 100, 3, 0, 100};  // 0-3 as one batch
  pos_ += 200;
  ASSERT_TRUE(q_.replace_range(*ix_, 0, 2, std::vector<QueueUnit>{kept}).ok());
  q_.publish();
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(q_.state().dir.chunks.size(), 1u);  // both units now fit the small chunk
  EXPECT_TRUE(q_.state().dir.small_first);
}

// A queue restored from a version 1-3 checkpoint is in the uniform layout (unit i in
// chunk i / 4): it is read there, grows there, and takes the small-first layout only
// once it holds no chunk any more.
TEST_F(SmallFirstChunkTest, AUniformQueueFromAnOlderCheckpointKeepsItsLayout) {
  auto uniform_ix = IndexFiles::open({dir_ / "index", &FileSystem::real(), kChunkUnits, 16}, 0, {});
  ASSERT_TRUE(uniform_ix.ok());
  ConsumeQueue old;
  std::vector<int64_t> positions;
  for (int i = 0; i < 6; ++i) {
    positions.push_back(pos_);
    ASSERT_TRUE(old.put(**uniform_ix, next_unit(old)).ok());
  }
  ConsumeQueue::State st = old.state();
  st.dir.small_first = false;  // as decode_checkpoint reads a version 3 queue
  const uint32_t next_chunk = (*uniform_ix)->next_chunk();
  ASSERT_TRUE((*uniform_ix)->sync().ok());
  uniform_ix->reset();
  auto ix = IndexFiles::open({dir_ / "index", &FileSystem::real(), kChunkUnits, 16, 2}, next_chunk, {});
  ASSERT_TRUE(ix.ok());
  ix_ = std::move(*ix);
  q_.restore(st);
  const auto all = [](const QueueUnit&) { return true; };
  ASSERT_TRUE(q_.units_consistent(*ix_, {pos_}, all));
  q_.publish();
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  for (int i = 0; i < 3; ++i) put(q_);  // units 6, 7 in chunk 1; 8 in a new chunk
  q_.publish();
  EXPECT_EQ(q_.state().dir.chunks.size(), 3u);
  EXPECT_FALSE(q_.state().dir.small_first);
  EXPECT_EQ(bases(q_), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  for (int i = 0; i < 3; ++i) put(q_);  // 9-11: chunk 2 full
  ASSERT_TRUE(q_.drop_before(*ix_, {pos_}));  // retention takes every unit and chunk
  EXPECT_TRUE(q_.state().dir.chunks.empty());
  put(q_);
  q_.publish();
  EXPECT_TRUE(q_.state().dir.small_first);
  EXPECT_EQ(bases(q_), std::vector<int64_t>{12});
}

}  // namespace
}  // namespace rokka::storage
