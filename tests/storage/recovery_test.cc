// Crash recovery, one test per corruption case (LevelDB's checklist): each damages
// the files of a store that was abandoned (a crash) or closed, reopens it and checks
// that exactly the valid prefix survives and that offsets continue from it.
#include <gtest/gtest.h>

#include <fstream>

#include "storage/checkpoint.h"
#include "storage/file_system.h"
#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;
namespace fs = std::filesystem;

class RecoveryTest : public ::testing::Test {
 protected:
  // Five 1-record batches in partition 0, then a crash (or a clean close).
  void write_five(bool clean) {
    auto store = open_store(options_);
    pid_ = create(*store, 1)[0];
    for (int i = 0; i < 5; ++i) {
      batches_.push_back(make_batch({.value_bytes = 100 + i, .fill = static_cast<uint8_t>(i)}));
      ASSERT_EQ(append(*store, pid_, batches_.back())->base_offset, i);
    }
    if (clean) {
      ASSERT_TRUE(store->close().ok());
    }
  }
  // n 1 KiB batches in partition 0 (one segment), then a clean close.
  void write_closed(int n) {
    auto store = open_store(options_);
    pid_ = create(*store, 1)[0];
    for (int i = 0; i < n; ++i) {
      batches_.push_back(make_batch({.value_bytes = 1000, .fill = static_cast<uint8_t>(i)}));
      ASSERT_EQ(append(*store, pid_, batches_.back())->base_offset, i);
    }
    ASSERT_TRUE(store->close().ok());
  }
  void write_big(int n) {
    auto store = open_store(options_);
    pid_ = create(*store, 1)[0];
    for (int i = 0; i < n; ++i) {
      batches_.push_back(make_batch({.value_bytes = 30000, .fill = static_cast<uint8_t>(i)}));
      ASSERT_TRUE(append(*store, pid_, batches_.back()).ok());
    }
  }  // crash
  // Byte position of entry k in the first segment (one partition, no padding).
  int64_t entry_pos(int k) const {
    int64_t pos = 0;
    for (int i = 0; i < k; ++i) pos += format::kEntryHeaderSize + static_cast<int64_t>(batches_[i].size());
    return pos;
  }
  fs::path segment() const { return dir_.path() / "commitlog" / format::segment_name(0); }
  void patch(const fs::path& file, int64_t at, std::vector<std::byte> bytes) {
    auto f = FileSystem::real().open(file, false);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->write_at(at, bytes).ok());
  }
  void flip(const fs::path& file, int64_t at) {
    auto f = FileSystem::real().open(file, false);
    std::byte b{};
    ASSERT_TRUE((*f)->read_at(at, std::span(&b, 1)).ok());
    b ^= std::byte{0x40};
    ASSERT_TRUE((*f)->write_at(at, std::span(&b, 1)).ok());
  }
  void mark_crashed() { std::ofstream(dir_.path() / "abort").put('x'); }
  // After reopening: offsets [0, n) hold the original bytes, n is the next offset,
  // and a new append gets n and survives another crash.
  void expect_prefix(int n) {
    {
      auto store = open_store(options_);
      ASSERT_NE(store, nullptr);
      EXPECT_EQ(store->offsets(pid_)->next_offset, n);
      for (int i = 0; i < n; ++i) EXPECT_EQ(read_one(*store, pid_, i), with_base(batches_[i], i)) << i;
      EXPECT_EQ(store->read(pid_, n + 1, 10).status().code(), StatusCode::kOutOfRange);
      ASSERT_EQ(append(*store, pid_, make_batch({.fill = 0xee}))->base_offset, n);
    }
    auto store = open_store(options_);
    EXPECT_EQ(store->offsets(pid_)->next_offset, n + 1);
    EXPECT_EQ(read_one(*store, pid_, n), with_base(make_batch({.fill = 0xee}), n));
  }

  TempDir dir_;
  StoreOptions options_ = small_options(dir_.path());
  PartitionId pid_ = 0;
  std::vector<std::vector<std::byte>> batches_;
};

TEST_F(RecoveryTest, CrashKeepsEveryAcknowledgedBatch) {
  write_five(false);
  expect_prefix(5);
}

TEST_F(RecoveryTest, CleanReopenKeepsEverything) {
  write_five(true);
  EXPECT_FALSE(fs::exists(dir_.path() / "abort"));
  expect_prefix(5);
}

