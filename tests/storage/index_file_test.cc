// IndexFiles alone, on real files in a TempDir: the shared chunk space every
// ConsumeQueue lives in. Small geometry: 4 units per chunk, 2 chunks per file.
#include "storage/index_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "storage/format.h"
#include "tests/testutil/faulty_file_system.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage {
namespace {

constexpr uint32_t kChunkUnits = 4;
constexpr uint32_t kFileChunks = 2;
constexpr int64_t kFileBytes = int64_t{kChunkUnits} * kFileChunks * 32;

class IndexFilesTest : public ::testing::Test {
 protected:
  IndexOptions options() { return {dir_ / "index", fs_, kChunkUnits, kFileChunks}; }
  Result<std::unique_ptr<IndexFiles>> open(uint32_t next_chunk, std::vector<uint32_t> free = {}) {
    return IndexFiles::open(options(), next_chunk, std::move(free));
  }
  std::unique_ptr<IndexFiles> open_ok(uint32_t next_chunk, std::vector<uint32_t> free = {}) {
    auto ix = open(next_chunk, std::move(free));
    EXPECT_TRUE(ix.ok()) << ix.status().to_string();
    return ix.ok() ? std::move(*ix) : nullptr;
  }
  std::filesystem::path file(int64_t i) { return dir_ / "index" / format::segment_name(i); }

  testutil::TempDir dir_;
  testutil::FaultyFileSystem faulty_;
  FileSystem* fs_ = &FileSystem::real();
};

uint32_t allocate(IndexFiles& ix) {
  auto c = ix.allocate_chunk();
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  return c.ok() ? *c : UINT32_MAX;
}

TEST_F(IndexFilesTest, ANewIndexHasNoFileUntilAChunkIsAllocated) {
  auto ix = open_ok(0);
  EXPECT_EQ(ix->file_count(), 0u);
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "index"));
}

TEST_F(IndexFilesTest, ChunksAreNumberedInOrderAndFilesAddedAsTheyFill) {
  auto ix = open_ok(0);
  EXPECT_EQ(allocate(*ix), 0u);
  EXPECT_EQ(allocate(*ix), 1u);
  EXPECT_EQ(ix->file_count(), 1u);
  EXPECT_EQ(allocate(*ix), 2u);  // the second file's first chunk
  EXPECT_EQ(ix->file_count(), 2u);
  EXPECT_EQ(ix->next_chunk(), 3u);
  EXPECT_EQ(std::filesystem::file_size(file(1)), static_cast<uintmax_t>(kFileBytes));
}

TEST_F(IndexFilesTest, AReleasedChunkIsReusedOnlyAfterRecycle) {
  auto ix = open_ok(0);
  const uint32_t c = allocate(*ix);
  ix->release({c});  // a reader may still hold a ChunkDir naming it
  EXPECT_NE(allocate(*ix), c);
  ix->recycle();
  EXPECT_EQ(allocate(*ix), c);
}

TEST_F(IndexFilesTest, FreeChunksCountTheQuarantinedToo) {
  auto ix = open_ok(0);
  for (int i = 0; i < 3; ++i) allocate(*ix);
  ix->release({0});
  ix->recycle();
  ix->release({2});
  auto free = ix->free_chunks();
  std::sort(free.begin(), free.end());
  EXPECT_EQ(free, (std::vector<uint32_t>{0, 2}));  // both belong in a checkpoint
}

TEST_F(IndexFilesTest, UnitsWrittenAreReadBackAfterReopen) {
  {
    auto ix = open_ok(0);
    for (int i = 0; i < 3; ++i) allocate(*ix);
    format::encode_unit({{4096}, 100, 2, 77, 1234}, ix->unit_for_write(2, 3));
    ASSERT_TRUE(ix->sync().ok());
  }
  auto ix = open_ok(3);
  const format::QueueUnit u = format::decode_unit(ix->unit(2, 3));
  EXPECT_EQ(u.pos.value, 4096);
  EXPECT_EQ(u.size, 100);
  EXPECT_EQ(u.last_offset_delta, 2);
  EXPECT_EQ(u.base_offset, 77);
  EXPECT_EQ(u.max_timestamp, 1234);
}

