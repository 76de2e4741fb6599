#include "storage/index_file.h"

#include <algorithm>

#include "storage/format.h"

namespace rokka::storage {

Result<std::unique_ptr<IndexFiles>> IndexFiles::open(const IndexOptions& options, uint32_t next_chunk,
                                                     std::vector<uint32_t> free_chunks,
                                                     std::vector<uint32_t> free_small) {
  if (options.chunk_units == 0 || options.file_chunks == 0 || options.first_chunk_units > options.chunk_units ||
      (options.first_chunk_units != 0 && options.chunk_units % options.first_chunk_units != 0))
    return Status::invalid_argument("bad index geometry");
  if (Status s = options.fs->create_dirs(options.dir); !s.ok()) return s;
  std::unique_ptr<IndexFiles> ix(new IndexFiles(options));
  const size_t files = (static_cast<size_t>(next_chunk) + options.file_chunks - 1) / options.file_chunks;
  if (files > kMaxFiles) return Status::corruption("index chunk count out of range");
  for (size_t i = 0; i < files; ++i) {
    const auto path = options.dir / format::segment_name(static_cast<int64_t>(i));
    if (!options.fs->exists(path)) return Status::not_found("index file missing: " + path.string());
    if (Status s = ix->map_file(i, false); !s.ok()) return s;
  }
  // Recovery reads every partition's units next, partition by partition, which is one
  // page fault per chunk in no order of the files (MADV_RANDOM reads a page each):
  // read the chunks in use ahead, in file order, and map them in one call per file.
  const size_t chunk_bytes = size_t{options.chunk_units} * kUnitBytes;
  for (size_t i = 0; i < files; ++i) {
    const size_t chunks = std::min<size_t>(options.file_chunks, next_chunk - i * options.file_chunks);
    ix->maps_[i]->prefetch(0, chunks * chunk_bytes);
  }
  ix->next_chunk_ = next_chunk;
  ix->warm_chunks_.store(next_chunk, std::memory_order_relaxed);
  for (uint32_t c : free_chunks)
    if (c < next_chunk) ix->free_.push_back(c);
  for (uint32_t c : free_small)
    if (ix->small_chunk_allocated(c)) ix->free_small_.push_back(c);
  return ix;
}

IndexFiles::~IndexFiles() = default;

Status IndexFiles::map_file(size_t index, bool create) {
  auto file = options_.fs->open(options_.dir / format::segment_name(static_cast<int64_t>(index)), create);
  if (!file.ok()) return file.status();
  auto size = (*file)->size();
  if (!size.ok()) return size.status();
  if (*size != file_bytes()) {
    if (!create) return Status::not_found("index file has the wrong size");
    if (Status s = (*file)->truncate(file_bytes()); !s.ok()) return s;
  }
  // Units are stored through the writable mapping: a hole there on a full disk would
  // be a SIGBUS at the store, so every block is reserved now, where ENOSPC is a Status.
  // (Also for an existing file: one created sparse by an older version gets its blocks.)
  if (Status s = (*file)->allocate(0, file_bytes()); !s.ok()) return s;
  auto map = (*file)->map(file_bytes(), true, true);
  if (!map.ok()) return map.status();
  bases_[index].store((*map)->data(), std::memory_order_release);
  files_.push_back(std::move(*file));
  maps_.push_back(std::move(*map));
  return {};
}

Result<uint32_t> IndexFiles::allocate_chunk() {
  if (!free_.empty()) {
    const uint32_t c = free_.back();
    free_.pop_back();
    return c;
  }
  const uint32_t c = next_chunk_;
  const size_t file = c / options_.file_chunks;
  if (file >= files_.size()) {
    if (file >= kMaxFiles) return Status::io_error("index space exhausted");
    if (Status s = map_file(file, true); !s.ok()) return s;
    if (Status s = options_.fs->sync_dir(options_.dir); !s.ok()) return s;
  }
  if (c >= populated_until_) {
    // Fresh chunks are touched one page at a time by different partitions; fault
    // the next 1 MiB of them in at once instead (a page fault costs ~10 us here).
    constexpr uint32_t kPopulateBytes = 1 << 20;
    const uint32_t chunk_bytes = options_.chunk_units * static_cast<uint32_t>(kUnitBytes);
    const uint32_t n = std::max<uint32_t>(1, kPopulateBytes / chunk_bytes);
    const uint32_t end = std::min<uint32_t>((c / options_.file_chunks + 1) * options_.file_chunks, c + n);
    maps_[file]->populate(static_cast<size_t>(c % options_.file_chunks) * chunk_bytes,
                          static_cast<size_t>(end - c) * chunk_bytes);
    populated_until_ = end;
  }
  ++next_chunk_;
  warm_chunks_.store(std::max(next_chunk_, populated_until_), std::memory_order_relaxed);
  return c;
}

Result<uint32_t> IndexFiles::allocate_small_chunk() {
  if (per_page_ == 1) return allocate_chunk();  // small chunks are whole chunks
  if (!free_small_.empty()) {
    const uint32_t c = free_small_.back();
    free_small_.pop_back();
    return c;
  }
  auto page = allocate_chunk();
  if (!page.ok()) return page.status();
  const uint64_t first = uint64_t{*page} * per_page_;
  if (first + per_page_ - 1 > UINT32_MAX) {
    release({*page});
    return Status::io_error("index space exhausted");
  }
  // The rest of the chunk, handed out in ascending order (from the back).
  for (uint64_t id = first + per_page_ - 1; id > first; --id) free_small_.push_back(static_cast<uint32_t>(id));
  return static_cast<uint32_t>(first);
}

void IndexFiles::release(const std::vector<uint32_t>& chunks, const std::vector<uint32_t>& small) {
  quarantine_.insert(quarantine_.end(), chunks.begin(), chunks.end());
  auto& small_to = per_page_ == 1 ? quarantine_ : quarantine_small_;
  small_to.insert(small_to.end(), small.begin(), small.end());
}

void IndexFiles::recycle() {
  free_.insert(free_.end(), quarantine_.begin(), quarantine_.end());
  quarantine_.clear();
  free_small_.insert(free_small_.end(), quarantine_small_.begin(), quarantine_small_.end());
  quarantine_small_.clear();
}

Status IndexFiles::sync() {
  for (File* f : take_dirty()) {
    if (Status s = f->sync(); !s.ok()) return s;
  }
  return {};
}

std::vector<File*> IndexFiles::take_dirty() {
  std::vector<File*> out;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (!dirty_[i]) continue;
    out.push_back(files_[i].get());
    dirty_[i] = false;
  }
  return out;
}

void IndexFiles::reset() {
  next_chunk_ = 0;
  warm_chunks_.store(populated_until_, std::memory_order_relaxed);
  free_.clear();
  quarantine_.clear();
  free_small_.clear();
  quarantine_small_.clear();
}

std::vector<uint32_t> IndexFiles::free_chunks() const {
  std::vector<uint32_t> all = free_;
  all.insert(all.end(), quarantine_.begin(), quarantine_.end());
  return all;
}

std::vector<uint32_t> IndexFiles::free_small_chunks() const {
  std::vector<uint32_t> all = free_small_;
  all.insert(all.end(), quarantine_small_.begin(), quarantine_small_.end());
  return all;
}

}  // namespace rokka::storage