// Open re-verifies recovery_verify_bytes before the checkpoint position (here the
// end of the log), starting at an entry boundary inside the segment: a damaged
// batch there is cut off with everything after it, and the batches before stay.
TEST_F(RecoveryTest, DamageInsideTheVerifyWindowBeforeTheCheckpointIsCut) {
  options_.recovery_verify_bytes = 4096;  // starts inside entry 16 of 20 (~1.1 KiB each)
  write_closed(20);
  flip(segment(), entry_pos(18) + format::kEntryHeaderSize + 500);  // inside batch 18's records
  expect_prefix(18);
}

// The bound that keeps open fast on a big segment: bytes further back than the
// window are not read at open (Kafka reads none after a clean stop); the damaged
// batch stays indexed, and a consumer's CRC check is what catches it.
TEST_F(RecoveryTest, DamageBeforeTheVerifyWindowIsNotReadAtOpen) {
  options_.recovery_verify_bytes = 4096;
  write_closed(20);
  flip(segment(), entry_pos(5) + format::kEntryHeaderSize + 500);
  auto store = open_store(options_);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->offsets(pid_)->next_offset, 20);
  EXPECT_EQ(read_one(*store, pid_, 19), with_base(batches_[19], 19));
}

// Nor are the entry headers there: the checkpoint's digest of each partition's index
// units vouches for the units that point at them (open used to read one entry header
// per stored batch: a read of the whole log, 38 s at 1,000,000 partitions holding
// 16 GiB). A damaged header is found when its batch is read; the batches after it stay.
TEST_F(RecoveryTest, EntryHeaderBeforeTheVerifyWindowIsNotReadAtOpen) {
  options_.recovery_verify_bytes = 4096;
  write_closed(20);
  flip(segment(), entry_pos(5) + 16);  // batch 5's base offset, in its entry header
  auto store = open_store(options_);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->offsets(pid_)->next_offset, 20);
  EXPECT_EQ(read_one(*store, pid_, 4), with_base(batches_[4], 4));
  EXPECT_EQ(read_one(*store, pid_, 5), std::vector<std::byte>{}) << "a batch under a damaged header is not served";
  EXPECT_EQ(read_one(*store, pid_, 19), with_base(batches_[19], 19));
}

TEST_F(RecoveryTest, TruncatedHeaderIsCutOff) {
  write_five(false);
  fs::resize_file(segment(), entry_pos(4) + 20);
  expect_prefix(4);
}

TEST_F(RecoveryTest, TruncatedPayloadIsCutOff) {
  write_five(false);
  fs::resize_file(segment(), entry_pos(4) + format::kEntryHeaderSize + 30);
  expect_prefix(4);
}

TEST_F(RecoveryTest, CrcMismatchMidLogCutsThere) {
  write_five(false);
  flip(segment(), entry_pos(2) + format::kEntryHeaderSize + 70);  // inside batch 2's records
  expect_prefix(2);
}

TEST_F(RecoveryTest, CorruptEntryHeaderCutsThere) {
  write_five(false);
  flip(segment(), entry_pos(3) + 16);  // base offset field, covered by the entry CRC
  expect_prefix(3);
}

TEST_F(RecoveryTest, ZeroFilledPreallocatedTailIsTheEnd) {
  write_five(false);
  patch(segment(), entry_pos(3), std::vector<std::byte>(static_cast<size_t>(entry_pos(5) - entry_pos(3))));
  expect_prefix(3);
}

TEST_F(RecoveryTest, IndexAheadOfLogDropsUnitsPastTheCut) {
  write_five(true);  // the checkpoint's index covers all five
  fs::resize_file(segment(), entry_pos(3));
  mark_crashed();
  expect_prefix(3);
}

TEST_F(RecoveryTest, DeletedIndexFilesAreRebuiltFromTheLog) {
  write_five(true);
  fs::remove_all(dir_.path() / "index");
  expect_prefix(5);
}

TEST_F(RecoveryTest, DamagedCheckpointRebuildsFromTheLog) {
  write_five(true);
  flip(dir_.path() / "checkpoint", 40);
  expect_prefix(5);
}

TEST_F(RecoveryTest, MissingCheckpointAfterCrashRebuildsFromTheLog) {
  write_five(false);
  fs::remove(dir_.path() / "checkpoint");
  expect_prefix(5);
}

TEST_F(RecoveryTest, RecoveryAcrossSegmentsAndPadding) {
  // ~30 KiB batches: two per 64 KiB segment, then a blank pad and a roll.
  write_big(6);
  EXPECT_EQ(count_files(dir_.path() / "commitlog"), 3u);
  expect_prefix(6);
}