TEST_F(IndexFilesTest, OpenRefusesAMissingFile) {
  {
    auto ix = open_ok(0);
    for (int i = 0; i < 3; ++i) allocate(*ix);
  }
  std::filesystem::remove(file(1));
  EXPECT_EQ(open(3).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(open(2).ok());  // the checkpoint decides which files must exist
}

TEST_F(IndexFilesTest, OpenRefusesAFileOfTheWrongSize) {
  {
    auto ix = open_ok(0);
    allocate(*ix);
  }
  std::filesystem::resize_file(file(0), kFileBytes / 2);
  EXPECT_EQ(open(1).status().code(), StatusCode::kNotFound);
}

TEST_F(IndexFilesTest, OpenRefusesMoreChunksThanFilesCanHold) {
  EXPECT_EQ(open(static_cast<uint32_t>(IndexFiles::kMaxFiles * kFileChunks + 1)).status().code(),
            StatusCode::kCorruption);
}

TEST_F(IndexFilesTest, OpenKeepsOnlyFreeChunksBelowTheNextChunk) {
  {
    auto ix = open_ok(0);
    for (int i = 0; i < 2; ++i) allocate(*ix);
  }
  auto ix = open_ok(2, {1, 7});  // 7 was never allocated: a damaged list
  EXPECT_EQ(ix->free_chunks(), std::vector<uint32_t>{1});
  EXPECT_EQ(allocate(*ix), 1u);
  EXPECT_EQ(allocate(*ix), 2u);
}

TEST_F(IndexFilesTest, TakeDirtyNamesEachWrittenFileOnce) {
  auto ix = open_ok(0);
  for (int i = 0; i < 3; ++i) allocate(*ix);
  ix->take_dirty();
  ix->unit_for_write(2, 0);
  ix->unit_for_write(2, 1);
  EXPECT_EQ(ix->take_dirty().size(), 1u);
  EXPECT_TRUE(ix->take_dirty().empty());
  ix->unit_for_write(0, 0);
  ix->unit_for_write(3, 0);
  EXPECT_EQ(ix->take_dirty().size(), 2u);
}

TEST_F(IndexFilesTest, SyncFlushesOnlyTheFilesWrittenSinceTheLastSync) {
  fs_ = &faulty_;
  auto ix = open_ok(0);
  for (int i = 0; i < 3; ++i) allocate(*ix);
  ASSERT_TRUE(ix->sync().ok());
  int before = faulty_.syncs;
  ASSERT_TRUE(ix->sync().ok());
  EXPECT_EQ(faulty_.syncs, before);
  ix->unit_for_write(1, 0);
  ASSERT_TRUE(ix->sync().ok());
  EXPECT_EQ(faulty_.syncs, before + 1);
}

TEST_F(IndexFilesTest, AFileThatCannotReserveItsBlocksFailsTheAllocation) {
  fs_ = &faulty_;
  auto ix = open_ok(0);
  faulty_.fail_allocate = true;  // a full disk: no SIGBUS later, a Status now
  EXPECT_EQ(ix->allocate_chunk().status().code(), StatusCode::kIoError);
  EXPECT_EQ(ix->next_chunk(), 0u);
  faulty_.fail_allocate = false;
  EXPECT_EQ(allocate(*ix), 0u);
}

TEST_F(IndexFilesTest, ResetForgetsEveryAllocation) {
  auto ix = open_ok(0);
  for (int i = 0; i < 3; ++i) allocate(*ix);
  ix->release({1});
  ix->reset();
  EXPECT_EQ(ix->next_chunk(), 0u);
  EXPECT_TRUE(ix->free_chunks().empty());
  EXPECT_EQ(allocate(*ix), 0u);
}

// A partition's first chunk is a small one (here 1 unit, 4 per chunk): small chunks are
// cut from one chunk at a time, in order, so 4 partitions with a batch each share a page.
TEST_F(IndexFilesTest, SmallChunksAreCutFromOneChunkInOrderAndReusedAfterRecycle) {
  IndexOptions o = options();
  o.first_chunk_units = 1;
  auto opened = IndexFiles::open(o, 0, {});
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  auto& ix = **opened;
  std::vector<uint32_t> small;
  for (int i = 0; i < 5; ++i) {
    auto c = ix.allocate_small_chunk();
    ASSERT_TRUE(c.ok());
    small.push_back(*c);
  }
  EXPECT_EQ(small, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ix.next_chunk(), 2u);  // chunk 0 cut in four, chunk 1 begun
  EXPECT_EQ(ix.small_unit(2, 0), ix.unit(0, 2));
  EXPECT_EQ(ix.small_unit(4, 0), ix.unit(1, 0));
  EXPECT_EQ(allocate(ix), 2u);  // whole chunks come after the cut ones
  EXPECT_EQ(ix.free_small_chunks(), (std::vector<uint32_t>{7, 6, 5}));  // the rest of chunk 1
  ix.release({}, {1});
  EXPECT_EQ(*ix.allocate_small_chunk(), 5u);  // a released one waits for recycle()
  ix.recycle();
  EXPECT_EQ(*ix.allocate_small_chunk(), 1u);
  EXPECT_EQ(ix.next_chunk(), 3u);
}

TEST_F(IndexFilesTest, FreeSmallChunksOfUnallocatedChunksAreDroppedAtOpen) {
  { ASSERT_TRUE(open_ok(0)->allocate_chunk().ok()); }  // the file exists
  IndexOptions o = options();
  o.first_chunk_units = 2;  // 2 small chunks per chunk: chunk 0 holds 0 and 1
  auto ix = IndexFiles::open(o, 1, {}, {1, 2, 3});
  ASSERT_TRUE(ix.ok());
  EXPECT_EQ((*ix)->free_small_chunks(), std::vector<uint32_t>{1});
}

TEST_F(IndexFilesTest, AFirstChunkSizeThatDoesNotDivideTheChunkIsRefused) {
  IndexOptions o = options();
  o.first_chunk_units = 3;
  EXPECT_EQ(IndexFiles::open(o, 0, {}).status().code(), StatusCode::kInvalidArgument);
  o.first_chunk_units = 8;
  EXPECT_EQ(IndexFiles::open(o, 0, {}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rokka::storage
