#include "storage/file_system.h"

#include "storage/latency_histogram.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace rokka::storage {
namespace {

Status errno_status(const char* what, const std::string& path) {
  return Status::io_error(std::string(what) + " " + path + ": " + std::strerror(errno));
}

class PosixFile final : public File {
 public:
  PosixFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixFile() override { ::close(fd_); }

  Status write_at(int64_t offset, std::span<const std::byte> data) override {
    while (!data.empty()) {
      const ssize_t n = ::pwrite(fd_, data.data(), data.size(), offset);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno_status("pwrite", path_);
      }
      data = data.subspan(static_cast<size_t>(n));
      offset += n;
    }
    return {};
  }

  Status read_at(int64_t offset, std::span<std::byte> out) override {
    while (!out.empty()) {
      const ssize_t n = ::pread(fd_, out.data(), out.size(), offset);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno_status("pread", path_);
      }
      if (n == 0) return Status::io_error("short read " + path_);
      out = out.subspan(static_cast<size_t>(n));
      offset += n;
    }
    return {};
  }

  Status sync() override {
    const auto start = std::chrono::steady_clock::now();
    const int rc = ::fdatasync(fd_);
    fsync_latency().observe(std::chrono::steady_clock::now() - start);
    return rc == 0 ? Status{} : errno_status("fdatasync", path_);
  }

  Status truncate(int64_t size) override {
    return ::ftruncate(fd_, size) == 0 ? Status{} : errno_status("ftruncate", path_);
  }

  Status punch_hole(int64_t offset, int64_t len) override {
    if (len <= 0) return {};
    if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, len) == 0) return {};
    // Filesystems without hole punching: write zeros.
    std::vector<std::byte> zeros(static_cast<size_t>(std::min<int64_t>(len, 1 << 20)));
    for (int64_t done = 0; done < len;) {
      const auto n = std::min<int64_t>(len - done, static_cast<int64_t>(zeros.size()));
      if (Status s = write_at(offset + done, std::span(zeros).first(static_cast<size_t>(n))); !s.ok()) return s;
      done += n;
    }
    return {};
  }

  Status allocate(int64_t offset, int64_t len) override {
    if (len <= 0) return {};
    const int err = ::posix_fallocate(fd_, offset, len);  // returns the error; errno is not set
    if (err == 0) return {};
    return Status::io_error("posix_fallocate " + path_ + ": " + std::strerror(err));
  }

  Status drop_cache(int64_t offset, int64_t len) override {
    const int err = ::posix_fadvise(fd_, offset, len, POSIX_FADV_DONTNEED);
    if (err == 0) return {};
    return Status::io_error("posix_fadvise " + path_ + ": " + std::strerror(err));
  }

  Status set_direct(bool on) override {
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags < 0) return errno_status("fcntl F_GETFL", path_);
    if (::fcntl(fd_, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT) != 0) return errno_status("O_DIRECT", path_);
    return {};
  }

  Result<int64_t> size() override {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return errno_status("fstat", path_);
    return static_cast<int64_t>(st.st_size);
  }

  Result<std::shared_ptr<Mapping>> map(int64_t size, bool writable, bool random) override {
    const int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
    void* p = ::mmap(nullptr, static_cast<size_t>(size), prot, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) return errno_status("mmap", path_);
    if (random) ::madvise(p, static_cast<size_t>(size), MADV_RANDOM);  // readahead is 8 MiB here
    return std::make_shared<Mapping>(static_cast<std::byte*>(p), static_cast<size_t>(size));
  }

 private:
  int fd_;
  std::string path_;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<File>> open(const std::filesystem::path& path, bool create) override {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (fd < 0) {
      if (errno == ENOENT) return Status::not_found(path.string());
      return errno_status("open", path.string());
    }
    return std::unique_ptr<File>(std::make_unique<PosixFile>(fd, path.string()));
  }

  Status remove(const std::filesystem::path& path) override {
    if (::unlink(path.c_str()) == 0 || errno == ENOENT) return {};
    return errno_status("unlink", path.string());
  }

  Status rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    return ::rename(from.c_str(), to.c_str()) == 0 ? Status{} : errno_status("rename", from.string());
  }

  Status sync_dir(const std::filesystem::path& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_status("open dir", dir.string());
    const int rc = ::fsync(fd);
    ::close(fd);
    return rc == 0 ? Status{} : errno_status("fsync dir", dir.string());
  }

  Status create_dirs(const std::filesystem::path& dir) override {
    std::vector<std::filesystem::path> missing;  // deepest first
    for (std::filesystem::path p = dir; !p.empty() && !exists(p); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (::mkdir(it->c_str(), 0755) != 0 && errno != EEXIST) return errno_status("mkdir", it->string());
      const std::filesystem::path parent = it->has_parent_path() ? it->parent_path() : ".";
      if (Status s = sync_dir(parent); !s.ok()) return s;  // the new name survives a power cut
    }
    return {};
  }

  bool exists(const std::filesystem::path& path) override {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
  }

  Result<std::vector<std::string>> list(const std::filesystem::path& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return errno_status("opendir", dir.string());
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
    return names;
  }
};

}  // namespace

