// A blocking raw Kafka-protocol client for tests: sends frames (well-formed or
// hostile) and reads responses, so tests can assert exact bytes and error codes.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "protocol/header.h"
#include "protocol/message.h"

namespace rokka::testutil {

class WireClient {
 public:
  explicit WireClient(uint16_t port) : socket_(ctx_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    socket_.set_option(boost::asio::ip::tcp::no_delay(true));
  }

  // Sends raw bytes exactly as given (for hostile input).
  void send_raw(const std::vector<std::byte>& bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes)); }
  // Ends what this client sends (a truncated frame is then all the broker gets).
  void shutdown_send() { socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_send); }

  // Builds a request frame: size, header (v1/v2 per api and version), body.
  static std::vector<std::byte> frame(protocol::ApiKey key, int16_t version, int32_t correlation_id,
                                      const std::vector<std::byte>& body, std::string_view client_id = "test") {
    protocol::Writer w;
    auto mark = w.reserve_int32();
    protocol::RequestHeader h;
    h.api_key = static_cast<int16_t>(key);
    h.api_version = version;
    h.correlation_id = correlation_id;
    h.client_id = client_id;
    protocol::encode_request_header(w, h);
    w.write_raw(body);
    w.patch_length(mark);
    return std::move(w).take();
  }

  template <typename Req>
  void send(const Req& req, int16_t version, int32_t correlation_id) {
    send_raw(frame(Req::kApiKey, version, correlation_id, protocol::encode_to_bytes(req, version)));
  }

  // Sends `req` at `version` and reads its response, with a correlation id of its own
  // (nullopt when the connection closed or the frame did not decode).
  template <typename Resp, typename Req>
  std::optional<Resp> call(const Req& req, int16_t version) {
    send(req, version, ++call_id_);
    return receive<Resp>(version, call_id_);
  }

  // Reads one response frame (after the size); nullopt if the connection closed
  // or nothing arrived within `timeout` (generous by default: the machine may be busy).
  std::optional<std::vector<std::byte>> read_frame(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::array<std::byte, 4> size_buf;
    if (!read_exact(boost::asio::buffer(size_buf), timeout)) return std::nullopt;
    const uint32_t size = std::to_integer<uint32_t>(size_buf[0]) << 24 | std::to_integer<uint32_t>(size_buf[1]) << 16 |
                          std::to_integer<uint32_t>(size_buf[2]) << 8 | std::to_integer<uint32_t>(size_buf[3]);
    if (size > (256u << 20)) return std::nullopt;
    std::vector<std::byte> body(size);
    if (!read_exact(boost::asio::buffer(body), timeout)) return std::nullopt;
    return body;
  }

  // Reads a response and decodes it as Resp at `version`; checks the correlation id.
  template <typename Resp>
  std::optional<Resp> receive(int16_t version, int32_t correlation_id, std::vector<std::byte>* raw = nullptr) {
    auto f = read_frame();
    if (!f) return std::nullopt;
    protocol::Reader r(*f);
    int32_t cid = 0;
    if (!protocol::decode_response_header(r, Resp::kApiKey, version, cid) || cid != correlation_id)
      return std::nullopt;
    Resp resp;
    if (!protocol::decode(resp, protocol::Bytes(*f).subspan(r.position()), version)) return std::nullopt;
    if (raw) *raw = std::move(*f);
    return resp;
  }

  // True once the broker has closed the connection (EOF within `timeout`).
  bool closed_by_peer(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::array<std::byte, 1> b;
    boost::system::error_code ec;
    const bool got = read_exact(boost::asio::buffer(b), timeout, &ec);
    return !got && (ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset);
  }

 private:
  bool read_exact(boost::asio::mutable_buffer buf, std::chrono::milliseconds timeout,
                  boost::system::error_code* out_ec = nullptr) {
    boost::system::error_code ec = boost::asio::error::would_block;
    size_t got = 0;
    boost::asio::async_read(socket_, buf, [&](boost::system::error_code e, size_t n) {
      ec = e;
      got = n;
    });
    ctx_.restart();
    ctx_.run_for(timeout);
    if (ec == boost::asio::error::would_block) {
      socket_.cancel();
      ctx_.restart();
      ctx_.run();
      ec = boost::asio::error::timed_out;
    }
    if (out_ec) *out_ec = ec;
    return !ec && got == buf.size();
  }

  boost::asio::io_context ctx_;
  boost::asio::ip::tcp::socket socket_;
  int32_t call_id_ = 1 << 30;  // call()'s correlation ids, far from the ones tests pick
};

}  // namespace rokka::testutil
