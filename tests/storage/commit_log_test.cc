// CommitLog alone, on real files in a TempDir (and FaultyFileSystem for IO failures):
// entries reserved, filled and written the way the store's writer does, then read
// back, scanned, cut and rolled. One case per behaviour, after LevelDB's log_test.
// Every case runs twice: segments written through the page cache, and with O_DIRECT
// (store.direct.io; FaultyFileSystem cannot, so its cases stay buffered in both).
#include "storage/commit_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <random>
#include <vector>

#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/file_bytes.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage {
namespace {

using Bytes = std::vector<std::byte>;
using testutil::file_bytes;
using testutil::make_batch;

constexpr int64_t kSegment = 64 * 1024;  // the smallest segment the store allows

class CommitLogTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { reopen(); }

  CommitLogOptions options() {
    return {.dir = dir_ / "log",
            .segment_bytes = kSegment,
            .fs = fs_,
            .staging_bytes = staging_bytes_,
            .tail_cache_bytes = tail_cache_bytes_,
            .direct_io = GetParam(),
            .direct_min_bytes = direct_min_bytes_};
  }
  void reopen() {
    log_.reset();
    auto log = CommitLog::open(options());
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    log_ = std::move(*log);
  }
  std::filesystem::path segment_path(int64_t start) { return dir_ / "log" / format::segment_name(start); }

  // One entry as the writer makes it: the batch (base offset set) behind a sealed header.
  Result<LogPosition> append(PartitionId pid, int64_t base, const Bytes& batch, int64_t now = 1000) {
    const auto size = static_cast<int32_t>(format::kEntryHeaderSize + batch.size());
    auto r = log_->reserve(size, now);
    if (!r.ok()) return r.status();
    std::byte* entry = r->bytes.data();
    std::copy(batch.begin(), batch.end(), entry + format::kEntryHeaderSize);
    format::put_be(entry + format::kEntryHeaderSize + format::batch::kBaseOffset, static_cast<uint64_t>(base), 8);
    format::seal_entry(entry, {.length = static_cast<uint32_t>(size),
                               .partition = pid,
                               .base_offset = base,
                               .record_count = format::batch::i32(batch, format::batch::kLastOffsetDelta) + 1,
                               .max_timestamp = format::batch::i64(batch, format::batch::kMaxTimestamp),
                               .append_time = now});
    return r->pos;
  }
  // Appends and makes everything written readable (write_out + publish).
  LogPosition append_published(PartitionId pid, int64_t base, const Bytes& batch) {
    auto pos = append(pid, base, batch);
    EXPECT_TRUE(pos.ok());
    EXPECT_TRUE(log_->write_out().ok());
    log_->publish();
    return pos.ok() ? *pos : LogPosition{-1};
  }
  // Flushes and closes the log, lets `damage` change the first segment's bytes,
  // reopens and scans it: the entries found, and in `end` where the valid prefix ends.
  std::vector<LogPosition> scan_after_damage(const std::function<void(Bytes&)>& damage, LogPosition* end) {
    EXPECT_TRUE(log_->flush().ok());
    log_.reset();
    Bytes seg = file_bytes(segment_path(0));
    damage(seg);
    testutil::write_file_bytes(segment_path(0), seg);
    reopen();
    return scanned({0}, end);
  }
  std::vector<LogPosition> scanned(LogPosition from, LogPosition* end = nullptr) {
    std::vector<LogPosition> out;
    const LogPosition e = log_->scan(from, [&](const CommitLog::ScannedEntry& entry) {
      out.push_back(entry.pos);
      return true;
    });
    if (end) *end = e;
    return out;
  }

  void use_faulty_fs() {
    fs_ = &faulty_;
    reopen();
  }

  size_t staging_bytes_ = 4 << 20;
  int64_t tail_cache_bytes_ = int64_t{64} << 20;
  int64_t direct_min_bytes_ = 0;  // every group written direct (the store's floor is 256 KiB)
  testutil::TempDir dir_;
  testutil::FaultyFileSystem faulty_;
  FileSystem* fs_ = &FileSystem::real();
  std::unique_ptr<CommitLog> log_;
};

Bytes batch_of(int32_t value_bytes, uint8_t fill = 0x11) { return make_batch({.value_bytes = value_bytes, .fill = fill}); }