LatencyHistogram& fsync_latency() {
  static LatencyHistogram h;
  return h;
}

Mapping::~Mapping() { ::munmap(data_, size_); }

void Mapping::populate(size_t offset, size_t len) const {
#ifdef MADV_POPULATE_WRITE
  if (offset >= size_) return;
  ::madvise(data_ + offset, std::min(len, size_ - offset), MADV_POPULATE_WRITE);
#else
  (void)offset;
  (void)len;
#endif
}

void Mapping::prefetch(size_t offset, size_t len) const {
  if (offset >= size_) return;
  len = std::min(len, size_ - offset);
  constexpr size_t kPage = 4096;
  const size_t begin = offset / kPage * kPage;
  // The kernel reads ahead at most its readahead window per call (force_page_cache_ra):
  // one call per window's worth queues the whole range, in order, without waiting.
  constexpr size_t kStep = 8u << 20;
  for (size_t at = begin; at < offset + len; at += kStep)
    ::madvise(data_ + at, std::min(kStep, offset + len - at), MADV_WILLNEED);
#ifdef MADV_POPULATE_READ
  ::madvise(data_ + begin, offset + len - begin, MADV_POPULATE_READ);
#endif
}

void Mapping::release(size_t offset, size_t len) const {
  constexpr size_t kPage = 4096;  // whole pages inside the range only
  const size_t begin = (offset + kPage - 1) / kPage * kPage;
  const size_t end = std::min(offset + len, size_) / kPage * kPage;
  if (begin < end) ::madvise(data_ + begin, end - begin, MADV_DONTNEED);
}

FileSystem& FileSystem::real() {
  static PosixFileSystem fs;
  return fs;
}

Status write_file_atomic(FileSystem& fs, const std::filesystem::path& path, std::span<const std::byte> data) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    auto file = fs.open(tmp, true);
    if (!file.ok()) return file.status();
    if (Status s = (*file)->truncate(0); !s.ok()) return s;
    if (Status s = (*file)->write_at(0, data); !s.ok()) return s;
    if (Status s = (*file)->sync(); !s.ok()) return s;
  }
  if (Status s = fs.rename(tmp, path); !s.ok()) return s;
  return fs.sync_dir(path.parent_path());
}

Result<std::vector<std::byte>> read_file(FileSystem& fs, const std::filesystem::path& path) {
  auto file = fs.open(path, false);
  if (!file.ok()) return file.status();
  auto size = (*file)->size();
  if (!size.ok()) return size.status();
  std::vector<std::byte> data(static_cast<size_t>(*size));
  if (Status s = (*file)->read_at(0, data); !s.ok()) return s;
  return data;
}

}  // namespace rokka::storage
