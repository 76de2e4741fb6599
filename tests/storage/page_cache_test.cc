// store.pagecache.retain.bytes: synced CommitLog bytes further than the retained
// window behind the end leave the OS page cache (the log's memory footprint stays
// flat), the window itself stays cached, and every dropped batch still reads back
// byte for byte. Residency is read with mincore() on a fresh mapping of each segment.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>

#include "storage/format.h"
#include "tests/storage/store_fixture.h"

namespace rokka::storage::test {
namespace {

using testutil::make_batch;
using testutil::TempDir;

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kSegment = 16 * kMiB;
constexpr int64_t kPage = 4096;

// Which pages of `path` are in the page cache (one bool per 4 KiB page).
std::vector<bool> resident_pages(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  if (fd < 0) return {};
  const auto size = static_cast<size_t>(std::filesystem::file_size(path));
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  EXPECT_NE(p, MAP_FAILED);
  if (p == MAP_FAILED) return {};
  std::vector<unsigned char> vec((size + kPage - 1) / kPage);
  EXPECT_EQ(::mincore(p, size, vec.data()), 0);
  ::munmap(p, size);
  std::vector<bool> out(vec.size());
  for (size_t i = 0; i < vec.size(); ++i) out[i] = (vec[i] & 1) != 0;
  return out;
}

// Resident pages of the whole log in [from, to) (log positions; segments named by start).
struct Residency {
  int64_t resident = 0, total = 0;
};
Residency log_residency(const std::filesystem::path& dir, int64_t from, int64_t to) {
  Residency r;
  for (const auto& e : std::filesystem::directory_iterator(dir / "commitlog")) {
    const int64_t start = std::stoll(e.path().filename().string());
    const auto pages = resident_pages(e.path());
    for (size_t i = 0; i < pages.size(); ++i) {
      const int64_t pos = start + static_cast<int64_t>(i) * kPage;
      if (pos < from || pos + kPage > to) continue;
      ++r.total;
      r.resident += pages[i] ? 1 : 0;
    }
  }
  return r;
}

bool page_cache_can_drop(const std::filesystem::path& dir) {
  struct statfs fs {};
  return ::statfs(dir.c_str(), &fs) == 0 && fs.f_type != TMPFS_MAGIC && fs.f_type != RAMFS_MAGIC;
}

struct Written {
  std::vector<int64_t> offsets;
  std::vector<std::vector<std::byte>> batches;  // as stored (base offset set)
  int64_t end = 0;                              // log bytes written
};

// Appends `n` ~1 MiB batches, each synced (sync mode).
void write_log(Store& store, PartitionId pid, int n, Written& w) {
  for (int i = 0; i < n; ++i) {
    const auto batch = make_batch({.records = 16, .value_bytes = 65000, .fill = static_cast<uint8_t>(w.batches.size())});
    auto info = append(store, pid, batch);
    ASSERT_TRUE(info.ok()) << info.status().to_string();
    w.offsets.push_back(info->base_offset);
    w.batches.push_back(with_base(batch, info->base_offset));
    // Where the entry lands: an entry never crosses a segment (CommitLog::reserve).
    const int64_t entry = static_cast<int64_t>(batch.size()) + format::kEntryHeaderSize;
    if (w.end % kSegment + entry > kSegment) w.end += kSegment - w.end % kSegment;
    w.end += entry;
  }
}

void expect_reads_back(const Store& store, PartitionId pid, const Written& w) {
  for (size_t i = 0; i < w.batches.size(); ++i) EXPECT_EQ(read_one(store, pid, w.offsets[i]), w.batches[i]) << i;
}

StoreOptions options(const TempDir& dir, int64_t retain) {
  StoreOptions o;
  o.dir = dir.path();
  o.segment_bytes = kSegment;
  o.max_append_bytes = 2 * kMiB;
  o.flush_mode = FlushMode::kSync;
  o.page_cache_retain_bytes = retain;
  return o;
}

TEST(PageCacheTest, SyncedLogBehindTheRetainedWindowLeavesThePageCacheAndStillReadsBack) {
  TempDir dir;
  if (!page_cache_can_drop(dir.path())) GTEST_SKIP() << "TMPDIR is on tmpfs: its pages cannot leave memory";
  auto store = open_store(options(dir, 4 * kMiB));
  const PartitionId pid = create(*store, 1)[0];
  Written w;
  // The first 10 MiB, still inside the window plus one step, are read: this process now
  // maps them too, and mapped pages stay in the cache until the mapping lets go.
  write_log(*store, pid, 10, w);
  expect_reads_back(*store, pid, w);
  write_log(*store, pid, 30, w);  // 40 MiB over three segments

  // Dropping runs in steps of 8 MiB cut at 2 MiB boundaries, so everything more than
  // 4 + 8 + 2 MiB behind the end is gone, and the newest 4 MiB are cached.
  const Residency old = log_residency(dir.path(), 0, w.end - 14 * kMiB);
  const Residency recent = log_residency(dir.path(), w.end - 4 * kMiB, w.end);
  ASSERT_GT(old.total, 0);
  EXPECT_EQ(old.resident, 0) << "of " << old.total << " pages older than the window";
  EXPECT_EQ(recent.resident, recent.total);

  // The dropped batches read back identical (through the mapping, from disk).
  expect_reads_back(*store, pid, w);
}

TEST(PageCacheTest, MinusOneLeavesTheWrittenLogCached) {
  TempDir dir;
  if (!page_cache_can_drop(dir.path())) GTEST_SKIP() << "TMPDIR is on tmpfs: its pages cannot leave memory";
  auto store = open_store(options(dir, -1));
  const PartitionId pid = create(*store, 1)[0];
  Written w;
  write_log(*store, pid, 40, w);
  // Nothing asked the kernel to drop anything: on a machine with memory to spare, all of
  // the 40 MiB just written is still cached (a few pages may go to reclaim).
  const Residency all = log_residency(dir.path(), 0, w.end);
  EXPECT_GT(all.resident, all.total * 9 / 10) << all.resident << " of " << all.total;
}

}  // namespace
}  // namespace rokka::storage::test