TEST_P(CommitLogTest, AnEntryIsReadableOnceWrittenOutAndPublished) {
  const Bytes b = batch_of(100);
  auto pos = append(7, 0, b);
  ASSERT_TRUE(pos.ok());
  EXPECT_EQ(log_->read_batch(*pos, static_cast<int32_t>(b.size()), 7, 0).status().code(), StatusCode::kOutOfRange);
  ASSERT_TRUE(log_->write_out().ok());
  log_->publish();
  auto slice = log_->read_batch(*pos, static_cast<int32_t>(b.size()), 7, 0);
  ASSERT_TRUE(slice.ok()) << slice.status().to_string();
  EXPECT_EQ(Bytes(slice->bytes.begin(), slice->bytes.end()), b);
  EXPECT_EQ(log_->readable_end(), log_->write_end());
}

TEST_P(CommitLogTest, EntriesFollowEachOtherInOneSegment) {
  const Bytes b = batch_of(100);
  const LogPosition first = append_published(1, 0, b);
  const LogPosition second = append_published(2, 0, b);
  EXPECT_EQ(first.value, 0);
  EXPECT_EQ(second.value, format::kEntryHeaderSize + static_cast<int64_t>(b.size()));
  EXPECT_EQ(log_->segments().size(), 1u);
}

TEST_P(CommitLogTest, RollsWhenAnEntryDoesNotFit) {
  const Bytes b = batch_of(25 * 1024);  // two fit in 64 KiB, a third does not
  append_published(1, 0, b);
  append_published(1, 1, b);
  const LogPosition third = append_published(1, 2, b);
  EXPECT_EQ(third.value, kSegment);  // never split across files: the next segment's start
  const auto segs = log_->segments();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[1].start.value, kSegment);
  EXPECT_TRUE(std::filesystem::exists(segment_path(kSegment)));
  auto slice = log_->read_batch(third, static_cast<int32_t>(b.size()), 1, 2);
  ASSERT_TRUE(slice.ok()) << slice.status().to_string();
}

TEST_P(CommitLogTest, PadsTheTailOfARolledSegmentWithABlankEntry) {
  const Bytes b = batch_of(25 * 1024);
  append_published(1, 0, b);
  append_published(1, 1, b);
  const int64_t tail = log_->write_end().value;
  append_published(1, 2, b);
  const Bytes seg = file_bytes(segment_path(0));
  ASSERT_EQ(static_cast<int64_t>(seg.size()), kSegment);
  EXPECT_EQ(format::get_le32(seg.data() + tail), format::kBlankMagic);
  EXPECT_EQ(format::get_le32(seg.data() + tail + 4), static_cast<uint32_t>(kSegment - tail));  // the rest of the file
}

TEST_P(CommitLogTest, ScanVisitsEveryEntryAcrossSegmentsAndEndsAtTheWriteEnd) {
  const Bytes b = batch_of(20 * 1024);
  std::vector<LogPosition> written;
  for (int i = 0; i < 7; ++i) written.push_back(append_published(static_cast<PartitionId>(i % 2), i, b));
  ASSERT_GT(log_->segments().size(), 2u);
  LogPosition end;
  EXPECT_EQ(scanned({0}, &end), written);
  EXPECT_EQ(end, log_->write_end());
}

TEST_P(CommitLogTest, ScanReportsEachEntrysHeaderAndBatch) {
  const Bytes b = batch_of(300, 0x42);
  append_published(9, 41, b);
  int visits = 0;
  log_->scan({0}, [&](const CommitLog::ScannedEntry& e) {
    ++visits;
    EXPECT_EQ(e.header.partition, 9u);
    EXPECT_EQ(e.header.base_offset, 41);
    EXPECT_EQ(e.header.record_count, 1);
    EXPECT_EQ(e.batch.size(), b.size());
    EXPECT_EQ(format::batch::i64(e.batch, format::batch::kBaseOffset), 41);
    return true;
  });
  EXPECT_EQ(visits, 1);
}

TEST_P(CommitLogTest, ScanStopsWhereTheVisitorSaysSo) {
  const Bytes b = batch_of(100);
  append_published(1, 0, b);
  const LogPosition second = append_published(1, 1, b);
  append_published(1, 2, b);
  int visits = 0;
  const LogPosition end = log_->scan({0}, [&](const CommitLog::ScannedEntry&) { return ++visits < 2; });
  EXPECT_EQ(end, second);
}

