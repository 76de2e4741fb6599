// MetaJournal alone, on real files in a TempDir (FaultyFileSystem for IO failures):
// records appended, replayed at open, a torn or corrupt tail cut, compaction.
#include "storage/meta_journal.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "storage/format.h"
#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/file_bytes.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage {
namespace {

using Batch = std::vector<MetaStore::Mutation>;
using KV = std::vector<std::pair<std::string, std::string>>;

class MetaJournalTest : public ::testing::Test {
 protected:
  void SetUp() override { reopen(); }
  void reopen() {
    j_.reset();
    auto j = MetaJournal::open(*fs_, dir_ / "meta");
    ASSERT_TRUE(j.ok()) << j.status().to_string();
    j_ = std::move(*j);
  }
  std::filesystem::path path() { return dir_ / "meta" / "journal"; }
  // Closes the journal, lets `damage` change its bytes, reopens it.
  void reopen_after(const std::function<void(std::vector<std::byte>&)>& damage) {
    j_.reset();
    auto bytes = testutil::file_bytes(path());
    damage(bytes);
    testutil::write_file_bytes(path(), bytes);
    reopen();
  }
  void append(const Batch& b) { ASSERT_TRUE(j_->append(b).ok()); }
  // Record boundaries as appended: the file size after each append.
  int64_t size() { return static_cast<int64_t>(std::filesystem::file_size(path())); }

