// Pieces the replication server and client share: reading and writing frames on a socket, a
// watchdog that closes a connection whose peer went quiet, and awaiting a ReplicatedLog callback
// (which may run on another thread) on the caller's executor.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "cluster/replication_protocol.h"
#include "storage/types.h"

namespace rokka::cluster::repl {

using Clock = std::chrono::steady_clock;

// A connection: its socket, and a deadline after which the watchdog closes it (pushed forward
// by every frame received). Lives on one executor.
struct Connection {
  explicit Connection(boost::asio::ip::tcp::socket s);
  explicit Connection(boost::asio::any_io_executor ex);

  // Runs until close(): closes the socket once Clock::now() passes `deadline`.
  boost::asio::awaitable<void> watchdog();
  void close();
  // A later deadline needs nothing (the watchdog re-arms when it wakes); an earlier one wakes it.
  void set_deadline(Clock::time_point at) {
    const bool earlier = at < deadline;
    deadline = at;
    if (earlier) timer.cancel();
  }

  boost::asio::ip::tcp::socket socket;
  boost::asio::steady_timer timer;
  Clock::time_point deadline = Clock::time_point::max();
  bool closed = false;
  bool timed_out = false;
};

// One whole frame: header checked (a DATA's size against max_data_bytes, before the payload is
// allocated), payload read into `payload` and its CRC checked.
boost::asio::awaitable<Result<FrameHeader>> read_frame(Connection& c, std::vector<std::byte>& payload,
                                                       size_t max_data_bytes);
boost::asio::awaitable<Status> write_bytes(Connection& c, std::span<const std::byte> frame);
boost::asio::awaitable<Status> write_data(Connection& c, const DataHeader& header, std::span<const std::byte> bytes);

// Starts `op` with a callback and returns its Status once the callback ran, on this coroutine's
// executor (the callback may run on any thread, or inline). Pass a named std::function, not a
// lambda converted inside the co_await expression (the GCC 12 bug of docs/cluster.md).
boost::asio::awaitable<Status> await_status(std::function<void(storage::StatusCallback)> op);

}  // namespace rokka::cluster::repl
