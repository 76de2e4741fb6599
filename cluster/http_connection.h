// One HTTP/1.1 keep-alive connection to one etcd endpoint (Boost.Beast over asio
// coroutines): a POST with a whole-body answer, or a POST whose answer is a stream read
// as it comes (watch). Every operation runs against a deadline on the steady clock
// (beast::tcp_stream's timer: when it passes, the socket closes and the operation fails).
// Answers are network input: header and body sizes are capped before anything is kept.
//
// Threading: one coroutine at a time per connection, on the executor it was made with.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace rokka::cluster {

using Clock = std::chrono::steady_clock;
using storage::Result;
using storage::Status;

struct Endpoint {
  std::string host;  // a name or an address; IPv6 without brackets
  std::string port;
  std::string to_string() const;  // host:port ([v6]:port)
};

// "http://127.0.0.1:2379,http://10.0.0.2:2379" (the scheme may be left out). Only plain
// http: the gateway's TLS is not implemented (docs/cluster.md). Empty items are ignored.
Result<std::vector<Endpoint>> parse_endpoints(std::string_view list);

struct HttpAnswer {
  unsigned status = 0;
  std::string body;
};

// A request that failed on the way: `sent` says the whole request went out, so the server
// may have applied it (a mutation must not be retried blindly then).
struct PostOutcome {
  Result<HttpAnswer> answer = Status::io_error("not sent");
  bool sent = false;
};

class HttpConnection {
 public:
  static constexpr size_t kMaxHeaderBytes = 16 * 1024;
  static constexpr size_t kMaxErrorBodyBytes = 64 * 1024;

  HttpConnection(boost::asio::any_io_executor ex, Endpoint endpoint, size_t endpoint_index);

  const Endpoint& endpoint() const { return endpoint_; }
  size_t endpoint_index() const { return endpoint_index_; }

  // Open, not mid-stream, and nothing (such as the peer's FIN) waiting to be read.
  bool reusable();

  // Connects if needed (each connection attempt gives up at `connect_deadline` or `deadline`,
  // the earlier), sends `body` to `target`, reads an answer of at most `max_body` bytes.
  // A body over the cap fails with kTooLarge and closes the connection.
  boost::asio::awaitable<PostOutcome> post(std::string_view target, std::string body, Clock::time_point deadline,
                                           Clock::time_point connect_deadline, size_t max_body);

  // Sends the request and reads the answer's header (until `deadline`). A non-200 answer's
  // body (at most kMaxErrorBodyBytes) lands in `error_body`; the stream is then unusable.
  boost::asio::awaitable<Result<unsigned>> start_stream(std::string_view target, std::string body,
                                                        Clock::time_point deadline, Clock::time_point connect_deadline,
                                                        std::string& error_body);
  // The next body bytes of the stream (at least one), waiting until `deadline` (none: no
  // limit). 0 bytes = the server ended the answer.
  boost::asio::awaitable<Result<size_t>> read_stream(std::span<char> into, std::optional<Clock::time_point> deadline);

  void close();

 private:
  boost::asio::awaitable<Status> connect(Clock::time_point deadline);
  boost::asio::awaitable<Status> send(std::string_view target, std::string body);
  Status transport_error(const boost::system::error_code& ec, std::string_view during) const;

  Endpoint endpoint_;
  size_t endpoint_index_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  bool connected_ = false;
  bool streaming_ = false;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> stream_parser_;
};

}  // namespace rokka::cluster