TEST_F(RecoveryTest, CorruptSegmentDropsItAndLaterSegments) {
  write_big(6);
  flip(dir_.path() / "commitlog" / format::segment_name(65536), 100);  // first entry of segment 2
  expect_prefix(2);
  EXPECT_EQ(count_files(dir_.path() / "commitlog"), 2u);
}

TEST_F(RecoveryTest, DeletedPartitionIsNotResurrectedFromTheLog) {
  write_five(false);
  {
    auto store = open_store(options_);
    ASSERT_TRUE(delete_partition(*store, pid_).ok());
  }
  fs::remove(dir_.path() / "checkpoint");  // force a full rebuild from the log
  auto store = open_store(options_);
  EXPECT_EQ(store->offsets(pid_).status().code(), StatusCode::kNotFound);
}

// ---- MetaStore journal ----

TEST_F(RecoveryTest, MetaJournalTornTailIsCut) {
  {
    auto store = open_store(options_);
    ASSERT_TRUE(meta_write(*store, {{"o/a", "1"}}).ok());
    ASSERT_TRUE(meta_write(*store, {{"o/b", "2"}}).ok());
  }
  const auto journal = dir_.path() / "meta" / "journal";
  const auto size = static_cast<int64_t>(fs::file_size(journal));
  std::vector<std::byte> torn(8);
  format::put_le32(torn.data(), 100);  // claims 100 bytes; only 10 follow
  torn.resize(18);
  patch(journal, size, torn);
  {
    auto store = open_store(options_);
    EXPECT_EQ(store->meta().scan("o/").size(), 2u);
    ASSERT_TRUE(meta_write(*store, {{"o/c", "3"}}).ok());
  }
  auto store = open_store(options_);
  EXPECT_EQ(store->meta().scan("o/").size(), 3u);
}

TEST_F(RecoveryTest, MetaJournalCorruptRecordDropsItAndLaterOnes) {
  {
    auto store = open_store(options_);
    ASSERT_TRUE(meta_write(*store, {{"o/a", "1"}}).ok());
    ASSERT_TRUE(meta_write(*store, {{"o/b", "2"}}).ok());
    ASSERT_TRUE(meta_write(*store, {{"o/c", "3"}}).ok());
  }
  const auto journal = dir_.path() / "meta" / "journal";
  const auto records = fs::file_size(journal);
  // The o/* records are the last three of equal size: damage the middle one.
  const int64_t rec = static_cast<int64_t>(8 + 4 + 1 + 4 + 3 + 4 + 1);
  flip(journal, static_cast<int64_t>(records) - 2 * rec + 10);
  auto store = open_store(options_);
  auto o = store->meta().scan("o/");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].first, "o/a");
}

TEST_F(RecoveryTest, MetaStoreLoadsOneHundredThousandKeys) {
  {
    auto store = open_store(options_);
    for (int b = 0; b < 100; ++b) {
      std::vector<MetaStore::Mutation> batch;
      for (int i = 0; i < 1000; ++i) batch.push_back({"o/group/topic/" + std::to_string(b * 1000 + i), "offset=12345"});
      ASSERT_TRUE(meta_write(*store, std::move(batch)).ok());
    }
  }
  auto store = open_store(options_);
  EXPECT_EQ(store->meta().scan("o/").size(), 100000u);
}

TEST_F(RecoveryTest, MetaJournalCompactsWhenMostlyDead) {
  const std::string big(1024, 'v');
  options_.flush_mode = FlushMode::kAsync;
  {
    auto store = open_store(options_);
    for (int i = 0; i < 6000; ++i) ASSERT_TRUE(meta_write(*store, {{"o/k", big + std::to_string(i)}}).ok());
    ASSERT_TRUE(store->close().ok());
  }
  // 6000 records of ~1 KiB were written; compaction keeps the file near the
  // 4 MiB threshold instead of growing with every overwrite.
  EXPECT_LT(fs::file_size(dir_.path() / "meta" / "journal"), (4u << 20) + (256u << 10));
  auto store = open_store(options_);
  auto o = store->meta().scan("o/");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].second, big + "5999");
}

