// A minimal HTTP/1.1 client for tests: one request per connection (Connection: close),
// the status code and the body back. Enough for /metrics, /healthz, /readyz and
// Prometheus's query API; status 0 when the connection failed or the answer did not parse.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <string>

namespace rokka::testutil {

struct HttpReply {
  int status = 0;
  std::string headers;  // the header block, lines as received
  std::string body;
};

// Sends `head` verbatim (the request line and headers, each ending in \r\n, without the
// empty line that ends them) to 127.0.0.1:port and reads until the server closes.
inline HttpReply http_raw(uint16_t port, const std::string& head, int timeout_s = 10) {
  HttpReply reply;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return reply;
  timeval tv{timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return reply;
  }
  const std::string request = head + "Connection: close\r\n\r\n";
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string in;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  const size_t end = in.find("\r\n\r\n");
  if (in.rfind("HTTP/1.", 0) != 0 || end == std::string::npos || in.size() < 12) return reply;
  reply.status = std::stoi(in.substr(9, 3));
  reply.headers = in.substr(0, end);
  reply.body = in.substr(end + 4);
  std::string lower = reply.headers;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("transfer-encoding: chunked") != std::string::npos) {
    std::string body;
    size_t pos = 0;
    while (pos < reply.body.size()) {
      const size_t line_end = reply.body.find("\r\n", pos);
      if (line_end == std::string::npos) break;
      const size_t size = std::stoul(reply.body.substr(pos, line_end - pos), nullptr, 16);
      if (size == 0) break;
      body += reply.body.substr(line_end + 2, size);
      pos = line_end + 2 + size + 2;
    }
    reply.body = std::move(body);
  }
  return reply;
}

inline HttpReply http_get(uint16_t port, const std::string& target, int timeout_s = 10) {
  return http_raw(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n", timeout_s);
}

}  // namespace rokka::testutil
