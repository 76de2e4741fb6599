#include "cluster/http_connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <charconv>

namespace rokka::cluster {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

// A member cut off shows up on an idle watch stream within ~5 s (2 s idle, 3 probes 1 s
// apart) even if no FIN ever arrives: the watch then resumes on another member. With 5 s
// idle and 2 s between probes a cut-off member held a broker's view ~10 s, past twice a
// 4 s lease (tests/cluster/netns/, a machine cut off).
void set_socket_options(tcp::socket& s) {
  boost::system::error_code ignored;
  s.set_option(tcp::no_delay(true), ignored);
  s.set_option(asio::socket_base::keep_alive(true), ignored);
  const int fd = s.native_handle();
  const int idle = 2, interval = 1, count = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

}  // namespace

std::string Endpoint::to_string() const {
  return host.find(':') != std::string::npos ? "[" + host + "]:" + port : host + ":" + port;
}

Result<std::vector<Endpoint>> parse_endpoints(std::string_view list) {
  std::vector<Endpoint> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '/')) item.remove_suffix(1);
    if (item.empty()) continue;
    const std::string bad = "rokka.cluster.etcd.endpoints: bad endpoint '" + std::string(item) + "'";
    if (item.starts_with("https://")) return Status::invalid_argument(bad + " (TLS is not supported)");
    if (item.starts_with("http://")) item.remove_prefix(7);
    Endpoint ep;
    std::string_view port;
    if (item.starts_with("[")) {
      const size_t close = item.find(']');
      if (close == std::string_view::npos || item.substr(close + 1, 1) != ":") return Status::invalid_argument(bad);
      ep.host = std::string(item.substr(1, close - 1));
      port = item.substr(close + 2);
    } else {
      const size_t colon = item.rfind(':');
      if (colon == std::string_view::npos || item.find(':') != colon) return Status::invalid_argument(bad);
      ep.host = std::string(item.substr(0, colon));
      port = item.substr(colon + 1);
    }
    unsigned value = 0;
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ep.host.empty() || ec != std::errc() || p != port.data() + port.size() || value == 0 || value > 65535) {
      return Status::invalid_argument(bad);
    }
    ep.port = std::string(port);
    out.push_back(std::move(ep));
  }
  if (out.empty()) return Status::invalid_argument("rokka.cluster.etcd.endpoints: no endpoint");
  return out;
}

HttpConnection::HttpConnection(asio::any_io_executor ex, Endpoint endpoint, size_t endpoint_index)
    : endpoint_(std::move(endpoint)), endpoint_index_(endpoint_index), stream_(std::move(ex)), buffer_(1 << 20) {}

