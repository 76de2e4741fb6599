#include "broker/net/connection.h"

#include <algorithm>
#include <cstring>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "broker/net/api_table.h"
#include "broker/logging.h"
#include "broker/metrics.h"
#include "broker/net/quota_manager.h"
#include "broker/services.h"
#include "protocol/api_keys.h"
#include "security/tls_context.h"

namespace rokka::broker {

namespace asio = boost::asio;
using asio::ip::tcp;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// A request in flight, in the order read; its response goes out in that order.
struct Connection::Slot {
  protocol::ApiKey key;
  int16_t version = 0;
  int32_t correlation_id = 0;
  bool dispatched = false;  // the next request may start
  bool done = false;        // the handler finished
  bool fatal = false;       // close the connection instead of answering
  bool close_after = false; // close the connection once this answer is out
  bool raw = false;         // a SaslHandshake v0 exchange's token: only a 4-byte size before it
  std::optional<Response> response;
  // Not sent before this: a quota's throttle, for a client that does not throttle itself.
  std::chrono::steady_clock::time_point send_after{};
  std::chrono::steady_clock::time_point read_at{};   // its frame read whole
  std::chrono::steady_clock::time_point ready_at{};  // its handler done
  RequestMemory::Grant memory;  // the frame's share of queued.max.request.bytes, until handled
};

Connection::Connection(tcp::socket socket, Services& services, ConnectionLimits limits,
                       std::shared_ptr<const ListenerSecurity> security)
    : socket_(std::move(socket)),
      services_(services),
      limits_(limits),
      reader_wake_(socket_.get_executor()),
      writer_wake_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()),
      memory_wake_(socket_.get_executor()),
      last_activity_(std::chrono::steady_clock::now()),
      auth_(std::move(security)) {
  if (auth_.listener().uses_tls())
    tls_ = std::make_unique<asio::ssl::stream<tcp::socket&>>(socket_, *auth_.listener().tls);
  boost::system::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
  client_host_ = ec ? "/unknown" : "/" + ep.address().to_string();
  socket_.set_option(tcp::no_delay(true), ec);
  services_.connections.fetch_add(1, std::memory_order_relaxed);
  if (services_.metrics) services_.metrics->connection_accepted();
}

Connection::~Connection() { services_.connections.fetch_sub(1, std::memory_order_relaxed); }

asio::awaitable<void> Connection::wait(asio::steady_timer& timer) {
  timer.expires_at(asio::steady_timer::time_point::max());
  co_await timer.async_wait(kTuple);
}

asio::awaitable<void> Connection::run() {
  auto self = shared_from_this();
  auto ex = co_await asio::this_coro::executor;
  asio::co_spawn(ex, [self]() { return self->write_loop(); }, asio::detached);
  asio::co_spawn(ex, [self]() { return self->idle_watch(); }, asio::detached);
  if (tls_ && !co_await tls_handshake()) co_return;
  co_await read_loop();
}

// The TLS handshake, within the read timeout (the idle watch closes a stalled one);
// then the client certificate's principal, if it sent one.
asio::awaitable<bool> Connection::tls_handshake() {
  frame_deadline_ = std::chrono::steady_clock::now() + limits_.read_timeout;
  auto [ec] = co_await tls_->async_handshake(asio::ssl::stream_base::server, asio::as_tuple(asio::use_awaitable));
  frame_deadline_.reset();
  if (ec) {
    net_log().info("closing connection: peer={} reason=TLS handshake failed: {}", peer_, ec.message());
    if (services_.metrics) services_.metrics->authentication("SSL", false);
    close("tls handshake failed");
    co_return false;
  }
  auto principal = security::tls_peer_principal(tls_->native_handle(), auth_.listener().principal_mapper);
  if (!principal.ok()) {
    net_log().warn("closing connection: peer={} reason=client certificate: {}", peer_, principal.error().message());
    if (services_.metrics) services_.metrics->authentication("SSL", false);
    close("tls principal");
    co_return false;
  }
  auth_.set_tls_principal(std::move(principal).value());
  if (services_.metrics && !auth_.authenticating()) services_.metrics->authentication("SSL", true);
  last_activity_ = std::chrono::steady_clock::now();
  co_return true;
}