// A writer that died mid-entry leaves a torn tail: the valid prefix ends before it.
TEST_P(CommitLogTest, ScanEndsBeforeATornLastEntry) {
  const Bytes b = batch_of(2000);
  append_published(1, 0, b);
  const LogPosition last = append_published(1, 1, b);
  const int64_t entry_end = last.value + format::kEntryHeaderSize + static_cast<int64_t>(b.size());
  LogPosition end;
  const auto found = scan_after_damage(
      [&](Bytes& seg) { std::fill(seg.begin() + entry_end - 500, seg.begin() + entry_end, std::byte{0}); },  // never reached the disk
      &end);
  EXPECT_EQ(found, std::vector<LogPosition>{{0}});
  EXPECT_EQ(end, last);
}

TEST_P(CommitLogTest, ScanEndsAtAnEntryWhoseBatchBytesAreCorrupt) {
  const Bytes b = batch_of(2000);
  append_published(1, 0, b);
  const LogPosition bad = append_published(1, 1, b);
  append_published(1, 2, b);
  LogPosition end;
  // A record byte: the batch CRC covers it.
  const auto found = scan_after_damage([&](Bytes& seg) { seg[bad.value + format::kEntryHeaderSize + 1000] ^= std::byte{1}; }, &end);
  EXPECT_EQ(found.size(), 1u);  // nothing after the damage either
  EXPECT_EQ(end, bad);
}

TEST_P(CommitLogTest, ScanEndsAtAnEntryWhoseHeaderIsCorrupt) {
  const Bytes b = batch_of(2000);
  append_published(1, 0, b);
  const LogPosition bad = append_published(1, 1, b);
  LogPosition end;
  scan_after_damage([&](Bytes& seg) { seg[bad.value + 16] ^= std::byte{0x80}; }, &end);  // its base offset
  EXPECT_EQ(end, bad);
}

TEST_P(CommitLogTest, ScanEndsAtABlankEntryWhoseLengthDoesNotReachTheFileEnd) {
  const Bytes b = batch_of(25 * 1024);
  append_published(1, 0, b);
  append_published(1, 1, b);
  const LogPosition tail = log_->write_end();
  append_published(1, 2, b);
  LogPosition end;
  // Padding that claims to end mid-file.
  const auto found = scan_after_damage([&](Bytes& seg) { format::put_le32(seg.data() + tail.value + 4, 64); }, &end);
  EXPECT_EQ(found.size(), 2u);
  EXPECT_EQ(end, tail);
}

TEST_P(CommitLogTest, ScanOfAnEmptyLogEndsAtOnce) {
  LogPosition end{-1};
  EXPECT_TRUE(scanned({0}, &end).empty());
  EXPECT_EQ(end.value, 0);
}

TEST_P(CommitLogTest, TruncateCutsTheLogDeletesLaterSegmentsAndWritesGoOnFromTheCut) {
  const Bytes b = batch_of(25 * 1024);
  append_published(1, 0, b);
  const LogPosition cut = append_published(1, 1, b);
  append_published(1, 2, b);  // in the second segment
  append_published(1, 3, b);
  ASSERT_TRUE(log_->flush().ok());
  reopen();  // truncate() is recovery's: right after open
  ASSERT_TRUE(log_->truncate(cut).ok());
  EXPECT_FALSE(std::filesystem::exists(segment_path(kSegment)));
  EXPECT_EQ(log_->write_end(), cut);
  EXPECT_EQ(log_->readable_end(), cut);
  EXPECT_EQ(log_->read_batch(cut, static_cast<int32_t>(b.size()), 1, 1).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(append_published(2, 0, b), cut);
  LogPosition end;
  EXPECT_EQ(scanned({0}, &end).size(), 2u);
  EXPECT_EQ(end, log_->write_end());
}

TEST_P(CommitLogTest, TruncateZeroesTheRestOfTheSegment) {
  const Bytes b = batch_of(2000);
  append_published(1, 0, b);
  const LogPosition cut = append_published(1, 1, b);
  ASSERT_TRUE(log_->flush().ok());
  reopen();
  ASSERT_TRUE(log_->truncate(cut).ok());
  const Bytes seg = file_bytes(segment_path(0));
  for (int64_t i = cut.value; i < static_cast<int64_t>(seg.size()); ++i) {
    ASSERT_EQ(seg[i], std::byte{0}) << "at " << i;
  }
}

TEST_P(CommitLogTest, OpenMapsTheContiguousSegmentsAndIgnoresWhatFollowsAGap) {
  const Bytes b = batch_of(25 * 1024);
  for (int i = 0; i < 6; ++i) append_published(1, i, b);  // three segments
  ASSERT_TRUE(log_->flush().ok());
  log_.reset();
  std::filesystem::remove(segment_path(kSegment));
  reopen();
  const auto segs = log_->segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].start.value, 0);
}

