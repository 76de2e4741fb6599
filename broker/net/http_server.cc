#include "broker/net/http_server.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include "broker/logging.h"
#include "storage/thread.h"

namespace rokka::broker {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr auto kIdle = std::chrono::seconds(30);
constexpr uint32_t kHeaderLimit = 8 << 10;

}  // namespace

HttpServer::HttpServer(std::vector<Listener> listeners, Metrics& metrics)
    : listeners_(std::move(listeners)), metrics_(metrics) {}

HttpServer::~HttpServer() { stop(); }

storage::Status HttpServer::start() {
  for (const Listener& l : listeners_) {
    boost::system::error_code ec;
    asio::ip::address addr = l.host.empty() ? asio::ip::address(asio::ip::address_v4::any())
                                            : asio::ip::make_address(l.host, ec);
    if (ec) {
      tcp::resolver resolver(io_);
      auto results = resolver.resolve(l.host, std::to_string(l.port), ec);
      if (ec || results.empty()) return storage::Status::invalid_argument("cannot resolve http listener host " + l.host);
      addr = results.begin()->endpoint().address();
    }
    auto acceptor = std::make_unique<tcp::acceptor>(io_);
    tcp::endpoint ep(addr, l.port);
    acceptor->open(ep.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(ep, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      return storage::Status::io_error("cannot listen on http " + l.host + ":" + std::to_string(l.port) + ": " +
                                       ec.message());
    broker_log().info("http serving: address={}:{} paths=/metrics,/healthz,/readyz",
                      acceptor->local_endpoint(ec).address().to_string(), acceptor->local_endpoint(ec).port());
    acceptors_.push_back(std::move(acceptor));
  }
  for (auto& a : acceptors_) asio::co_spawn(io_, accept_loop(*a), asio::detached);
  thread_ = std::thread([this] {
    storage::name_this_thread("rokka-http");
    io_.run();
  });
  return {};
}

void HttpServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

std::vector<uint16_t> HttpServer::ports() const {
  std::vector<uint16_t> out;
  for (const auto& a : acceptors_) {
    boost::system::error_code ec;
    out.push_back(a->local_endpoint(ec).port());
  }
  return out;
}

// GCC 12 reports asio's coroutine frames as mismatched new/delete (a false positive: asio
// pairs its own operator new/delete; see broker/handlers/produce.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
asio::awaitable<void> HttpServer::accept_loop(tcp::acceptor& acceptor) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(kTuple);
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      net_log().warn("http accept failed: error={}", ec.message());
      asio::steady_timer t(io_, std::chrono::milliseconds(100));
      co_await t.async_wait(kTuple);
      continue;
    }
    if (open_ >= kMaxConnections) continue;  // the socket closes here
    ++open_;
    asio::co_spawn(io_, session(std::move(socket)), [this](std::exception_ptr e) {
      --open_;
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        net_log().warn("http connection failed: error={}", ex.what());
      }
    });
  }
}

asio::awaitable<void> HttpServer::session(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer(kHeaderLimit);
  for (;;) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(kHeaderLimit);
    stream.expires_after(kIdle);
    auto [read_ec, n] = co_await http::async_read(stream, buffer, parser, kTuple);
    if (read_ec) break;  // closed, idle, too large, malformed, or with a body
    const auto& req = parser.get();
    http::response<http::string_body> res;
    res.version(req.version());
    res.set(http::field::server, "rokka");
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      res.result(http::status::method_not_allowed);
      res.set(http::field::allow, "GET, HEAD");
      res.body() = "only GET and HEAD\n";
    } else if (path == "/metrics") {
      res.result(http::status::ok);
      res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      res.body() = co_await metrics_.scrape();
    } else if (path == "/healthz") {
      res.result(http::status::ok);
      res.body() = "ok\n";
    } else if (path == "/readyz") {
      const std::string reason = co_await metrics_.not_ready_reason();
      res.result(reason.empty() ? http::status::ok : http::status::service_unavailable);
      res.body() = reason.empty() ? "ready\n" : "not ready: " + reason + "\n";
    } else {
      res.result(http::status::not_found);
      res.body() = "not found; try /metrics, /healthz or /readyz\n";
    }
    res.keep_alive(req.keep_alive());
    res.prepare_payload();
    if (req.method() == http::verb::head) res.body().clear();
    auto [write_ec, written] = co_await http::async_write(stream, res, kTuple);
    if (write_ec || !res.keep_alive()) break;
  }
  boost::system::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
}

#pragma GCC diagnostic pop

}  // namespace rokka::broker