asio::awaitable<Connection::IoResult> Connection::read_some(asio::mutable_buffer buffer) {
  if (tls_) co_return co_await tls_->async_read_some(buffer, kTuple);
  co_return co_await socket_.async_read_some(buffer, kTuple);
}

asio::awaitable<Connection::IoResult> Connection::read_exactly(asio::mutable_buffer buffer) {
  if (tls_) co_return co_await asio::async_read(*tls_, buffer, kTuple);
  co_return co_await asio::async_read(socket_, buffer, kTuple);
}

// Plaintext: one gathered write, record bytes straight from the log's mapping.
// TLS: the buffers are copied into records anyway, so they are gathered into one
// staging buffer at a time (a write per small buffer would make a record each).
asio::awaitable<Connection::IoResult> Connection::write_all(const std::vector<asio::const_buffer>& buffers) {
  if (!tls_) co_return co_await asio::async_write(socket_, buffers, kTuple);
  constexpr size_t kStaging = 256 << 10;
  size_t total = 0;
  auto it = buffers.begin();
  size_t offset = 0;  // into *it
  while (it != buffers.end()) {
    tls_out_.clear();
    while (it != buffers.end() && tls_out_.size() < kStaging) {
      const size_t take = std::min(it->size() - offset, kStaging - tls_out_.size());
      const auto* p = static_cast<const std::byte*>(it->data()) + offset;
      tls_out_.insert(tls_out_.end(), p, p + take);
      offset += take;
      if (offset == it->size()) {
        ++it;
        offset = 0;
      }
    }
    auto [ec, n] = co_await asio::async_write(*tls_, asio::buffer(tls_out_), kTuple);
    total += n;
    if (ec) co_return IoResult{ec, total};
  }
  if (tls_out_.capacity() > kStaging) tls_out_ = {};
  co_return IoResult{boost::system::error_code{}, total};
}

void Connection::shutdown() {
  if (closed_ || !reading_) return;
  reading_ = false;
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_receive, ec);  // the pending read ends; writes go on
  reader_wake_.cancel();
  writer_wake_.cancel();
  memory_wake_.cancel();
}

void Connection::close(const char* reason) {
  if (closed_) return;
  closed_ = true;
  reading_ = false;
  if (services_.metrics) services_.metrics->connection_closed(reason);
  SPDLOG_LOGGER_DEBUG(&net_log(), "connection closed: peer={} reason={}", peer_, reason);
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  reader_wake_.cancel();
  writer_wake_.cancel();
  idle_timer_.cancel();
  memory_wake_.cancel();
}

asio::awaitable<void> Connection::wait_until(asio::steady_timer& timer, std::chrono::steady_clock::time_point t) {
  timer.expires_at(t);
  co_await timer.async_wait(kTuple);
}

asio::awaitable<void> Connection::read_loop() {
  while (reading_ && !closed_) {
    // A throttled client's channel is muted: nothing is read until its throttle ends.
    while (reading_ && !closed_ && std::chrono::steady_clock::now() < muted_until_)
      co_await wait_until(reader_wake_, muted_until_);
    if (!reading_ || closed_) break;
    const bool more = co_await read_request();
    if (!more) break;
  }
  reading_ = false;
  writer_wake_.cancel();  // the writer closes once the owed responses are out
}

// Reads the next frame's 4-byte size, from the read-ahead and, while it holds fewer
// than 4 bytes, from the socket: whatever has arrived, up to the read-ahead's room.
asio::awaitable<bool> Connection::read_size(int32_t& size) {
  while (ahead_end_ - ahead_begin_ < 4) {
    const size_t have = ahead_end_ - ahead_begin_;
    std::memmove(ahead_.data(), ahead_.data() + ahead_begin_, have);
    ahead_begin_ = 0;
    ahead_end_ = have;
    auto [ec, n] = co_await read_some(asio::buffer(ahead_.data() + have, kReadAhead - have));
    if (ec) co_return false;  // EOF or closed
    ahead_end_ += n;
  }
  const std::byte* p = ahead_.data() + ahead_begin_;
  size = static_cast<int32_t>(std::to_integer<uint32_t>(p[0]) << 24 | std::to_integer<uint32_t>(p[1]) << 16 |
                              std::to_integer<uint32_t>(p[2]) << 8 | std::to_integer<uint32_t>(p[3]));
  ahead_begin_ += 4;
  co_return true;
}

