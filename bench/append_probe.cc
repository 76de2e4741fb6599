// append_probe: what does it cost, in CPU, to put produced batches into the CommitLog's file on
// this machine, by the three ways a writer can (issue 22's "Produce CPU" levers)?
//
//   staged:  copy each batch into a 4 MiB staging buffer, one pwrite per full buffer
//            (what storage/commit_log.cc does today: entries are copied into staging_, written
//            with one pwrite per group commit)
//   pwritev: one pwritev per group of up to 64 batches, straight from where they lie (a request
//            frame), no staging copy
//   mmap:    copy each batch into a shared writable mapping of the file (RocketMQ's way), the
//            pages ahead of the writer faulted in first with MADV_POPULATE_WRITE, 1 MiB at a time
//   direct:  staged as above into an aligned buffer, written with O_DIRECT (no page-cache copy; the
//            device reads the buffer), whole 4 KiB blocks: a group's partial last block is written
//            again with the next group, as a writer bypassing the page cache must (Redpanda's way)
//
// The file is preallocated (fallocate, as log.preallocate=true does) and written once from the
// start, like a new segment; the batches come from a 64 MiB buffer of random bytes, a group being
// `--group` consecutive batches of `--batch` bytes. One JSON line per run: the bytes written, wall
// seconds and CPU seconds (user, system) of this process for the writes alone, then for the
// fdatasync that makes them durable. Prints, asserts nothing.
//
//   build/bench/append_probe DIR staged|pwritev|mmap|direct [--gib 2] [--batch 16384] [--group 16]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older headers lack it
#endif

namespace {

struct Cpu {
  double user = 0, sys = 0;
};

Cpu cpu_now() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return {sec(ru.ru_utime), sec(ru.ru_stime)};
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

int usage() {
  std::fprintf(stderr, "usage: append_probe DIR staged|pwritev|mmap|direct [--gib N] [--batch BYTES] [--group N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string dir = argv[1];
  const std::string_view how = argv[2];
  if (how != "staged" && how != "pwritev" && how != "mmap" && how != "direct") return usage();
  double gib = 2;
  size_t batch = 16384, group = 16;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string_view k = argv[i];
    if (k == "--gib") gib = std::atof(argv[i + 1]);
    else if (k == "--batch") batch = static_cast<size_t>(std::atoll(argv[i + 1]));
    else if (k == "--group") group = static_cast<size_t>(std::atoll(argv[i + 1]));
    else return usage();
  }
  if (gib <= 0 || gib > 64 || batch < 64 || batch > (8 << 20) || group < 1 || group > 64) return usage();
  const size_t total = static_cast<size_t>(gib * (1ull << 30)) / (batch * group) * (batch * group);

  // The "request frames": random bytes, read in a cycle.
  const size_t source_size = size_t{64} << 20;
  std::vector<char> source(source_size + batch);
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= source.size(); i += 8) {
    const uint64_t v = rng();
    std::memcpy(source.data() + i, &v, 8);
  }