bool HttpConnection::reusable() {
  if (!connected_ || streaming_ || buffer_.size() != 0 || !stream_.socket().is_open()) return false;
  pollfd p{stream_.socket().native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;  // readable now = the peer closed (or sent what nobody asked for)
}

void HttpConnection::close() {
  boost::system::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
  connected_ = false;
  streaming_ = false;
  buffer_.clear();
  stream_parser_.reset();
}

Status HttpConnection::transport_error(const boost::system::error_code& ec, std::string_view during) const {
  if (ec == beast::error::timeout) {
    return Status::io_error("etcd " + endpoint_.to_string() + ": deadline exceeded during " + std::string(during));
  }
  if (ec == http::error::body_limit || ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    return Status::too_large("etcd " + endpoint_.to_string() + ": answer over the size cap during " +
                             std::string(during));
  }
  return Status::io_error("etcd " + endpoint_.to_string() + ": " + std::string(during) + ": " + ec.message());
}

asio::awaitable<Status> HttpConnection::connect(Clock::time_point deadline) {
  if (connected_ && stream_.socket().is_open()) co_return Status();
  close();
  tcp::resolver resolver(stream_.get_executor());
  auto [rec, results] = co_await resolver.async_resolve(endpoint_.host, endpoint_.port, kNoThrow);
  if (rec) co_return transport_error(rec, "resolve");
  stream_.expires_at(deadline);
  auto [ec, ep] = co_await stream_.async_connect(results, kNoThrow);
  if (ec) {
    close();
    co_return transport_error(ec, "connect");
  }
  set_socket_options(stream_.socket());
  connected_ = true;
  co_return Status();
}

asio::awaitable<Status> HttpConnection::send(std::string_view target, std::string body) {
  http::request<http::string_body> req{http::verb::post, beast::string_view(target.data(), target.size()), 11};
  req.set(http::field::host, endpoint_.to_string());
  req.set(http::field::content_type, "application/json");
  // gRPC metadata "hasleader": a member without a Raft leader refuses the request at once,
  // and cancels a stream (watch) when it loses its leader, instead of serving stale data.
  req.set("Grpc-Metadata-Hasleader", "true");
  req.keep_alive(true);
  req.body() = std::move(body);
  req.prepare_payload();
  auto [ec, n] = co_await http::async_write(stream_, req, kNoThrow);
  if (ec) {
    close();
    co_return transport_error(ec, "write");
  }
  co_return Status();
}

asio::awaitable<PostOutcome> HttpConnection::post(std::string_view target, std::string body,
                                                  Clock::time_point deadline, Clock::time_point connect_deadline,
                                                  size_t max_body) {
  PostOutcome out;
  if (Status s = co_await connect(std::min(deadline, connect_deadline)); !s.ok()) {
    out.answer = std::move(s);
    co_return out;
  }
  stream_.expires_at(deadline);
  if (Status s = co_await send(target, std::move(body)); !s.ok()) {
    out.answer = std::move(s);
    co_return out;
  }
  out.sent = true;
  http::response_parser<http::string_body> parser;
  parser.header_limit(kMaxHeaderBytes);
  parser.body_limit(max_body);
  auto [ec, n] = co_await http::async_read(stream_, buffer_, parser, kNoThrow);
  if (ec) {
    close();
    out.answer = transport_error(ec, "read");
    co_return out;
  }
  stream_.expires_never();
  auto& msg = parser.get();
  if (!msg.keep_alive()) close();
  out.answer = HttpAnswer{msg.result_int(), std::move(msg.body())};
  co_return out;
}

asio::awaitable<Result<unsigned>> HttpConnection::start_stream(std::string_view target, std::string body,
                                                               Clock::time_point deadline,
                                                               Clock::time_point connect_deadline,
                                                               std::string& error_body) {
  if (Status s = co_await connect(std::min(deadline, connect_deadline)); !s.ok()) co_return s;
  stream_.expires_at(deadline);
  if (Status s = co_await send(target, std::move(body)); !s.ok()) co_return s;
  stream_parser_.emplace();
  stream_parser_->header_limit(kMaxHeaderBytes);
  stream_parser_->body_limit(boost::none);  // a stream has no end; each message is capped by its reader
  auto [ec, n] = co_await http::async_read_header(stream_, buffer_, *stream_parser_, kNoThrow);
  if (ec) {
    close();
    co_return transport_error(ec, "stream header");
  }
  const unsigned status = stream_parser_->get().result_int();
  streaming_ = true;
  if (status != 200) {
    char chunk[4096];
    while (error_body.size() < kMaxErrorBodyBytes) {
      auto got = co_await read_stream(std::span<char>(chunk, sizeof chunk), deadline);
      if (!got.ok() || *got == 0) break;
      error_body.append(chunk, *got);
    }
    close();
  }
  co_return status;
}

asio::awaitable<Result<size_t>> HttpConnection::read_stream(std::span<char> into,
                                                            std::optional<Clock::time_point> deadline) {
  if (!stream_parser_) co_return Status::io_error("etcd " + endpoint_.to_string() + ": no stream");
  if (deadline) stream_.expires_at(*deadline);
  else stream_.expires_never();
  while (!stream_parser_->is_done()) {
    auto& body = stream_parser_->get().body();
    body.data = into.data();
    body.size = into.size();
    auto [ec, n] = co_await http::async_read_some(stream_, buffer_, *stream_parser_, kNoThrow);
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
      close();
      co_return transport_error(ec, "stream read");
    }
    const size_t got = into.size() - stream_parser_->get().body().size;
    if (got > 0) co_return got;
  }
  co_return size_t{0};
}

}  // namespace rokka::cluster
