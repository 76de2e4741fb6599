#include "storage/mapped_file.h"

#include <vector>

namespace rokka::storage {

Result<std::shared_ptr<MappedFile>> MappedFile::open(FileSystem& fs, const std::filesystem::path& path,
                                                     LogPosition start, int64_t size, bool create,
                                                     bool preallocate) {
  auto file = fs.open(path, create);
  if (!file.ok()) return file.status();
  auto current = (*file)->size();
  if (!current.ok()) return current.status();
  // A short file (created, or cut by someone) grows to `size`; either way the tail
  // reads as zeros, which recovery treats as the end of the log.
  const bool allocate = preallocate && create && *current == 0;
  if (allocate) {
    if (Status s = (*file)->allocate(0, size); !s.ok()) return s;
  } else if (*current < size) {
    if (Status s = (*file)->truncate(size); !s.ok()) return s;
  }
  auto map = (*file)->map(size, false, false);
  if (!map.ok()) return map.status();
  return std::shared_ptr<MappedFile>(new MappedFile(path, start, size, std::move(*file), std::move(*map)));
}

Status MappedFile::write_at(int64_t offset, std::span<const std::byte> bytes) {
  if (!file_) return Status::io_error("write to sealed segment " + path_.string());
  return file_->write_at(offset, bytes);
}

Status MappedFile::set_direct(bool on) {
  if (!file_) return Status::io_error("direct I/O on sealed segment " + path_.string());
  if (on == direct_) return {};
  if (Status s = file_->set_direct(on); !s.ok()) return s;
  direct_ = on;
  return {};
}

Status MappedFile::sync() { return file_ ? file_->sync() : Status{}; }

Status MappedFile::drop_cache(FileSystem& fs, int64_t offset, int64_t len) {
  map_->release(static_cast<size_t>(offset), static_cast<size_t>(len));
  if (file_) return file_->drop_cache(offset, len);
  auto file = fs.open(path_, false);  // sealed: its descriptor was dropped
  if (!file.ok()) return file.status();
  return (*file)->drop_cache(offset, len);
}

Status MappedFile::reopen_file(FileSystem& fs) {
  if (file_) return {};
  auto file = fs.open(path_, false);
  if (!file.ok()) return file.status();
  file_ = std::move(*file);
  return {};
}

Status MappedFile::zero_from(int64_t offset, bool preallocate) {
  if (!file_) return Status::io_error("zero sealed segment " + path_.string());
  if (Status s = set_direct(false); !s.ok()) return s;  // the cut is not block-aligned
  constexpr int64_t kPage = 4096;
  const int64_t page_end = std::min(size_, (offset + kPage - 1) / kPage * kPage);
  if (page_end > offset) {
    std::vector<std::byte> zeros(static_cast<size_t>(page_end - offset));
    if (Status s = file_->write_at(offset, zeros); !s.ok()) return s;
  }
  if (Status s = file_->punch_hole(page_end, size_ - page_end); !s.ok()) return s;
  if (preallocate) {
    if (Status s = file_->allocate(page_end, size_ - page_end); !s.ok()) return s;
  }
  return file_->sync();
}

}  // namespace rokka::storage
