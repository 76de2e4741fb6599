#include "bench/wiregen/connection.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace rokka::bench::wiregen {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

Connection::~Connection() { close(); }

void Connection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Connection::connect(const std::string& host, int port, int timeout_ms) {
  close();
  peer_ = host + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); rc != 0) {
    return fail(std::string("resolve: ") + gai_strerror(rc));
  }
  std::string last = "no address";
  for (addrinfo* a = res; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc < 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, timeout_ms);
      int err = 0;
      socklen_t len = sizeof err;
      if (rc == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) {
        rc = 0;
      } else {
        last = rc == 0 ? "connect timed out" : std::string("connect: ") + std::strerror(err ? err : errno);
        rc = -1;
      }
    } else if (rc < 0) {
      last = std::string("connect: ") + std::strerror(errno);
    }
    if (rc == 0) {
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  freeaddrinfo(res);
  if (fd_ < 0) return fail(last);
  last_read_ns_ = monotonic_ns();
  return true;
}

std::vector<std::byte> Connection::frame(protocol::ApiKey key, int16_t version, int32_t correlation_id,
                                         const protocol::Writer& body_writer) {
  protocol::Writer w;
  const auto mark = w.reserve_int32();
  encode_header(w, key, version, correlation_id);
  w.write_raw(body_writer.owned());
  w.patch_length(mark);
  return std::move(w).take();
}

void Connection::encode_header(protocol::Writer& w, protocol::ApiKey key, int16_t version, int32_t correlation_id) {
  protocol::RequestHeader h;
  h.api_key = static_cast<int16_t>(key);
  h.api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = "wiregen";
  protocol::encode_request_header(w, h);
}

void Connection::queue(std::vector<std::byte> frame) {
  queued_total_ += frame.size();
  out_.push_back(std::move(frame));
}

std::vector<std::byte> Connection::take_spare() {
  if (spare_.empty()) return {};
  std::vector<std::byte> b = std::move(spare_.back());
  spare_.pop_back();
  return b;
}

bool Connection::pump(bool readable, bool writable) {
  if (fd_ < 0) return fail("not connected");
  if (!error_.empty()) return false;
  while (writable && !out_.empty()) {
    const auto& f = out_.front();
    const ssize_t n = ::send(fd_, f.data() + out_pos_, f.size() - out_pos_, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      return fail(std::string("send: ") + std::strerror(errno));
    }
    out_pos_ += static_cast<size_t>(n);
    written_total_ += static_cast<uint64_t>(n);
    if (out_pos_ == f.size()) {
      if (spare_.size() < kMaxSpare) spare_.push_back(std::move(out_.front()));
      out_.pop_front();
      out_pos_ = 0;
    }
  }
  if (!readable) return true;
  for (;;) {
    // in_ is [0, capacity) of which [in_pos_, in_end_) holds unread bytes: no zero-filling per read.
    if (in_pos_ == in_end_) in_pos_ = in_end_ = 0;
    if (in_.size() - in_end_ < kReadChunk) {
      if (in_pos_ > 0) {
        std::memmove(in_.data(), in_.data() + in_pos_, in_end_ - in_pos_);
        in_end_ -= in_pos_;
        in_pos_ = 0;
      }
      if (in_.size() - in_end_ < kReadChunk) in_.resize(std::max(in_.size() * 2, in_end_ + kReadChunk));
    }
    const size_t room = in_.size() - in_end_;
    const ssize_t n = ::recv(fd_, in_.data() + in_end_, room, 0);
    if (n <= 0) {
      if (n == 0) return fail("connection closed by the broker");
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      if (errno == EINTR) continue;
      return fail(std::string("recv: ") + std::strerror(errno));
    }
    in_end_ += static_cast<size_t>(n);
    last_read_ns_ = monotonic_ns();
    if (static_cast<size_t>(n) < room) return true;
  }
}

std::optional<std::vector<std::byte>> Connection::next_frame() {
  const size_t have = in_end_ - in_pos_;
  if (have < 4) return std::nullopt;
  const std::byte* p = in_.data() + in_pos_;
  const uint32_t size = std::to_integer<uint32_t>(p[0]) << 24 | std::to_integer<uint32_t>(p[1]) << 16 |
                        std::to_integer<uint32_t>(p[2]) << 8 | std::to_integer<uint32_t>(p[3]);
  if (size > kMaxFrame || size < 4) {
    fail("response frame of " + std::to_string(size) + " bytes");
    return std::nullopt;
  }
  if (have < 4 + static_cast<size_t>(size)) return std::nullopt;
  std::vector<std::byte> f(p + 4, p + 4 + size);
  in_pos_ += 4 + size;
  return f;
}

std::optional<std::vector<std::byte>> Connection::wait_frame(int timeout_ms) {
  const uint64_t deadline = monotonic_ns() + static_cast<uint64_t>(timeout_ms) * 1'000'000ull;
  for (;;) {
    if (auto f = next_frame()) return f;
    if (!error_.empty()) return std::nullopt;
    const uint64_t now = monotonic_ns();
    if (now >= deadline) {
      fail("no response within " + std::to_string(timeout_ms) + " ms");
      return std::nullopt;
    }
    pollfd p{fd_, static_cast<short>(POLLIN | (want_write() ? POLLOUT : 0)), 0};
    const int rc = ::poll(&p, 1, static_cast<int>((deadline - now) / 1'000'000ull) + 1);
    if (rc < 0 && errno != EINTR) {
      fail(std::string("poll: ") + std::strerror(errno));
      return std::nullopt;
    }
    if (rc > 0 && !pump((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0, (p.revents & POLLOUT) != 0)) {
      return std::nullopt;
    }
  }
}

}  // namespace rokka::bench::wiregen
