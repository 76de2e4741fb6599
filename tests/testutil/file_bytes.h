// Whole files as bytes, for storage tests that damage what the store wrote, and byte-for-byte
// comparisons of the files replicas write.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace rokka::testutil {

// The file's bytes; empty if it cannot be read.
inline std::vector<std::byte> file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamsize size = in.tellg();
  if (size <= 0) return {};
  std::vector<std::byte> out(static_cast<size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(out.data()), size);
  out.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return out;
}

// Replaces the file's contents with `bytes`.
inline void write_file_bytes(const std::filesystem::path& p, const std::vector<std::byte>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Whether two files hold the same bytes (and length), reading only what either holds as data:
// a range that is a hole in both (SEEK_DATA/SEEK_HOLE) reads as zeros in both. The store's index
// files are large and sparse (a 128 MiB unit file holding a few KiB), and a test polling replicas
// for equality would otherwise read all of them each time. False if either cannot be read.
inline bool same_file_bytes(const std::filesystem::path& a, const std::filesystem::path& b) {
  const int fa = ::open(a.c_str(), O_RDONLY | O_CLOEXEC);
  const int fb = fa < 0 ? -1 : ::open(b.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat sa {}, sb {};
  bool same = fa >= 0 && fb >= 0 && ::fstat(fa, &sa) == 0 && ::fstat(fb, &sb) == 0 && sa.st_size == sb.st_size;
  const off_t size = same ? sa.st_size : 0;
  // The start of the next data of `fd` at or after `at` (size past the last).
  auto next_data = [size](int fd, off_t at) {
    const off_t d = ::lseek(fd, at, SEEK_DATA);
    return d < 0 ? size : d;  // ENXIO: no data at or after `at`
  };
  auto data_end = [size](int fd, off_t at) {
    const off_t h = ::lseek(fd, at, SEEK_HOLE);
    return h < 0 ? size : h;
  };
  std::vector<char> ba(1 << 20), bb(1 << 20);
  off_t at = 0;
  while (same && at < size) {
    // The next range either file holds as data; before it both are holes (zeros).
    const off_t da = next_data(fa, at), db = next_data(fb, at);
    const off_t start = std::min(da, db);
    if (start >= size) break;
    const off_t end = std::max(start == da ? data_end(fa, start) : start, start == db ? data_end(fb, start) : start);
    for (off_t pos = start; same && pos < end;) {
      const size_t n = static_cast<size_t>(std::min<off_t>(end - pos, static_cast<off_t>(ba.size())));
      same = ::pread(fa, ba.data(), n, pos) == static_cast<ssize_t>(n) &&
             ::pread(fb, bb.data(), n, pos) == static_cast<ssize_t>(n) && std::memcmp(ba.data(), bb.data(), n) == 0;
      pos += static_cast<off_t>(n);
    }
    at = end;
  }
  if (fa >= 0) ::close(fa);
  if (fb >= 0) ::close(fb);
  return same;
}

}  // namespace rokka::testutil