asio::awaitable<bool> Connection::read_request() {
  int32_t size = 0;
  const bool have_size = co_await read_size(size);
  if (!have_size) co_return false;
  // Before authentication a frame is held to sasl.server.max.receive.size (Kafka's bound).
  const bool authenticating = auth_.authenticating();
  const int32_t max_bytes = authenticating ? limits_.sasl_max_receive_bytes : limits_.max_request_bytes;
  // A raw token (SaslHandshake v0) may be shorter than any request; never negative or over the bound.
  const bool raw_token = auth_.raw_tokens() && size >= 0 && size < protocol::kMinRequestFrame;
  switch (raw_token ? protocol::FrameSizeCheck::kOk : protocol::check_frame_size(size, max_bytes)) {
    case protocol::FrameSizeCheck::kOk:
      break;
    case protocol::FrameSizeCheck::kTooSmall:
      net_log().warn("closing connection: peer={} reason=frame size {} below the minimum", peer_, size);
      close("bad frame size");
      co_return false;
    case protocol::FrameSizeCheck::kTooLarge:
      net_log().warn("closing connection: peer={} reason=frame size {} exceeds {}={}", peer_, size,
                     authenticating ? "sasl.server.max.receive.size" : "socket.request.max.bytes", max_bytes);
      close("frame too large");
      co_return false;
  }

  RequestMemory::Grant memory;
  RequestContext ctx;
  frame_deadline_ = std::chrono::steady_clock::now() + limits_.read_timeout;
  const bool complete = co_await read_body(ctx.frame, static_cast<size_t>(size), memory);
  frame_deadline_.reset();
  if (!complete) co_return false;
  last_activity_ = std::chrono::steady_clock::now();

  if (auth_.raw_tokens()) co_return answer_raw_token(ctx.frame, std::move(memory));

  protocol::Reader r(ctx.frame);
  if (!protocol::decode_request_header(r, ctx.header)) {
    net_log().warn("closing connection: peer={} reason=malformed request header", peer_);
    close("malformed header");
    co_return false;
  }
  const ApiEntry* api = find_api(ctx.header.api_key);
  if (api == nullptr) {
    net_log().warn("closing connection: peer={} reason=unsupported api key {}", peer_, ctx.header.api_key);
    close("unknown api");
    co_return false;
  }
  const int16_t v = ctx.header.api_version;
  if (api->key != protocol::ApiKey::kApiVersions && (v < api->min_version || v > api->max_version)) {
    net_log().warn("closing connection: peer={} reason=unsupported version {} of {}", peer_, v, api_name(api->key));
    close("unsupported version");
    co_return false;
  }
  if (auto refused = auth_.admit(api->key, std::chrono::steady_clock::now())) {
    net_log().info("closing connection: peer={} principal={} reason={}", peer_, auth_.principal(), *refused);
    close("not authenticated");
    co_return false;
  }
  SPDLOG_LOGGER_DEBUG(&net_log(), "request: peer={} api={} v={} correlation_id={} client_id={} bytes={}", peer_,
                      api_name(api->key), v, ctx.header.correlation_id, ctx.header.client_id.value_or(""), size);

  auto slot = std::make_shared<Slot>();
  slot->key = api->key;
  slot->version = v;
  slot->correlation_id = ctx.header.correlation_id;
  slot->dispatched = api->dispatch == Dispatch::kImmediately;
  slot->memory = std::move(memory);
  slot->read_at = last_activity_;
  pending_.push_back(slot);

  auto self = shared_from_this();
  ctx.body_offset = r.position();
  ctx.services = &services_;
  ctx.client_host = client_host_;
  ctx.principal = auth_.principal();
  ctx.listener_name = auth_.listener().listener_name;
  ctx.auth = &auth_;
  ctx.dispatched = [self, slot] {
    if (!slot->dispatched) {
      slot->dispatched = true;
      self->reader_wake_.cancel();
    }
  };
  asio::co_spawn(socket_.get_executor(), serve(self, slot, api->handle, std::move(ctx)), asio::detached);

  // Start the next request only once this one allows it, and while few are owed.
  while (!closed_ && reading_ && (!slot->dispatched || pending_.size() >= limits_.max_in_flight))
    co_await wait(reader_wake_);
  co_return true;
}

