// IndexFiles: the shared index files that hold every partition's ConsumeQueue units.
//
// The index space is an array of fixed-size chunks (chunk_units units of 32 bytes);
// chunk c lives in file c / file_chunks at byte (c % file_chunks) * chunk bytes. Some
// chunks are cut into small chunks of first_chunk_units units (small chunk s is piece
// s % per_page of chunk s / per_page, per_page = chunk_units / first_chunk_units): a
// partition's first chunk is a small one, so a partition holding a few batches costs
// 256 bytes of index, not a page. A partition owns a list of chunks (its ChunkDir), so
// the number of files and descriptors depends on the total number of units, never on
// the partition count, and a partition that never received data owns no chunk at all
// (invariant 5).
// Files are sparse, mapped read-write and advised MADV_RANDOM (8 MiB readahead here).
//
// Threading: allocate/release/recycle/sync/take_dirty/reset on the writer thread; unit() from
// any thread for chunks a reader found in a published ChunkDir.
#pragma once

#include <array>
#include <atomic>
#include <filesystem>
#include <memory>
#include <vector>

#include "storage/file_system.h"

namespace rokka::storage {

struct IndexOptions {
  std::filesystem::path dir;
  FileSystem* fs = nullptr;
  uint32_t chunk_units = 128;    // 4 KiB chunks: one page, so an idle partition's chunk costs one page
  uint32_t file_chunks = 32768;  // 128 MiB (sparse) files
  // Units of a small chunk (a partition's first); divides chunk_units. 0: chunk_units
  // (no small chunks).
  uint32_t first_chunk_units = 0;
};

class IndexFiles {
 public:
  static constexpr size_t kMaxFiles = 4096;

  // Maps the files holding chunks [0, next_chunk); kNotFound when one is missing or short.
  // `free_small`: small chunk ids free for reuse (those naming a chunk at or past
  // next_chunk are dropped).
  static Result<std::unique_ptr<IndexFiles>> open(const IndexOptions& options, uint32_t next_chunk,
                                                  std::vector<uint32_t> free_chunks,
                                                  std::vector<uint32_t> free_small = {});
  ~IndexFiles();

  uint32_t chunk_units() const { return options_.chunk_units; }
  uint32_t first_chunk_units() const { return first_units_; }
  std::byte* unit(uint32_t chunk, uint32_t slot) const {
    std::byte* base = bases_[chunk / options_.file_chunks].load(std::memory_order_acquire);
    return base + (static_cast<size_t>(chunk % options_.file_chunks) * options_.chunk_units + slot) * kUnitBytes;
  }
  // Where slot `slot` (< first_chunk_units) of small chunk `id` is: its chunk and slot there.
  struct Place {
    uint32_t chunk, slot;
  };
  Place small_place(uint32_t id, uint32_t slot) const { return {id / per_page_, id % per_page_ * first_units_ + slot}; }
  std::byte* small_unit(uint32_t id, uint32_t slot) const {
    const Place at = small_place(id, slot);
    return unit(at.chunk, at.slot);
  }
  // Writer: a unit slot to fill (marks its file for the next sync).
  std::byte* unit_for_write(uint32_t chunk, uint32_t slot) {
    dirty_[chunk / options_.file_chunks] = true;
    return unit(chunk, slot);
  }
  std::byte* small_unit_for_write(uint32_t id, uint32_t slot) {
    const Place at = small_place(id, slot);
    return unit_for_write(at.chunk, at.slot);
  }

  Result<uint32_t> allocate_chunk();
  // A small chunk: a free one, else the next piece of a chunk cut for small ones.
  Result<uint32_t> allocate_small_chunk();
  // Chunks and small chunks no partition references any more. Readers may still hold an
  // older ChunkDir naming them, so they are reused only after recycle() (the next
  // retention pass).
  void release(const std::vector<uint32_t>& chunks, const std::vector<uint32_t>& small = {});
  void recycle();
  Status sync();       // fdatasync every file written since the last sync
  // The files written since the last sync/take, now counted as synced: the caller
  // fdatasyncs them (any thread; files live as long as this object).
  std::vector<File*> take_dirty();
  void reset();        // forget every allocation (full rebuild from the log)
  uint32_t next_chunk() const { return next_chunk_; }
  std::vector<uint32_t> free_chunks() const;        // free + quarantined (checkpoint)
  std::vector<uint32_t> free_small_chunks() const;  // the same for small chunks
  // Whether `id` names a small chunk of a chunk below next_chunk() (checkpoint checks).
  bool small_chunk_allocated(uint32_t id) const { return id / per_page_ < next_chunk_; }
  size_t file_count() const { return files_.size(); }
  // Any thread: the bytes of the chunks handed out so far (below next_chunk(), free ones
  // included) and of those pre-faulted ahead of them. The store never drops index pages
  // from the page cache.
  int64_t cache_window_bytes() const {
    return static_cast<int64_t>(warm_chunks_.load(std::memory_order_relaxed)) * options_.chunk_units * kUnitBytes;
  }

 private:
  static constexpr size_t kUnitBytes = 32;
  explicit IndexFiles(const IndexOptions& options)
      : options_(options),
        first_units_(options.first_chunk_units == 0 ? options.chunk_units : options.first_chunk_units),
        per_page_(options.chunk_units / first_units_) {}
  int64_t file_bytes() const { return int64_t{options_.file_chunks} * options_.chunk_units * kUnitBytes; }
  Status map_file(size_t index, bool create);

  IndexOptions options_;
  uint32_t first_units_;  // units per small chunk
  uint32_t per_page_;     // small chunks per chunk
  std::array<std::atomic<std::byte*>, kMaxFiles> bases_{};
  std::vector<std::unique_ptr<File>> files_;
  std::vector<std::shared_ptr<Mapping>> maps_;
  std::vector<bool> dirty_ = std::vector<bool>(kMaxFiles, false);
  uint32_t next_chunk_ = 0;
  uint32_t populated_until_ = 0;  // chunks below were pre-faulted in bulk
  std::atomic<uint32_t> warm_chunks_{0};  // max(next_chunk_, populated_until_), for any thread
  std::vector<uint32_t> free_;
  std::vector<uint32_t> quarantine_;
  std::vector<uint32_t> free_small_;  // handed out from the back
  std::vector<uint32_t> quarantine_small_;
};

}  // namespace rokka::storage