// Many partitions' first chunks share index pages (2 units each here, 2 per page), and
// a partition's later units go to whole chunks: after a crash, and after a clean close,
// every partition has each of its batches back byte for byte at dense offsets.
class SharedPagesTest : public RecoveryTest {
 protected:
  // Partition k holds k batches (0 to 11: none, within its small chunk, across chunks),
  // appended round-robin so the partitions' units interleave in the index.
  void write_round_robin(Store& store) {
    pids_ = create(store, 12);
    data_.assign(pids_.size(), {});
    for (size_t round = 0; round < pids_.size(); ++round) {
      std::vector<AppendRequest> reqs;
      for (size_t k = round + 1; k < pids_.size(); ++k) {
        data_[k].push_back(make_batch({.records = 1 + static_cast<int>(k % 3), .value_bytes = 50 + 7 * static_cast<int>(k),
                                       .fill = static_cast<uint8_t>(16 * k + round)}));
        reqs.push_back({pids_[k], data_[k].back()});
      }
      for (const auto& r : append_all(store, reqs)) ASSERT_TRUE(r.ok());
    }
  }
  void expect_all(const Store& store) {
    for (size_t k = 0; k < pids_.size(); ++k) {
      int64_t offset = 0;
      for (const auto& b : data_[k]) {
        EXPECT_EQ(read_one(store, pids_[k], offset), with_base(b, offset)) << k << " " << offset;
        offset += 1 + static_cast<int64_t>(k % 3);
      }
      EXPECT_EQ(store.offsets(pids_[k])->next_offset, offset) << k;
      EXPECT_EQ(store.offsets(pids_[k])->log_start_offset, 0) << k;
    }
  }
  std::vector<PartitionId> pids_;
  std::vector<std::vector<std::vector<std::byte>>> data_;
};

TEST_F(SharedPagesTest, EveryPartitionsBatchesComeBackAfterACrashAndAfterAClose) {
  {
    auto store = open_store(options_);
    write_round_robin(*store);
  }  // crash: nothing after the open's checkpoint is in a checkpoint
  {
    auto store = open_store(options_);
    ASSERT_NE(store, nullptr);
    expect_all(*store);
    // One more batch each; the empty partition's first.
    for (size_t k = 0; k < pids_.size(); ++k) {
      data_[k].push_back(make_batch({.records = 1 + static_cast<int>(k % 3), .fill = 0xe0}));
      ASSERT_TRUE(append(*store, pids_[k], data_[k].back()).ok());
    }
    ASSERT_TRUE(store->close().ok());
  }
  auto store = open_store(options_);
  ASSERT_NE(store, nullptr);
  expect_all(*store);
}

// A data directory of the previous format (checkpoint version 3, every chunk 4 units,
// no small chunks) opens with all its data, takes more, and survives a crash and a
// close. The test writes it: a store whose first chunk is a whole chunk lays units out
// exactly as the old code did; its checkpoint is then rewritten in the version 3 layout.
class OldFormatTest : public SharedPagesTest {
 protected:
  void write_version3_dir() {
    StoreOptions uniform = options_;
    uniform.index_first_chunk_units = uniform.index_chunk_units;
    {
      auto store = open_store(uniform);
      write_round_robin(*store);
      ASSERT_TRUE(store->close().ok());
    }
    auto bytes = read_file(FileSystem::real(), dir_.path() / "checkpoint");
    ASSERT_TRUE(bytes.ok());
    auto cp = decode_checkpoint(*bytes);
    ASSERT_TRUE(cp.ok());
    ASSERT_TRUE(cp->free_small_chunks.empty());
    format::Encoder body;
    body.i64(cp->log_end.value);
    body.u32(cp->next_chunk);
    body.u32(static_cast<uint32_t>(cp->free_chunks.size()));
    for (uint32_t c : cp->free_chunks) body.u32(c);
    body.u32(static_cast<uint32_t>(cp->segment_ages.size()));
    for (const auto& [start, ms] : cp->segment_ages) {
      body.i64(start);
      body.i64(ms);
    }
    body.u32(static_cast<uint32_t>(cp->partitions.size()));
    for (const auto& p : cp->partitions) {
      const auto& q = p.queue;
      ASSERT_TRUE(p.producers.empty() && !p.txns);  // none written: encoded as empty below
      body.u32(p.id);
      for (int64_t v : {q.floor, q.next_offset, q.first_unit, q.unit_end, q.running_max_ts, q.first_base,
                        q.dir.first_chunk_ordinal})
        body.i64(v);
      body.u32(static_cast<uint32_t>(q.dir.chunks.size()));
      for (uint32_t c : q.dir.chunks) body.u32(c);
      body.u8(q.digest ? 1 : 0);
      body.u64(q.digest.value_or(0));
      body.u32(0);  // producers
      body.u32(0);  // open transactions
      body.u32(0);  // aborted transactions
    }
    std::vector<std::byte> file(format::kCheckpointHeaderSize);
    format::put_le32(file.data(), format::kCheckpointMagic);
    format::put_le32(file.data() + 4, 3);
    format::put_le64(file.data() + 8, body.buffer().size());
    format::put_le32(file.data() + 16, crc32c(body.buffer()));
    file.insert(file.end(), body.buffer().begin(), body.buffer().end());
    ASSERT_TRUE(write_file_atomic(FileSystem::real(), dir_.path() / "checkpoint", file).ok());
  }
};

