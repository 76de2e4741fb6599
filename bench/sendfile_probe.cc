// sendfile_probe: would sending Fetch record bytes with sendfile(2) instead of a gathered
// write from the log's mapping save CPU on this machine? Sends a file's bytes over loopback
// TCP the way a Fetch response carries them: 1 MiB responses made of `--range` byte runs
// with `--gap` bytes skipped between them (another partition's entries, entry headers).
//
//   writev:   one gathered write per response, straight from a read-only shared mapping
//             (what broker/net/connection.cc does today)
//   sendfile: one sendfile per run, the response corked (TCP_CORK) so runs share segments
//
// A forked receiver reads everything into a 1 MiB buffer (as a client does). Prints one JSON
// line per run: wall time, sender and receiver CPU. Prints, asserts nothing.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

double cpu_seconds(int who) {
  rusage ru{};
  getrusage(who, &ru);
  auto sec = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

void wait_writable(int fd) {
  pollfd p{fd, POLLOUT, 0};
  poll(&p, 1, -1);
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

// Receives until EOF, then writes its CPU seconds to `report`.
[[noreturn]] void receive(const sockaddr_in& addr, int report) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) die("connect");
  std::vector<char> buf(1 << 20);
  while (read(s, buf.data(), buf.size()) > 0) {
  }
  const double cpu = cpu_seconds(RUSAGE_SELF);
  if (write(report, &cpu, sizeof cpu) != sizeof cpu) die("report");
  _exit(0);
}

// One response's runs as file offsets; sends them with writev (from `map`) or sendfile.
int64_t send_response(int sock, int fd, const char* map, const std::vector<off_t>& runs, size_t range,
                      bool use_sendfile, int64_t& calls) {
  int64_t sent = 0;
  if (!use_sendfile) {
    std::vector<iovec> iov;
    for (off_t o : runs) iov.push_back({const_cast<char*>(map + o), range});
    size_t i = 0;
    while (i < iov.size()) {
      const ssize_t n = writev(sock, iov.data() + i, static_cast<int>(std::min<size_t>(iov.size() - i, IOV_MAX)));
      ++calls;
      if (n < 0) {
        if (errno != EAGAIN) die("writev");
        wait_writable(sock);
        continue;
      }
      sent += n;
      for (size_t left = static_cast<size_t>(n); left > 0;) {
        if (left >= iov[i].iov_len) {
          left -= iov[i++].iov_len;
        } else {
          iov[i].iov_base = static_cast<char*>(iov[i].iov_base) + left;
          iov[i].iov_len -= left;
          left = 0;
        }
      }
    }
    return sent;
  }
  int on = 1, off = 0;
  setsockopt(sock, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
  for (off_t o : runs) {
    for (size_t left = range; left > 0;) {
      const ssize_t n = sendfile(sock, fd, &o, left);
      ++calls;
      if (n < 0) {
        if (errno != EAGAIN) die("sendfile");
        wait_writable(sock);
        continue;
      }
      left -= static_cast<size_t>(n);
      sent += n;
    }
  }
  setsockopt(sock, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  return sent;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || (std::string_view(argv[2]) != "writev" && std::string_view(argv[2]) != "sendfile")) {
    std::fprintf(stderr,
                 "usage: sendfile_probe FILE writev|sendfile RANGE GAP\n"
                 "  sends FILE's bytes in RANGE-byte runs GAP bytes apart, 1 MiB per response\n"
                 "  (e.g. a 1 GiB file read once beforehand, so it is in the page cache)\n");
    return 2;
  }
  const bool use_sendfile = std::string_view(argv[2]) == "sendfile";
  const size_t range = std::strtoul(argv[3], nullptr, 10);
  const size_t gap = std::strtoul(argv[4], nullptr, 10);
  const int fd = open(argv[1], O_RDONLY);
  if (fd < 0) die("open");
  const off_t size = lseek(fd, 0, SEEK_END);
  if (range == 0 || static_cast<off_t>(range) > size) {
    std::fprintf(stderr, "RANGE must be between 1 and the file's size\n");
    return 2;
  }
  const auto* map = static_cast<const char*>(mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0));
  if (map == MAP_FAILED) die("mmap");

  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || listen(listener, 1) != 0)
    die("listen");
  int report[2];
  if (pipe(report) != 0) die("pipe");
  const pid_t child = fork();
  if (child == 0) receive(addr, report[1]);
  const int sock = accept(listener, nullptr, nullptr);
  if (sock < 0) die("accept");
  int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(sock, F_SETFL, O_NONBLOCK);  // as the broker's sockets are

  constexpr size_t kResponse = 1 << 20;
  const double cpu0 = cpu_seconds(RUSAGE_SELF);
  const auto t0 = std::chrono::steady_clock::now();
  int64_t sent = 0, calls = 0;
  std::vector<off_t> runs;
  for (off_t at = 0; at + static_cast<off_t>(range) <= size;) {
    runs.clear();
    for (size_t bytes = 0; bytes < kResponse && at + static_cast<off_t>(range) <= size; bytes += range) {
      runs.push_back(at);
      at += static_cast<off_t>(range + gap);
    }
    sent += send_response(sock, fd, map, runs, range, use_sendfile, calls);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double sender_cpu = cpu_seconds(RUSAGE_SELF) - cpu0;
  shutdown(sock, SHUT_WR);
  double receiver_cpu = 0;
  if (read(report[0], &receiver_cpu, sizeof receiver_cpu) != sizeof receiver_cpu) die("receiver");
  waitpid(child, nullptr, 0);
  const double mb = static_cast<double>(sent) / 1e6;
  std::printf(
      "{\"tool\":\"sendfile_probe\",\"mode\":\"%s\",\"range\":%zu,\"gap\":%zu,\"mb\":%.0f,\"wall_s\":%.3f,"
      "\"mb_per_s\":%.0f,\"sender_cpu_s\":%.3f,\"receiver_cpu_s\":%.3f,\"sender_us_per_mb\":%.0f,\"calls\":%lld}\n",
      argv[2], range, gap, mb, wall, mb / wall, sender_cpu, receiver_cpu, sender_cpu * 1e6 / mb,
      static_cast<long long>(calls));
  return 0;
}