TEST_P(CommitLogTest, OpenIgnoresFilesThatAreNotSegments) {
  std::filesystem::create_directories(dir_ / "log");
  std::ofstream(dir_ / "log" / "notes.txt") << "x";
  std::ofstream(dir_ / "log" / format::segment_name(12345)) << "x";  // not on a segment boundary
  reopen();
  EXPECT_TRUE(log_->segments().empty());
}

TEST_P(CommitLogTest, ReadBatchRefusesAUnitThatDoesNotNameTheEntry) {
  const Bytes b = batch_of(100);
  const LogPosition pos = append_published(3, 10, b);
  const auto size = static_cast<int32_t>(b.size());
  EXPECT_TRUE(log_->read_batch(pos, size, 3, 10).ok());
  EXPECT_EQ(log_->read_batch(pos, size, 4, 10).status().code(), StatusCode::kOutOfRange);       // another partition's
  EXPECT_EQ(log_->read_batch(pos, size, 3, 11).status().code(), StatusCode::kOutOfRange);       // another offset's
  EXPECT_EQ(log_->read_batch(pos, size - 1, 3, 10).status().code(), StatusCode::kOutOfRange);   // another size
  EXPECT_EQ(log_->read_batch({pos.value + 1}, size, 3, 10).status().code(), StatusCode::kOutOfRange);  // not an entry
}

TEST_P(CommitLogTest, ReadBatchBeyondTheReadableEndIsOutOfRange) {
  const Bytes b = batch_of(100);
  append_published(3, 0, b);
  EXPECT_EQ(log_->read_batch(log_->write_end(), static_cast<int32_t>(b.size()), 3, 1).status().code(),
            StatusCode::kOutOfRange);
}

TEST_P(CommitLogTest, HoldsEntryChecksTheHeaderAtThePosition) {
  const Bytes b = batch_of(100);
  const LogPosition pos = append_published(3, 10, b);
  EXPECT_TRUE(log_->holds_entry(pos, static_cast<int32_t>(b.size()), 3, 10));
  EXPECT_FALSE(log_->holds_entry(pos, static_cast<int32_t>(b.size()), 3, 9));
  EXPECT_FALSE(log_->holds_entry({kSegment * 5}, static_cast<int32_t>(b.size()), 3, 10));  // no such segment
}

TEST_P(CommitLogTest, AnEntryLargerThanASegmentIsTooLarge) {
  EXPECT_EQ(log_->max_entry_size(), kSegment - format::kBlankHeaderSize);
  EXPECT_EQ(log_->reserve(static_cast<int32_t>(log_->max_entry_size() + 1), 0).status().code(), StatusCode::kTooLarge);
  EXPECT_TRUE(log_->reserve(static_cast<int32_t>(log_->max_entry_size()), 0).ok());  // the largest fits exactly
}

TEST_P(CommitLogTest, DropOldestDeletesSegmentFilesButNeverTheOneBeingWritten) {
  const Bytes b = batch_of(25 * 1024);
  for (int i = 0; i < 6; ++i) append_published(1, i, b);  // three segments
  ASSERT_TRUE(log_->flush().ok());
  ASSERT_TRUE(log_->drop_oldest(10).ok());
  const auto segs = log_->segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].start.value, 2 * kSegment);
  EXPECT_EQ(log_->begin().value, 2 * kSegment);
  EXPECT_FALSE(std::filesystem::exists(segment_path(0)));
  EXPECT_FALSE(std::filesystem::exists(segment_path(kSegment)));
}