  testutil::TempDir dir_;
  testutil::FaultyFileSystem faulty_;
  FileSystem* fs_ = &FileSystem::real();
  std::unique_ptr<MetaJournal> j_;
};

TEST_F(MetaJournalTest, ReplaysPutsAndErasesInOrder) {
  append({{"t/a", "1"}, {"t/b", "2"}});
  append({{"t/a", "3"}});
  append({{"t/b", "", true}, {"t/c", "4"}});
  reopen();
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/a", "3"}, {"t/c", "4"}}));
}

TEST_F(MetaJournalTest, AppliesABatchToTheMapAtOnce) {
  append({{"o/x", "1"}});
  EXPECT_EQ(j_->get("o/x"), "1");
  EXPECT_FALSE(j_->get("o/y").has_value());
}

TEST_F(MetaJournalTest, ScanReturnsOnlyKeysWithThePrefixInKeyOrder) {
  append({{"t/b", "2"}, {"s/p/1", "x"}, {"t/a", "1"}, {"u/z", "9"}});
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/a", "1"}, {"t/b", "2"}}));
  EXPECT_TRUE(j_->scan("x/").empty());
}

TEST_F(MetaJournalTest, EraseOfAMissingKeyIsHarmless) {
  append({{"t/none", "", true}});
  reopen();
  EXPECT_TRUE(j_->scan("").empty());
}

TEST_F(MetaJournalTest, ATornLastRecordIsCutAndItsWholeBatchIsGone) {
  append({{"t/a", "1"}});
  const int64_t valid = size();
  append({{"t/a", "2"}, {"t/b", "2"}});
  reopen_after([](auto& bytes) { bytes.resize(bytes.size() - 3); });
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/a", "1"}}));  // atomic: neither put of the torn batch
  EXPECT_EQ(size(), valid);                     // the file is cut to its valid prefix
  EXPECT_EQ(j_->file_bytes(), valid);
  append({{"t/c", "3"}});  // and appends go on from there
  reopen();
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/a", "1"}, {"t/c", "3"}}));
}

TEST_F(MetaJournalTest, ACorruptRecordDropsItAndEverythingAfterIt) {
  append({{"t/a", "1"}});
  const int64_t second = size();
  append({{"t/b", "2"}});
  append({{"t/c", "3"}});
  // A payload byte of the second record.
  reopen_after([&](auto& bytes) { bytes[second + format::kJournalRecordHeaderSize + 6] ^= std::byte{1}; });
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/a", "1"}}));
  EXPECT_EQ(size(), second);
}

TEST_F(MetaJournalTest, ARecordLengthBeyondTheFileIsATornTail) {
  append({{"t/a", "1"}});
  const int64_t valid = size();
  reopen_after([](auto& bytes) {
    bytes.resize(bytes.size() + format::kJournalRecordHeaderSize);
    format::put_le32(bytes.data() + bytes.size() - format::kJournalRecordHeaderSize, 1000);  // 1000 payload bytes, none there
  });
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/a", "1"}}));
  EXPECT_EQ(size(), valid);
}

TEST_F(MetaJournalTest, ABatchTooLargeForOneRecordIsRefusedAndChangesNothing) {
  append({{"t/a", "1"}});
  const int64_t before = size();
  EXPECT_EQ(j_->append({{"t/big", std::string(format::kMaxJournalRecord, 'x')}}).code(), StatusCode::kTooLarge);
  EXPECT_FALSE(j_->get("t/big").has_value());
  EXPECT_EQ(size(), before);
}

TEST_F(MetaJournalTest, CompactionRewritesTheLiveStateIntoASmallerFile) {
  const std::string value(64 * 1024, 'v');
  for (int i = 0; i < 80; ++i) append({{"t/hot", value + std::to_string(i)}});  // 5 MiB, one live key
  append({{"t/cold", "c"}});
  const int64_t before = j_->file_bytes();
  ASSERT_TRUE(j_->maybe_compact().ok());
  EXPECT_LT(j_->file_bytes(), before / 10);
  EXPECT_EQ(size(), j_->file_bytes());
  append({{"t/after", "a"}});  // the new file takes appends
  reopen();
  EXPECT_EQ(j_->scan("t/"), (KV{{"t/after", "a"}, {"t/cold", "c"}, {"t/hot", value + "79"}}));
}

TEST_F(MetaJournalTest, CompactionLeavesAJournalThatIsMostlyLive) {
  const std::string value(64 * 1024, 'v');
  for (int i = 0; i < 80; ++i) append({{"t/" + std::to_string(i), value}});  // 5 MiB, all live
  const int64_t before = j_->file_bytes();
  ASSERT_TRUE(j_->maybe_compact().ok());
  EXPECT_EQ(j_->file_bytes(), before);
}

TEST_F(MetaJournalTest, SyncIsANoOpWithNothingNewAndReportsAFailedFsync) {
  fs_ = &faulty_;
  reopen();
  append({{"t/a", "1"}});
  EXPECT_TRUE(j_->has_unsynced());
  faulty_.fail_sync = true;
  EXPECT_EQ(j_->sync().code(), StatusCode::kIoError);
  EXPECT_TRUE(j_->has_unsynced());  // still not durable
  faulty_.fail_sync = false;
  ASSERT_TRUE(j_->sync().ok());
  EXPECT_FALSE(j_->has_unsynced());
  const int before = faulty_.syncs;
  ASSERT_TRUE(j_->sync().ok());
  EXPECT_EQ(faulty_.syncs, before);
}

TEST_F(MetaJournalTest, AFailedWriteIsReportedAndLeavesTheMapAlone) {
  fs_ = &faulty_;
  reopen();
  faulty_.fail_write = true;
  EXPECT_EQ(j_->append({{"t/a", "1"}}).code(), StatusCode::kIoError);
  EXPECT_FALSE(j_->get("t/a").has_value());
}

// The journal holds the partition table: a new file's name must be durable before
// any record in it is acknowledged.
TEST_F(MetaJournalTest, OpeningANewJournalFailsWhenItsDirectoryCannotBeSynced) {
  j_.reset();
  fs_ = &faulty_;
  faulty_.fail_sync = true;
  EXPECT_EQ(MetaJournal::open(faulty_, dir_ / "meta2").status().code(), StatusCode::kIoError);
  EXPECT_TRUE(MetaJournal::open(faulty_, dir_ / "meta").ok());  // an existing one needs no directory sync
}

}  // namespace
}  // namespace rokka::storage
