// MappedFile: one fixed-size CommitLog segment, named by its 20-digit start position.
//
// Bytes are written with pwrite (from the CommitLog's staging buffer: one syscall per
// group, no page fault per 4 KiB as with stores into a fresh mapping) and read through
// a read-only shared mapping of the whole file, which sees the same page cache.
// Threading: write/sync/zero_from on the writer thread; data() from any thread, for
// bytes the CommitLog has published. A shared_ptr<MappedFile> keeps the mapping alive
// after the file is dropped by retention (readers hold one in LogSlice::hold).
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <span>

#include "storage/file_system.h"
#include "storage/format.h"

namespace rokka::storage {

class MappedFile {
 public:
  // Opens (or creates) and maps the file. A file shorter than `size` grows sparsely;
  // a new one with `preallocate` gets all its blocks at once instead (fallocate: they
  // read as zeros), so later writes allocate nothing (see log.preallocate).
  static Result<std::shared_ptr<MappedFile>> open(FileSystem& fs, const std::filesystem::path& path, LogPosition start,
                                                  int64_t size, bool create, bool preallocate);

  LogPosition start() const { return start_; }
  LogPosition end() const { return {start_.value + size_}; }
  int64_t size() const { return size_; }
  const std::byte* data() const { return map_->data(); }
  const std::filesystem::path& path() const { return path_; }
  bool contains(LogPosition pos) const { return pos >= start_ && pos < end(); }

  Status write_at(int64_t offset, std::span<const std::byte> bytes);
  // Writes through O_DIRECT from now on (File::set_direct's alignment rules apply), or
  // buffered again. zero_from(), close_file() and reopen_file() leave it buffered.
  Status set_direct(bool on);
  bool direct() const { return direct_; }
  Status sync();
  // Makes [offset, size) read as zeros (recovery cuts a torn tail) and syncs; with
  // `preallocate` the range gets its blocks back.
  Status zero_from(int64_t offset, bool preallocate);
  // Drops the descriptor of a sealed, synced segment (the mapping stays): keeps the
  // open-fd count independent of the log size.
  void close_file() {
    file_.reset();
    direct_ = false;
  }
  // Opens a sealed segment's descriptor again (a runtime cut makes it the one written).
  Status reopen_file(FileSystem& fs);
  // Drops [offset, offset+len) from the page cache: unmaps it from the read mapping,
  // then posix_fadvise DONTNEED (reopening a sealed segment's file for the call).
  // For synced bytes only: dirty pages would merely be queued for writeback. Readers
  // of the range stay correct; their next touch reads it back (from disk).
  Status drop_cache(FileSystem& fs, int64_t offset, int64_t len);

  // Broker clock of the newest entry (retention by age); 0 when empty.
  std::atomic<int64_t> last_append_ms{0};

 private:
  MappedFile(std::filesystem::path path, LogPosition start, int64_t size, std::unique_ptr<File> file,
             std::shared_ptr<Mapping> map)
      : path_(std::move(path)), start_(start), size_(size), file_(std::move(file)), map_(std::move(map)) {}

  std::filesystem::path path_;
  LogPosition start_;
  int64_t size_;
  std::unique_ptr<File> file_;
  std::shared_ptr<Mapping> map_;
  bool direct_ = false;
};

}  // namespace rokka::storage
