// The TCP server: one io_context per network thread, acceptors for every
// listener, connections handed out round-robin, graceful shutdown.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "broker/net/connection.h"
#include "broker/services.h"
#include "storage/status.h"

namespace rokka::broker {

class Server {
 public:
  // `dynamic` gives the listeners' dynamic TLS settings and the connection limits.
  Server(const BrokerConfig& config, const DynamicBrokerConfig& dynamic);
  ~Server();

  // Builds every listener's TLS and SASL settings (with this broker's dynamic
  // values) and binds it (port 0 picks a
  // free port); an error if a setting is bad or a bind fails.
  storage::Status listen();
  // The ports actually bound, in listener order (after listen()).
  std::vector<uint16_t> ports() const;

  // Every listener's TLS and SASL settings (Services::listener_security).
  ListenerSecurityTable& security() { return security_; }

  // Starts the network threads and accepting; connections reach `services`, which
  // must outlive stop(). Returns at once.
  void start(Services& services);
  // Stops accepting, lets every connection finish the requests it has read, waits
  // for them (at most `grace`), then stops the threads. Thread-safe; idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(10000));

  // Runs `fn` on a network thread's executor (for broker-wide timers).
  boost::asio::io_context& context(size_t i) { return *contexts_[i % contexts_.size()]; }
  size_t num_threads() const { return contexts_.size(); }

 private:
  // Closes a throttled connection after `delay`, unread.
  static boost::asio::awaitable<void> close_after(boost::asio::ip::tcp::socket socket, std::chrono::milliseconds delay);
  // Accepts on config_.listeners[listener]; each connection takes that listener's
  // current security.
  boost::asio::awaitable<void> accept_loop(boost::asio::ip::tcp::acceptor& acceptor, size_t listener);

  const BrokerConfig& config_;
  const DynamicBrokerConfig& dynamic_;
  Services* services_ = nullptr;  // from start()
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>> work_;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  ListenerSecurityTable security_;  // one per listener (and acceptor)
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_context_{0};
  std::atomic<bool> stopping_{false};
  std::chrono::steady_clock::time_point last_refusal_warning_;  // accept loops (first network thread)

  std::mutex mu_;  // guards live_ and per_address_
  std::unordered_map<Connection*, std::weak_ptr<Connection>> live_;
  std::unordered_map<std::string, int> per_address_;  // live connections by client address
};

}  // namespace rokka::broker
