// log.preallocate: a new CommitLog segment gets all its blocks when it is created, and
// the preallocated tail (zeros) is still the end of the log for recovery.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

StoreOptions options(const std::filesystem::path& dir, bool preallocate) {
  StoreOptions o = small_options(dir);  // 64 KiB segments
  o.flush_mode = FlushMode::kAsync;
  o.preallocate = preallocate;
  o.retention_ms = -1;
  return o;
}

std::filesystem::path only_segment(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> segments;
  for (const auto& e : std::filesystem::directory_iterator(dir / "commitlog"))
    if (e.is_regular_file()) segments.push_back(e.path());
  EXPECT_EQ(segments.size(), 1u);
  return segments.empty() ? std::filesystem::path{} : segments[0];
}

int64_t allocated_bytes(const std::filesystem::path& file) {
  struct stat st {};
  EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
  return static_cast<int64_t>(st.st_blocks) * 512;
}

TEST(PreallocateTest, NewSegmentHasAllItsBlocksBeforeTheyAreWritten) {
  for (bool preallocate : {true, false}) {
    SCOPED_TRACE(preallocate ? "preallocate" : "sparse");
    TempDir dir;
    auto o = options(dir.path(), preallocate);
    auto store = open_store(o);
    const auto pid = create(*store, 1)[0];
    ASSERT_TRUE(append(*store, pid, make_batch({.value_bytes = 100})).ok());
    const auto segment = only_segment(dir.path());
    EXPECT_EQ(std::filesystem::file_size(segment), static_cast<uintmax_t>(o.segment_bytes));
    if (preallocate) {
      EXPECT_GE(allocated_bytes(segment), o.segment_bytes);
    } else {
      EXPECT_LT(allocated_bytes(segment), o.segment_bytes / 2);  // only the written pages
    }
    ASSERT_TRUE(store->close().ok());
  }
}

// After a crash the preallocated zeros end the log; a torn entry in them is cut, and
// the cut range is allocated again.
TEST(PreallocateTest, RecoveryEndsTheLogAtThePreallocatedZerosAndCutsATornTail) {
  TempDir dir;
  const auto o = options(dir.path(), true);
  std::vector<std::vector<std::byte>> sent;
  PartitionId pid = 0;
  int64_t log_end = 0;
  {
    auto store = open_store(o);
    pid = create(*store, 1)[0];
    for (int i = 0; i < 5; ++i) {
      sent.push_back(make_batch({.records = 2, .value_bytes = 300 + 100 * i, .fill = static_cast<uint8_t>(i)}));
      ASSERT_TRUE(append(*store, pid, sent.back()).ok());
      log_end += static_cast<int64_t>(format::kEntryHeaderSize + sent.back().size());
    }
  }  // dropped without close(): a process crash (the page cache keeps the bytes)
  const auto segment = only_segment(dir.path());
  {
    // A torn entry right after the last one: non-zero bytes where zeros were.
    std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(log_end);
    const std::string junk(100, '\xff');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto store = open_store(o);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->offsets(pid)->next_offset, 10);
  {
    std::ifstream f(segment, std::ios::binary);
    f.seekg(log_end);
    std::string after(100, '\x01');
    f.read(after.data(), static_cast<std::streamsize>(after.size()));
    EXPECT_EQ(after, std::string(100, '\0')) << "the torn tail was not cut";
  }
  EXPECT_GE(allocated_bytes(segment), o.segment_bytes);
  sent.push_back(make_batch({.records = 3, .value_bytes = 500, .fill = 9}));
  auto r = append(*store, pid, sent.back());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->base_offset, 10);
  int64_t base = 0;
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(read_one(*store, pid, base), with_base(sent[i], base)) << "batch " << i;
    base += format::batch::i32(sent[i], format::batch::kLastOffsetDelta) + 1;
  }
  ASSERT_TRUE(store->close().ok());
}

}  // namespace
}  // namespace rokka::storage::test
