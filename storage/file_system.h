// FileSystem / File / Mapping: the only way storage touches disk, so tests can inject
// faults (tests/testutil/faulty_file_system.h). FileSystem::real() is POSIX.
// Every method returns a Status; none throws. Thread-safe as far as the OS is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "storage/status.h"

namespace rokka::storage {

// A memory mapping of (a prefix of) a file. It stays valid after its File is
// closed and until the last shared_ptr to it is dropped.
class Mapping {
 public:
  Mapping(std::byte* data, size_t size) : data_(data), size_(size) {}
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  // Pre-faults [offset, offset+len) writable in one call (MADV_POPULATE_WRITE), far
  // cheaper than one page fault per page on this VM. Best effort.
  void populate(size_t offset, size_t len) const;
  // Reads [offset, offset+len) ahead in large requests (MADV_WILLNEED, whatever the
  // mapping's MADV_RANDOM says) and maps it readable in one call (MADV_POPULATE_READ):
  // for a range about to be read whole in an order of its own. Best effort.
  void prefetch(size_t offset, size_t len) const;
  // Unmaps the pages of [offset, offset+len) from this process (MADV_DONTNEED), so the
  // page cache may drop them; the next read maps them again (from disk if dropped).
  void release(size_t offset, size_t len) const;

 private:
  std::byte* data_;
  size_t size_;
};

class File {
 public:
  virtual ~File() = default;
  virtual Status write_at(int64_t offset, std::span<const std::byte> data) = 0;
  // Reads exactly out.size() bytes or fails.
  virtual Status read_at(int64_t offset, std::span<std::byte> out) = 0;
  virtual Status sync() = 0;  // fdatasync: written data (also via a shared mapping) durable
  virtual Status truncate(int64_t size) = 0;
  // [offset, offset+len) reads as zeros afterwards (offset, len multiples of 4096).
  virtual Status punch_hole(int64_t offset, int64_t len) = 0;
  // Reserves disk blocks for [offset, offset+len) (posix_fallocate): later writes
  // there, through a writable mapping too, cannot run out of space. A store into a
  // mapped hole on a full disk raises SIGBUS instead of returning ENOSPC.
  virtual Status allocate(int64_t offset, int64_t len) = 0;
  // Asks the kernel to drop [offset, offset+len) from the page cache (posix_fadvise
  // DONTNEED): clean pages not mapped by any process go; dirty ones are queued for
  // writeback and stay. Never changes the file's contents.
  virtual Status drop_cache(int64_t offset, int64_t len) = 0;
  virtual Result<int64_t> size() = 0;
  // Maps [0, size). writable: PROT_READ|PROT_WRITE, else read-only. random: MADV_RANDOM.
  virtual Result<std::shared_ptr<Mapping>> map(int64_t size, bool writable, bool random) = 0;
  // Direct I/O on or off (O_DIRECT): writes then bypass the page cache, and each must
  // start at a 4096-byte file offset, from 4096-aligned memory, in whole 4096-byte
  // blocks. Files that cannot (some file systems, the test doubles) say so and stay buffered.
  virtual Status set_direct(bool /*on*/) { return Status::invalid_argument("direct I/O not supported"); }
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Opens read-write; creates the file when `create` is set.
  virtual Result<std::unique_ptr<File>> open(const std::filesystem::path& path, bool create) = 0;
  virtual Status remove(const std::filesystem::path& path) = 0;
  virtual Status rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  virtual Status sync_dir(const std::filesystem::path& dir) = 0;
  // Creates the missing directories of `dir`, durably (each new one's parent is fsync'd).
  virtual Status create_dirs(const std::filesystem::path& dir) = 0;
  virtual bool exists(const std::filesystem::path& path) = 0;
  // File names (not paths) in `dir`.
  virtual Result<std::vector<std::string>> list(const std::filesystem::path& dir) = 0;

  static FileSystem& real();
};

// Writes `data` to `path` durably and atomically: tmp file, fsync, rename, fsync dir.
Status write_file_atomic(FileSystem& fs, const std::filesystem::path& path, std::span<const std::byte> data);
// The whole file, or kNotFound / kIoError.
Result<std::vector<std::byte>> read_file(FileSystem& fs, const std::filesystem::path& path);

}  // namespace rokka::storage