// Waits until the broker-wide request memory grants `bytes`. While it waits nothing
// is read, so the client's sends stall (TCP back-pressure), and the read timeout is
// paused: it starts again, whole, once the bytes are granted.
asio::awaitable<bool> Connection::admit(int64_t bytes, RequestMemory::Grant& grant) {
  std::weak_ptr<Connection> weak = weak_from_this();
  auto wake = [weak] {
    if (auto self = weak.lock()) asio::post(self->socket_.get_executor(), [self] { self->memory_wake_.cancel(); });
  };
  for (bool waited = false;; waited = true) {
    grant = services_.request_memory.acquire_or_notify(bytes, wake);
    if (grant.bytes() > 0) {
      if (waited) frame_deadline_ = std::chrono::steady_clock::now() + limits_.read_timeout;
      co_return true;
    }
    frame_deadline_.reset();
    // The wake is posted to this executor, so it cannot run before this wait starts.
    co_await wait(memory_wake_);
    if (closed_ || !reading_) co_return false;
  }
}

// Reads a `size`-byte frame body into `frame`, which grows only as bytes arrive (at
// most doubling what came so far), each growth first granted by the request memory
// into `memory`: a client that announces a large frame and then sends little or
// nothing holds about as much memory, and as much of the budget, as it sent. The
// frame's first bytes come from the read-ahead; the socket is asked only for the rest.
asio::awaitable<bool> Connection::read_body(FrameBuffer& frame, size_t size, RequestMemory::Grant& memory) {
  constexpr size_t kFirstChunk = 16 << 10;
  static_assert(kFirstChunk >= kReadAhead, "the first chunk takes all the read-ahead holds");
  size_t got = 0;
  while (got < size) {
    size_t want = std::min(size - got, std::max(kFirstChunk, got));
    if (want < size - got) {  // a large frame: take what has already been received, too
      boost::system::error_code ec;
      const size_t ready = tls_ ? 0 : socket_.available(ec);  // already received: safe to allocate for
      if (!ec) want = std::min(size - got, std::max(want, ready));
    }
    RequestMemory::Grant more;
    const bool admitted = co_await admit(static_cast<int64_t>(want), more);
    if (!admitted) co_return false;
    memory.absorb(std::move(more));
    frame.grow(got + want);
    const size_t buffered = std::min(want, ahead_end_ - ahead_begin_);
    std::memcpy(frame.data() + got, ahead_.data() + ahead_begin_, buffered);
    ahead_begin_ += buffered;
    if (buffered < want) {
      auto [read_ec, n] = co_await read_exactly(asio::buffer(frame.data() + got + buffered, want - buffered));
      if (read_ec) co_return false;
    }
    got += want;
  }
  co_return true;
}

static const ErrorTally kNoErrors;  // a failed handler's response has none