TEST_F(OldFormatTest, AVersion3DirectoryOpensWithEveryBatchAndGrowsInBothLayouts) {
  write_version3_dir();
  {
    auto store = open_store(options_);  // 2-unit first chunks from now on
    ASSERT_NE(store, nullptr);
    expect_all(*store);
    for (size_t k = 0; k < pids_.size(); ++k) {  // old queues grow in their layout
      for (int i = 0; i < 3; ++i) {
        data_[k].push_back(make_batch({.records = 1 + static_cast<int>(k % 3), .fill = static_cast<uint8_t>(i)}));
        ASSERT_TRUE(append(*store, pids_[k], data_[k].back()).ok());
      }
    }
    const auto fresh = create(*store, 3);  // new ones start in small chunks
    for (PartitionId pid : fresh) {
      pids_.push_back(pid);
      data_.emplace_back();
      while (data_.back().size() < 7) {
        data_.back().push_back(make_batch({.records = 1 + static_cast<int>((pids_.size() - 1) % 3),
                                           .fill = static_cast<uint8_t>(data_.back().size())}));
        ASSERT_TRUE(append(*store, pid, data_.back().back()).ok());
      }
    }
    expect_all(*store);
  }  // crash: the version 3 checkpoint is still the last one
  {
    auto store = open_store(options_);
    ASSERT_NE(store, nullptr);
    expect_all(*store);
    ASSERT_TRUE(store->close().ok());  // a version 4 checkpoint naming both layouts
  }
  auto store = open_store(options_);
  ASSERT_NE(store, nullptr);
  expect_all(*store);
}

// The version 3 queues are restored from their units, not rebuilt from the log: an entry
// header below the re-verify window is not read at open (a rebuild would cut the log
// there and lose every later batch).
TEST_F(OldFormatTest, AVersion3DirectorysIndexIsRestoredNotRebuilt) {
  options_.recovery_verify_bytes = 1024;
  write_version3_dir();
  flip(segment(), 16);  // the log's first entry (partition 1's only batch): its base offset
  auto store = open_store(options_);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(read_one(*store, pids_[1], 0), std::vector<std::byte>{}) << "a batch under a damaged header is not served";
  data_[1].clear();
  for (size_t k = 2; k < pids_.size(); ++k) {
    int64_t offset = 0;
    for (const auto& b : data_[k]) {
      EXPECT_EQ(read_one(*store, pids_[k], offset), with_base(b, offset)) << k << " " << offset;
      offset += 1 + static_cast<int64_t>(k % 3);
    }
    EXPECT_EQ(store->offsets(pids_[k])->next_offset, offset) << k;
  }
  EXPECT_EQ(store->offsets(pids_[1])->next_offset, 2);
}

TEST(CheckpointTest, HostileBytesAreRejectedWithoutCrashing) {
  ConsumeQueue::State q;
  q.next_offset = 10;
  q.unit_end = 3;
  q.dir.chunks = {0};
  CheckpointWriter w({1234}, 1, {}, {{0, 5}});
  w.add_partition(7, q, nullptr, nullptr);
  const auto good = w.finish();
  auto ok = decode_checkpoint(good);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->log_end.value, 1234);
  EXPECT_EQ(ok->partitions.at(0).queue.next_offset, 10);
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_FALSE(decode_checkpoint(std::span(good).first(n)).ok()) << n;
  // A body with a valid CRC but a huge count must fail before allocating.
  std::vector<std::byte> body(12);
  format::put_le32(body.data() + 8, 0xffffffff);  // free-chunk count
  std::vector<std::byte> file(format::kCheckpointHeaderSize);
  format::put_le32(file.data(), format::kCheckpointMagic);
  format::put_le32(file.data() + 4, format::kCheckpointVersion);
  format::put_le64(file.data() + 8, body.size());
  format::put_le32(file.data() + 16, crc32c(body));
  file.insert(file.end(), body.begin(), body.end());
  EXPECT_EQ(decode_checkpoint(file).status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace rokka::storage::test
