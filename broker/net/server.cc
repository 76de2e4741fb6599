#include "broker/net/server.h"

#include <string>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/config/config_schema.h"
#include "broker/meta/dynamic_config.h"
#include "broker/logging.h"
#include "broker/metrics.h"
#include "broker/net/quota_manager.h"
#include "storage/thread.h"

namespace rokka::broker {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// Rate-limits a warning that a flood could repeat thousands of times a second.
bool once_a_second(std::chrono::steady_clock::time_point& last) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::seconds(1)) return false;
  last = now;
  return true;
}

}  // namespace

Server::Server(const BrokerConfig& config, const DynamicBrokerConfig& dynamic)
    : config_(config), dynamic_(dynamic), security_(config, &dynamic) {
  for (int i = 0; i < config.num_network_threads; ++i) {
    contexts_.push_back(std::make_unique<asio::io_context>(1));
    work_.push_back(std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(
        contexts_.back()->get_executor()));
  }
}

Server::~Server() { stop(std::chrono::milliseconds(0)); }

storage::Status Server::listen() {
  if (auto s = security_.build(); !s.ok()) return s;
  for (const Listener& l : config_.listeners) {
    boost::system::error_code ec;
    asio::ip::address addr = l.host.empty() ? asio::ip::address(asio::ip::address_v4::any())
                                            : asio::ip::make_address(l.host, ec);
    if (ec) {
      // A host name: resolve it once.
      tcp::resolver resolver(*contexts_[0]);
      auto results = resolver.resolve(l.host, std::to_string(l.port), ec);
      if (ec || results.empty()) return storage::Status::invalid_argument("cannot resolve listener host " + l.host);
      addr = results.begin()->endpoint().address();
    }
    auto acceptor = std::make_unique<tcp::acceptor>(*contexts_[0]);
    tcp::endpoint ep(addr, l.port);
    acceptor->open(ep.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(ep, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return storage::Status::io_error("cannot listen on " + l.to_string() + ": " + ec.message());
    acceptors_.push_back(std::move(acceptor));
  }
  return {};
}

std::vector<uint16_t> Server::ports() const {
  std::vector<uint16_t> out;
  for (const auto& a : acceptors_) {
    boost::system::error_code ec;
    out.push_back(a->local_endpoint(ec).port());
  }
  return out;
}

void Server::start(Services& services) {
  services_ = &services;
  for (size_t i = 0; i < acceptors_.size(); ++i) {
    tcp::acceptor& acceptor = *acceptors_[i];
    asio::co_spawn(*contexts_[0], accept_loop(acceptor, i), asio::detached);
    boost::system::error_code ec;
    broker_log().info("listening: address={}:{} listener={} security.protocol={}",
                      acceptor.local_endpoint(ec).address().to_string(), acceptor.local_endpoint(ec).port(),
                      config_.listeners[i].name, config_.listeners[i].security_protocol);
  }
  for (auto& ctx : contexts_) {
    threads_.emplace_back([c = ctx.get(), name = "rokka-net-" + std::to_string(threads_.size())] {
      storage::name_this_thread(name.c_str());
      c->run();
    });
  }
}

asio::awaitable<void> Server::accept_loop(tcp::acceptor& acceptor, size_t listener) {
  ConnectionLimits limits;
  limits.max_request_bytes = config_.socket_request_max_bytes;
  limits.idle_timeout = std::chrono::milliseconds(config_.connections_max_idle_ms);
  limits.read_timeout = std::chrono::milliseconds(config_.request_read_timeout_ms);
  while (!stopping_.load()) {
    asio::io_context& target = *contexts_[next_context_.fetch_add(1) % contexts_.size()];
    auto [ec, socket] = co_await acceptor.async_accept(target, asio::as_tuple(asio::use_awaitable));
    if (ec) {
      if (ec == asio::error::operation_aborted || stopping_.load()) break;
      // EMFILE and friends: back off briefly rather than spin.
      net_log().warn("accept failed: error={}", ec.message());
      asio::steady_timer t(acceptor.get_executor(), std::chrono::milliseconds(100));
      co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
      continue;
    }
    const int64_t max_connections = dynamic_.effective_int(cfg::kMaxConnections, config_);
    if (services_->connections.load(std::memory_order_relaxed) >= max_connections) {
      if (once_a_second(last_refusal_warning_))
        net_log().warn("connection refused: reason=max.connections={} reached", max_connections);
      if (services_->metrics) services_->metrics->connection_refused(/*per_ip=*/false);
      socket.close(ec);
      continue;
    }
    const std::string address = socket.remote_endpoint(ec).address().to_string();
    if (ec) continue;  // already gone
    // Over its IP's connection_creation_rate: as Kafka does, the connection is held
    // unread for the throttle time and then closed, so the client cannot retry at once.
    if (const int32_t throttle = services_->quotas.record_connection(address); throttle > 0) {
      if (once_a_second(last_refusal_warning_))
        net_log().warn("connection throttled: address={} reason=connection_creation_rate exceeded, closing in {} ms",
                       address, throttle);
      if (services_->metrics) services_->metrics->throttled(QuotaManager::Kind::kConnection, throttle);
      asio::co_spawn(target, close_after(std::move(socket), std::chrono::milliseconds(throttle)), asio::detached);
      continue;
    }
    std::shared_ptr<const ListenerSecurity> security = security_.current(listener);
    limits.sasl_max_receive_bytes = security->sasl_max_receive_bytes;
    auto conn = std::make_shared<Connection>(std::move(socket), *services_, limits, std::move(security));
    {
      std::lock_guard lock(mu_);
      int& from_address = per_address_[address];
      const int64_t per_ip = dynamic_.effective_int(cfg::kMaxConnectionsPerIp, config_);
      if (from_address >= per_ip) {
        if (once_a_second(last_refusal_warning_))
          net_log().warn("connection refused: address={} reason=max.connections.per.ip={} reached", address, per_ip);
        if (services_->metrics) services_->metrics->connection_refused(/*per_ip=*/true);
        continue;  // conn's destructor closes the socket
      }
      ++from_address;
      live_.emplace(conn.get(), conn);
    }
    asio::co_spawn(target, [this, conn, address]() -> asio::awaitable<void> {
      try {
        co_await conn->run();
      } catch (const std::exception& e) {
        net_log().error("connection failed: peer={} error={}", conn->peer(), e.what());
      }
      std::lock_guard lock(mu_);
      live_.erase(conn.get());
      if (--per_address_[address] == 0) per_address_.erase(address);
    }, asio::detached);
  }
}

asio::awaitable<void> Server::close_after(tcp::socket socket, std::chrono::milliseconds delay) {
  asio::steady_timer t(socket.get_executor(), delay);
  co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
  boost::system::error_code ec;
  socket.close(ec);
}

void Server::stop(std::chrono::milliseconds grace) {
  if (stopping_.exchange(true)) {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    return;
  }
  // Stop accepting.
  for (auto& acceptor : acceptors_) {
    asio::post(acceptor->get_executor(), [a = acceptor.get()] {
      boost::system::error_code ec;
      a->close(ec);
    });
  }
  // Ask every connection to finish what it has read, on its own thread.
  {
    std::lock_guard lock(mu_);
    for (auto& [raw, weak] : live_) {
      if (auto conn = weak.lock()) {
        asio::post(conn->socket_executor(), [conn] { conn->shutdown(); });
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    {
      std::lock_guard lock(mu_);
      if (live_.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  work_.clear();
  for (auto& ctx : contexts_) ctx->stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

}  // namespace rokka::broker