// A token of a SaslHandshake v0 exchange (the whole frame): evaluated here, answered with
// the server's token behind a 4-byte size, in order with the answers before it. A failed
// step is not answered: the connection closes (Kafka's raw mode has no error answer).
bool Connection::answer_raw_token(const FrameBuffer& frame, RequestMemory::Grant memory) {
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto result = auth_.authenticate(protocol::Bytes(frame), now_ms, std::chrono::steady_clock::now());
  Metrics* metrics = services_.metrics;
  if (result.error_code != protocol::ErrorCode::kNone) {
    net_log().info("SASL authentication failed: peer={} listener={} handshake=v0 error={} reason={}", peer_,
                   auth_.listener().listener_name, result.error_message.value_or(""), result.detail);
    if (metrics) metrics->authentication(auth_.mechanism(), false);
    close("authentication failed");
    return false;
  }
  if (!auth_.authenticating() && metrics) metrics->authentication(auth_.mechanism(), true);
  auto slot = std::make_shared<Slot>();
  slot->key = protocol::ApiKey::kSaslAuthenticate;  // for the metrics only: no Kafka header is written
  slot->raw = true;
  slot->dispatched = slot->done = true;
  slot->read_at = slot->ready_at = last_activity_;
  memory.reset();
  Response response;
  response.body.write_raw(
      protocol::Bytes(reinterpret_cast<const std::byte*>(result.auth_bytes.data()), result.auth_bytes.size()));
  slot->response.emplace(std::move(response));
  pending_.push_back(std::move(slot));
  writer_wake_.cancel();
  return true;
}

// Runs one handler; `self` keeps the connection alive until the handler is done.
asio::awaitable<void> Connection::serve(std::shared_ptr<Connection> self, std::shared_ptr<Slot> slot,
                                        Handler handle, RequestContext ctx) {
  try {
    const auto start = std::chrono::steady_clock::now();
    if (Metrics* m = self->services_.metrics) m->request_queued(static_cast<int16_t>(slot->key), start - slot->read_at);
    // The client, for request_percentage: copied only while such a quota is set.
    QuotaManager* quotas = &self->services_.quotas;
    const bool request_quota = quotas && quotas->request_quota_set();
    const std::string client_id(request_quota ? ctx.header.client_id.value_or("") : "");
    const std::string principal(request_quota ? ctx.principal : "");
    HandlerResult result = co_await handle(std::move(ctx));
    const auto took = std::chrono::steady_clock::now() - start;
    if (Metrics* m = self->services_.metrics)
      m->request(static_cast<int16_t>(slot->key), slot->version, took, result.ok() ? result->errors : kNoErrors);
    if (result.ok() && request_quota) {
      const int32_t request_throttle = quotas->record_request_time(
          quota_user(principal), client_id, std::max<std::chrono::nanoseconds>(took - result->waited, {}));
      if (request_throttle > result->throttle_ms) {
        if (Metrics* m = self->services_.metrics) m->throttled(QuotaManager::Kind::kRequest, request_throttle);
        result->throttle_ms = request_throttle;
        if (result->throttle_field) result->body.patch_int32(*result->throttle_field, request_throttle);
      }
    }
    self->complete(slot, std::move(result));
  } catch (const std::exception& ex) {
    // The catch-all at the top of a request (STYLE §c): log, and close this connection.
    net_log().error("handler failed: peer={} api={} error={}", self->peer_, api_name(slot->key), ex.what());
    self->complete(slot, storage::Status::invalid_argument(ex.what()));
  }
}

void Connection::complete(const std::shared_ptr<Slot>& slot, HandlerResult result) {
  slot->ready_at = std::chrono::steady_clock::now();
  slot->memory.reset();
  slot->done = true;
  slot->dispatched = true;
  if (!result.ok()) {
    net_log().warn("closing connection: peer={} api={} v={} reason={}", peer_, api_name(slot->key), slot->version,
                   result.status().to_string());
    slot->fatal = true;
  } else {
    slot->response.emplace(std::move(result).value());
    if (const int32_t ms = slot->response->throttle_ms; ms > 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
      muted_until_ = std::max(muted_until_, until);
      if (!protocol::client_throttles(slot->key, slot->version)) slot->send_after = until;
    }
    if (slot->response->close_after) {
      slot->close_after = true;
      reading_ = false;  // nothing more is read; the writer closes once this answer is out
    }
  }
  reader_wake_.cancel();
  writer_wake_.cancel();
}