  const std::string path = dir + "/append_probe." + std::to_string(::getpid());
  const int direct_flag = how == "direct" ? O_DIRECT : 0;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | direct_flag, 0644);
  if (fd < 0) die("open");
  ::unlink(path.c_str());  // gone when closed
  if (::posix_fallocate(fd, 0, static_cast<off_t>(total)) != 0) die("posix_fallocate");

  char* map = nullptr;
  if (how == "mmap") {
    map = static_cast<char*>(::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    if (map == MAP_FAILED) die("mmap");
  }

  std::vector<char> staging(how == "staged" ? size_t{4} << 20 : 0);
  constexpr size_t kBlock = 4096;
  const size_t direct_size = (size_t{4} << 20) + kBlock;
  char* direct = nullptr;  // aligned staging for O_DIRECT: [block start of direct_at, ...)
  if (how == "direct" && ::posix_memalign(reinterpret_cast<void**>(&direct), kBlock, direct_size) != 0) die("posix_memalign");
  size_t direct_fill = 0;  // bytes in `direct`, from direct_at
  off_t direct_at = 0;     // block-aligned file offset of direct[0]
  // Writes direct[0, fill) rounded up to whole blocks; keeps the partial last block at the front.
  auto flush_direct = [&]() {
    const size_t whole = (direct_fill + kBlock - 1) / kBlock * kBlock;
    if (::pwrite(fd, direct, whole, direct_at) != static_cast<ssize_t>(whole)) die("pwrite(O_DIRECT)");
    const size_t keep_from = direct_fill / kBlock * kBlock;
    std::memmove(direct, direct + keep_from, direct_fill - keep_from);
    direct_fill -= keep_from;
    direct_at += static_cast<off_t>(keep_from);
  };
  size_t staged = 0;
  off_t staged_at = 0;
  std::vector<iovec> iov(group);
  const size_t window = 1 << 20;
  size_t populated = 0;

  const Cpu c0 = cpu_now();
  const double t0 = now_s();
  size_t src = 0;
  for (size_t pos = 0; pos < total; pos += batch * group) {
    for (size_t b = 0; b < group; ++b) {
      const char* data = source.data() + src;
      src = (src + batch) % source_size;
      const size_t at = pos + b * batch;
      if (how == "staged") {
        if (staging.size() - staged < batch) {
          if (::pwrite(fd, staging.data(), staged, staged_at) != static_cast<ssize_t>(staged)) die("pwrite");
          staged_at += static_cast<off_t>(staged);
          staged = 0;
        }
        std::memcpy(staging.data() + staged, data, batch);
        staged += batch;
      } else if (how == "direct") {
        if (direct_size - direct_fill < batch) flush_direct();
        std::memcpy(direct + direct_fill, data, batch);
        direct_fill += batch;
      } else if (how == "pwritev") {
        iov[b] = {const_cast<char*>(data), batch};
      } else {
        // Fault in the pages ahead of the copy, a window at a time (the writer would do it
        // ahead of time; here it is counted with the copy).
        while (populated < at + batch && populated < total) {
          const size_t n = std::min(window, total - populated);
          if (::madvise(map + populated, n, MADV_POPULATE_WRITE) != 0) die("madvise(MADV_POPULATE_WRITE)");
          populated += n;
        }
        std::memcpy(map + at, data, batch);
      }
    }
    if (how == "pwritev") {
      const ssize_t want = static_cast<ssize_t>(batch * group);
      if (::pwritev(fd, iov.data(), static_cast<int>(group), static_cast<off_t>(pos)) != want) die("pwritev");
    } else if (how == "direct") {
      flush_direct();  // one write per group commit, its partial last block again next time
    } else if (how == "staged") {
      // One pwrite per group commit, as the writer does when its queue runs dry.
      if (::pwrite(fd, staging.data(), staged, staged_at) != static_cast<ssize_t>(staged)) die("pwrite");
      staged_at += static_cast<off_t>(staged);
      staged = 0;
    }
  }
  const double t1 = now_s();
  const Cpu c1 = cpu_now();
  if (::fdatasync(fd) != 0) die("fdatasync");
  const double t2 = now_s();
  const Cpu c2 = cpu_now();
  if (map != nullptr) ::munmap(map, total);
  std::free(direct);
  ::close(fd);

  std::printf(
      "{\"how\":\"%.*s\",\"bytes\":%zu,\"batch\":%zu,\"group\":%zu,\"write_s\":%.3f,\"write_user_s\":%.3f,"
      "\"write_sys_s\":%.3f,\"cpu_s_per_gib\":%.3f,\"sync_s\":%.3f,\"sync_cpu_s\":%.3f}\n",
      static_cast<int>(how.size()), how.data(), total, batch, group, t1 - t0, c1.user - c0.user, c1.sys - c0.sys,
      (c1.user - c0.user + c1.sys - c0.sys) / (static_cast<double>(total) / (1ull << 30)), t2 - t1,
      (c2.user - c1.user) + (c2.sys - c1.sys));
  return 0;
}
