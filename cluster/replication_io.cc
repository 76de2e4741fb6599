#include "cluster/replication_io.h"

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace rokka::cluster::repl {

namespace asio = boost::asio;
namespace {
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
}

Connection::Connection(asio::ip::tcp::socket s) : socket(std::move(s)), timer(socket.get_executor()) {}
Connection::Connection(asio::any_io_executor ex) : socket(ex), timer(ex) {}

asio::awaitable<void> Connection::watchdog() {
  while (!closed) {
    timer.expires_at(deadline);
    co_await timer.async_wait(kNoThrow);
    if (!closed && Clock::now() >= deadline) {
      timed_out = true;
      close();
    }
  }
}

void Connection::close() {
  closed = true;
  boost::system::error_code ignored;
  socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
  timer.cancel();
}

asio::awaitable<Result<FrameHeader>> read_frame(Connection& c, std::vector<std::byte>& payload,
                                                size_t max_data_bytes) {
  std::array<std::byte, kHeaderBytes> header{};
  auto [ec, n] = co_await asio::async_read(c.socket, asio::buffer(header), kNoThrow);
  if (ec) co_return Status::io_error(c.timed_out ? "no frame before the deadline" : "read: " + ec.message());
  auto h = decode_header(header, max_data_bytes);
  if (!h.ok()) co_return h.status();
  payload.resize(h->payload_bytes);
  auto [ec2, n2] = co_await asio::async_read(c.socket, asio::buffer(payload), kNoThrow);
  if (ec2) co_return Status::io_error(c.timed_out ? "no frame before the deadline" : "read: " + ec2.message());
  if (auto s = check_payload(*h, payload); !s.ok()) co_return s;
  co_return *h;
}

asio::awaitable<Status> write_bytes(Connection& c, std::span<const std::byte> frame) {
  auto [ec, n] = co_await asio::async_write(c.socket, asio::buffer(frame.data(), frame.size()), kNoThrow);
  if (ec) co_return Status::io_error("write: " + ec.message());
  co_return Status();
}

asio::awaitable<Status> write_data(Connection& c, const DataHeader& header, std::span<const std::byte> bytes) {
  const auto prefix = encode_data_prefix(header, bytes);
  const std::array<asio::const_buffer, 2> buffers = {asio::buffer(prefix.data(), prefix.size()),
                                                     asio::buffer(bytes.data(), bytes.size())};
  auto [ec, n] = co_await asio::async_write(c.socket, buffers, kNoThrow);
  if (ec) co_return Status::io_error("write: " + ec.message());
  co_return Status();
}

asio::awaitable<Status> await_status(std::function<void(storage::StatusCallback)> op) {
  // Named, not built inside the co_await expression: GCC 12 destroys such temporaries twice
  // (docs/cluster.md, "GCC 12 bug").
  auto initiation = [op = std::move(op)](auto handler) mutable {
    auto ex = asio::get_associated_executor(handler);
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    op([shared, ex](Status s) {
      asio::post(ex, [shared, s = std::move(s)]() mutable { std::move(*shared)(std::move(s)); });
    });
  };
  Status result = co_await asio::async_initiate<decltype(asio::use_awaitable), void(Status)>(std::move(initiation),
                                                                                           asio::use_awaitable);
  co_return result;
}

}  // namespace rokka::cluster::repl