asio::awaitable<void> Connection::write_loop() {
  std::vector<asio::const_buffer> buffers;
  std::vector<std::array<std::byte, protocol::kMaxResponsePrefix>> headers;  // size + response header
  std::vector<std::shared_ptr<Slot>> batch;
  while (!closed_) {
    if (pending_.empty() || !pending_.front()->done) {
      if (pending_.empty() && !reading_) {
        close("done");
        co_return;
      }
      co_await wait(writer_wake_);
      continue;
    }
    if (const auto hold = pending_.front()->send_after; hold > std::chrono::steady_clock::now()) {
      co_await wait_until(writer_wake_, hold);  // a throttled response, for a client that does not wait itself
      continue;
    }
    // Every response that is ready at the front goes out in one gathered write.
    batch.clear();
    bool close_after = false;
    const auto now = std::chrono::steady_clock::now();
    while (!pending_.empty() && pending_.front()->done && !pending_.front()->fatal && !close_after &&
           pending_.front()->send_after <= now) {
      close_after = pending_.front()->close_after;
      batch.push_back(std::move(pending_.front()));
      pending_.pop_front();
    }
    const bool fatal_next = !pending_.empty() && pending_.front()->fatal;
    reader_wake_.cancel();  // room for more requests

    buffers.clear();
    headers.clear();
    headers.reserve(batch.size());
    for (const auto& slot : batch) {
      if (!slot->response->send) continue;
      const protocol::Writer& body = slot->response->body;
      auto& h = headers.emplace_back();
      const size_t n = slot->raw ? protocol::write_size_prefix(h, body.size())
                                 : protocol::write_response_prefix(h, slot->key, slot->version, slot->correlation_id,
                                                                   body.size());
      buffers.emplace_back(h.data(), n);
      for (protocol::Bytes chunk : body.chunks()) buffers.emplace_back(chunk.data(), chunk.size());
    }
    if (!buffers.empty()) {
      write_started_ = std::chrono::steady_clock::now();
      auto [ec, n] = co_await write_all(buffers);
      write_started_.reset();
      if (ec) {
        close("write failed");
        co_return;
      }
      last_activity_ = std::chrono::steady_clock::now();
      if (Metrics* m = services_.metrics)
        for (const auto& slot : batch)
          if (slot->response->send) m->response_sent(static_cast<int16_t>(slot->key), last_activity_ - slot->ready_at);
    }
    if (fatal_next) {
      close("bad request");
      co_return;
    }
    if (close_after) {
      close("authentication failed");
      co_return;
    }
  }
}

std::chrono::milliseconds Connection::watch_tick() const {
  const auto shortest = std::min(limits_.idle_timeout, limits_.read_timeout);
  return std::clamp<std::chrono::milliseconds>(shortest / 4, std::chrono::milliseconds(100), std::chrono::seconds(30));
}

// Closes a connection that is idle (nothing owed, no complete request for
// connections.max.idle.ms), whose current frame is not complete within the read
// timeout (a trickling or stalled sender), or whose response write has not finished
// within the idle time (a client that stopped reading).
asio::awaitable<void> Connection::idle_watch() {
  const auto tick = watch_tick();
  while (!closed_) {
    idle_timer_.expires_after(tick);
    co_await idle_timer_.async_wait(kTuple);
    if (closed_) break;
    const auto now = std::chrono::steady_clock::now();
    if (frame_deadline_ && now > *frame_deadline_) {
      net_log().warn("closing connection: peer={} reason=request not received within {} ms", peer_,
                     limits_.read_timeout.count());
      close("request read timeout");
    } else if (write_started_ && now - *write_started_ > limits_.idle_timeout) {
      net_log().warn("closing connection: peer={} reason=client stopped reading responses", peer_);
      close("write stalled");
    } else if (pending_.empty() && !frame_deadline_ && now - last_activity_ > limits_.idle_timeout) {
      SPDLOG_LOGGER_DEBUG(&net_log(), "closing idle connection: peer={}", peer_);
      close("idle");
    }
  }
}

}  // namespace rokka::broker