TEST_P(CommitLogTest, ASliceKeepsItsBytesAfterRetentionDropsTheSegment) {
  const Bytes b = batch_of(25 * 1024, 0x33);
  const LogPosition first = append_published(1, 0, b);
  for (int i = 1; i < 4; ++i) append_published(1, i, b);
  auto slice = log_->read_batch(first, static_cast<int32_t>(b.size()), 1, 0);
  ASSERT_TRUE(slice.ok());
  ASSERT_TRUE(log_->flush().ok());
  ASSERT_TRUE(log_->drop_oldest(1).ok());
  EXPECT_FALSE(std::filesystem::exists(segment_path(0)));
  EXPECT_EQ(log_->read_batch(first, static_cast<int32_t>(b.size()), 1, 0).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(Bytes(slice->bytes.begin(), slice->bytes.end()), b);  // the reader's mapping lives on
}

TEST_P(CommitLogTest, SegmentsCarryTheTimeOfTheirNewestEntry) {
  const Bytes b = batch_of(25 * 1024);
  ASSERT_TRUE(append(1, 0, b, 5000).ok());
  ASSERT_TRUE(append(1, 1, b, 6000).ok());
  ASSERT_TRUE(append(1, 2, b, 7000).ok());  // rolls
  const auto segs = log_->segments();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0].last_append_ms, 6000);
  EXPECT_EQ(segs[1].last_append_ms, 7000);
}

TEST_P(CommitLogTest, FlushMakesWrittenBytesDurableAndClearsHasUnflushed) {
  use_faulty_fs();
  append_published(1, 0, batch_of(100));
  EXPECT_TRUE(log_->has_unflushed());
  const int before = faulty_.syncs;
  ASSERT_TRUE(log_->flush().ok());
  EXPECT_GT(faulty_.syncs, before);
  EXPECT_FALSE(log_->has_unflushed());
}

TEST_P(CommitLogTest, AFailedSyncIsReportedAndRetriedByTheNextSync) {
  use_faulty_fs();
  append_published(1, 0, batch_of(100));
  faulty_.fail_sync = true;
  EXPECT_EQ(log_->flush().code(), StatusCode::kIoError);
  faulty_.fail_sync = false;
  const int before = faulty_.syncs;
  ASSERT_TRUE(log_->sync_marked().ok());  // the segment is still marked: synced now
  EXPECT_GT(faulty_.syncs, before);
}

TEST_P(CommitLogTest, AFailedWriteIsReported) {
  use_faulty_fs();
  ASSERT_TRUE(append(1, 0, batch_of(100)).ok());  // staged in memory
  faulty_.fail_write = true;
  EXPECT_EQ(log_->write_out().code(), StatusCode::kIoError);
}

TEST_P(CommitLogTest, ASegmentThatCannotBeCreatedFailsTheReservation) {
  use_faulty_fs();
  faulty_.fail_create = true;
  EXPECT_EQ(log_->reserve(1000, 0).status().code(), StatusCode::kIoError);
  EXPECT_TRUE(log_->segments().empty());
}

