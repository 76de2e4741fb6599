// HttpServer: the operator's HTTP endpoints (rokka.http.listeners), on a thread of its
// own (rokka-http) so that it answers from before the store opens (/readyz during
// recovery) and a scrape never runs on a network thread:
//   GET /metrics  the Prometheus text exposition (Metrics::scrape, prometheus-cpp)
//   GET /healthz  200 while the process serves
//   GET /readyz   200 once recovery is done, the coordinators are loaded and the Kafka
//                 listeners accept; else 503 with the reason in the body
// boost.beast parses the requests (8 KiB of headers at most, no body); at most
// kMaxConnections are served at once, and an idle one is closed after 30 s.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "broker/config/config.h"
#include "broker/metrics.h"
#include "storage/status.h"

namespace rokka::broker {

class HttpServer {
 public:
  static constexpr int kMaxConnections = 64;

  HttpServer(std::vector<Listener> listeners, Metrics& metrics);
  ~HttpServer();

  // Binds every listener (port 0 picks a free one) and starts serving. An error if a bind fails.
  storage::Status start();
  // Closes the listeners and every connection, and joins the thread. Idempotent.
  void stop();
  std::vector<uint16_t> ports() const;

 private:
  boost::asio::awaitable<void> accept_loop(boost::asio::ip::tcp::acceptor& acceptor);
  boost::asio::awaitable<void> session(boost::asio::ip::tcp::socket socket);

  std::vector<Listener> listeners_;
  Metrics& metrics_;
  boost::asio::io_context io_{1};
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  std::thread thread_;
  int open_ = 0;  // on the thread
  bool stopped_ = false;
};

}  // namespace rokka::broker
