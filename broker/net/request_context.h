// What a handler gets for one request, and what it gives back.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker/error_tally.h"
#include "broker/net/frame_buffer.h"
#include "protocol/codec.h"
#include "protocol/header.h"
#include "storage/status.h"

namespace rokka::broker {

struct Services;
class ConnectionAuth;

// Moved by value into the handler coroutine: it owns the frame, so every
// string_view a decoder returns stays valid for the handler's whole life.
struct RequestContext {
  protocol::RequestHeader header;  // client_id points into `frame`
  FrameBuffer frame;               // the request after its size prefix
  size_t body_offset = 0;
  Services* services = nullptr;
  std::string client_host;  // the peer's address, as Kafka shows it ("/127.0.0.1")
  std::string principal = "User:ANONYMOUS";  // the authenticated client, for the authorizer
  std::string_view listener_name;            // the listener the request came in on (lives as long as the server)
  // The connection's SASL state: only the SaslHandshake and SaslAuthenticate
  // handlers use it, on the connection's thread (they are never dispatched early).
  ConnectionAuth* auth = nullptr;
  // Lets the connection read and start the next request. Handlers whose API is
  // declared Dispatch::kByHandler call it once their order-sensitive work (e.g.
  // submitting appends) is queued; calling it more than once is harmless.
  std::function<void()> dispatched;

  protocol::Bytes body() const { return protocol::Bytes(frame).subspan(body_offset); }
  int16_t version() const { return header.api_version; }
};

struct Response {
  protocol::Writer body;  // may splice in mapped log bytes (zero-copy fetch)
  bool send = true;       // false: no response at all (Produce with acks=0)
  bool close_after = false;  // close the connection once this response is sent (a failed SASL exchange)
  ErrorTally errors;      // its non-zero error codes, for the errors metric
  // A quota's throttle: nothing more is read from the connection for this long (the
  // channel is muted), and unless the client throttles itself (KIP-219's versions:
  // protocol::client_throttles) the response also waits that long, as Kafka does.
  int32_t throttle_ms = 0;
  // Where `body` holds throttle_time_ms, if it has one: a throttle decided after the
  // handler (request_percentage) is written there.
  std::optional<protocol::Writer::Mark> throttle_field;
  // Time the handler spent waiting rather than working (a fetch's long poll, an
  // append's durability), left out of the time request_percentage counts.
  std::chrono::nanoseconds waited{0};
};

// An error Status means "malformed or unserviceable request": the connection is closed.
using HandlerResult = storage::Result<Response>;
using Handler = boost::asio::awaitable<HandlerResult> (*)(RequestContext ctx);

}  // namespace rokka::broker