// Small chunks and a tail of two: entries of many sizes, written in groups of random
// size (direct ones and, below 4 KiB, buffered ones), cross chunks (each starting on a 4 KiB block with the previous one's partial
// block) and segments, and leave the tail; every one reads back identical from the tail
// or the files, the replication walk returns the files' bytes, and a reopen scans them all.
TEST_P(CommitLogTest, EntriesReadBackIdenticalFromTheTailAndTheFilesAcrossChunksAndSegments) {
  staging_bytes_ = 8192;
  tail_cache_bytes_ = 2 * 8192;
  direct_min_bytes_ = 4096;  // groups of either kind, over the same blocks
  reopen();
  if (GetParam() && !log_->direct_io()) GTEST_SKIP() << "this file system does not take O_DIRECT writes";
  std::mt19937 rng(7);
  struct Appended {
    LogPosition pos;
    Bytes batch;
  };
  std::vector<Appended> all;
  auto check_all = [&] {
    for (size_t i = 0; i < all.size(); ++i) {
      auto got = log_->read_batch(all[i].pos, static_cast<int32_t>(all[i].batch.size()), 3, static_cast<int64_t>(i));
      ASSERT_TRUE(got.ok()) << "entry " << i << ": " << got.status().to_string();
      ASSERT_TRUE(std::equal(got->bytes.begin(), got->bytes.end(), all[i].batch.begin(), all[i].batch.end()))
          << "entry " << i << " at " << all[i].pos.value;
    }
  };
  for (int i = 0; i < 120; ++i) {
    const auto value = static_cast<int32_t>(rng() % 3 == 0 ? 5000 + rng() % 9000 : 10 + rng() % 1500);
    Bytes b = batch_of(value, static_cast<uint8_t>(i));
    auto pos = append(3, i, b);
    ASSERT_TRUE(pos.ok()) << pos.status().to_string();
    format::put_be(b.data() + format::batch::kBaseOffset, static_cast<uint64_t>(i), 8);
    all.push_back({*pos, std::move(b)});
    if (rng() % 3 == 0) {
      ASSERT_TRUE(log_->write_out().ok());
      log_->publish();
      check_all();
    }
  }
  ASSERT_TRUE(log_->flush().ok());
  log_->publish();
  check_all();
  ASSERT_GE(log_->segments().size(), 4u);
  EXPECT_EQ(log_->direct_io(), GetParam());  // no write fell back
  // The replication walk, in pieces of any size, gives the files' bytes up to the end.
  Bytes walked;
  for (LogPosition at = log_->first_position(); at < log_->readable_end();) {
    auto slice = log_->read_entries(at, 1 + static_cast<int64_t>(rng() % 20000));
    ASSERT_TRUE(slice.ok()) << slice.status().to_string();
    ASSERT_FALSE(slice->bytes.empty()) << "at " << at.value;
    walked.insert(walked.end(), slice->bytes.begin(), slice->bytes.end());
    at.value += static_cast<int64_t>(slice->bytes.size());
  }
  Bytes files;
  for (const auto& seg : log_->segments()) {
    const Bytes f = file_bytes(segment_path(seg.start.value));
    files.insert(files.end(), f.begin(), f.end());
  }
  files.resize(walked.size());
  EXPECT_TRUE(walked == files);
  const LogPosition end = log_->write_end();
  log_.reset();
  reopen();
  LogPosition scanned_end;
  const auto found = scanned({0}, &scanned_end);
  ASSERT_EQ(found.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(found[i], all[i].pos) << "entry " << i;
  EXPECT_EQ(scanned_end, end);
}

// Before recovery places the end, nothing is staged: a flush (a store closed after a
// failed recovery) writes nothing and leaves the segments as they were.
TEST_P(CommitLogTest, AFlushRightAfterOpenWritesNothing) {
  const Bytes b = batch_of(25 * 1024);
  for (int i = 0; i < 3; ++i) append_published(1, i, b);  // two segments
  ASSERT_TRUE(log_->flush().ok());
  log_.reset();
  const Bytes first = file_bytes(segment_path(0)), second = file_bytes(segment_path(kSegment));
  reopen();
  ASSERT_TRUE(log_->flush().ok());
  log_.reset();
  EXPECT_TRUE(file_bytes(segment_path(0)) == first);
  EXPECT_TRUE(file_bytes(segment_path(kSegment)) == second);
}

// A cut inside a block: the next entries start a chunk whose first block comes from the
// file, and the block written again keeps the entries before the cut.
TEST_P(CommitLogTest, AppendsAfterACutInsideABlockKeepTheEntriesBeforeIt) {
  staging_bytes_ = 8192;
  reopen();
  const Bytes a = batch_of(700, 0x21), b = batch_of(900, 0x22), c = batch_of(1100, 0x23);
  const LogPosition pa = append_published(1, 0, a);
  const LogPosition cut = append_published(1, 1, b);
  append_published(1, 2, b);
  ASSERT_TRUE(log_->flush().ok());
  ASSERT_NE(cut.value % 4096, 0);
  ASSERT_TRUE(log_->truncate(cut).ok());  // at runtime, after write_out
  const LogPosition pc = append_published(2, 0, c);
  EXPECT_EQ(pc, cut);
  ASSERT_TRUE(log_->flush().ok());
  log_.reset();
  reopen();
  LogPosition end;
  EXPECT_EQ(scanned({0}, &end), (std::vector<LogPosition>{pa, pc}));
  ASSERT_TRUE(log_->truncate(end).ok());  // recovery's: the scanned end becomes readable
  auto got = log_->read_batch(pa, static_cast<int32_t>(a.size()), 1, 0);
  ASSERT_TRUE(got.ok());
  Bytes want = a;
  format::put_be(want.data() + format::batch::kBaseOffset, 0, 8);
  EXPECT_TRUE(std::equal(got->bytes.begin(), got->bytes.end(), want.begin(), want.end()));
}

INSTANTIATE_TEST_SUITE_P(WriteModes, CommitLogTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Direct" : "Buffered"; });

}  // namespace
}  // namespace rokka::storage
