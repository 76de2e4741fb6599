// One client connection: a read loop that frames and dispatches requests, handler
// coroutines that may run concurrently, and a write loop that sends responses in
// request order with scatter-gather writes (record bytes are not copied).
//
// Threading: everything here runs on the connection's io_context (one thread);
// no strand is needed. Handlers may hop to other threads and come back.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/net/connection_auth.h"
#include "broker/net/listener_security.h"
#include "broker/net/request_context.h"
#include "broker/net/request_memory.h"

namespace rokka::broker {

struct ConnectionLimits {
  int32_t max_request_bytes = 100 << 20;          // socket.request.max.bytes
  std::chrono::milliseconds idle_timeout{600000};  // connections.max.idle.ms
  std::chrono::milliseconds read_timeout{30000};   // rokka.request.read.timeout.ms: size prefix -> last byte
  size_t max_in_flight = 64;                       // requests read but not yet answered
  int32_t sasl_max_receive_bytes = 524288;          // sasl.server.max.receive.size: frames before authentication
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::ip::tcp::socket socket, Services& services, ConnectionLimits limits,
             std::shared_ptr<const ListenerSecurity> security);
  ~Connection();

  // Serves the connection until it closes. Keep the Connection alive for the
  // duration (co_spawn with a shared_ptr captured).
  boost::asio::awaitable<void> run();

  // Graceful stop: read no more requests, send the responses still owed, close.
  // Call on the connection's executor.
  void shutdown();

  const std::string& peer() const { return peer_; }
  boost::asio::any_io_executor socket_executor() { return socket_.get_executor(); }

 private:
  struct Slot;

  using IoResult = std::tuple<boost::system::error_code, size_t>;
  // The socket, or the TLS stream over it: every read and write goes through these.
  boost::asio::awaitable<IoResult> read_some(boost::asio::mutable_buffer buffer);
  boost::asio::awaitable<IoResult> read_exactly(boost::asio::mutable_buffer buffer);
  boost::asio::awaitable<IoResult> write_all(const std::vector<boost::asio::const_buffer>& buffers);
  boost::asio::awaitable<bool> tls_handshake();

  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> idle_watch();
  boost::asio::awaitable<bool> read_request();  // false: stop reading
  boost::asio::awaitable<bool> read_size(int32_t& size);
  boost::asio::awaitable<bool> admit(int64_t bytes, RequestMemory::Grant& grant);
  boost::asio::awaitable<bool> read_body(FrameBuffer& frame, size_t size, RequestMemory::Grant& memory);
  bool answer_raw_token(const FrameBuffer& frame, RequestMemory::Grant memory);  // false: closed
  std::chrono::milliseconds watch_tick() const;
  static boost::asio::awaitable<void> serve(std::shared_ptr<Connection> self, std::shared_ptr<Slot> slot,
                                            Handler handle, RequestContext ctx);
  void complete(const std::shared_ptr<Slot>& slot, HandlerResult result);
  void close(const char* reason);
  static boost::asio::awaitable<void> wait(boost::asio::steady_timer& timer);
  static boost::asio::awaitable<void> wait_until(boost::asio::steady_timer& timer,
                                                 std::chrono::steady_clock::time_point t);

  boost::asio::ip::tcp::socket socket_;
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;  // SSL, SASL_SSL
  std::vector<std::byte> tls_out_;  // responses gathered into TLS records
  Services& services_;
  ConnectionLimits limits_;
  std::string peer_;
  std::string client_host_;
  std::deque<std::shared_ptr<Slot>> pending_;  // in request order
  boost::asio::steady_timer reader_wake_;
  boost::asio::steady_timer writer_wake_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer memory_wake_;  // woken when request memory is released
  std::chrono::steady_clock::time_point last_activity_;
  // Set while a frame body is being read / a response write is under way: the
  // idle watch closes a connection whose frame or write takes too long.
  std::optional<std::chrono::steady_clock::time_point> frame_deadline_;
  std::optional<std::chrono::steady_clock::time_point> write_started_;
  // A quota's throttle: no request is read before this (Kafka mutes the channel).
  std::chrono::steady_clock::time_point muted_until_{};
  bool reading_ = true;
  bool closed_ = false;
  // Bytes received but not yet framed. Each read asks the socket for up to this many,
  // so a small request (a fetch, a heartbeat, a small produce) arrives whole with its
  // size in one system call, and the head of a larger one comes with its size; the
  // rest of a larger frame is read straight into its own buffer. Fixed, so an idle
  // connection holds no more than this.
  static constexpr size_t kReadAhead = 1024;
  std::array<std::byte, kReadAhead> ahead_;
  size_t ahead_begin_ = 0, ahead_end_ = 0;
  ConnectionAuth auth_;  // the principal, and the SASL exchange on a SASL listener
};

}  // namespace rokka::broker
