// SaslHandshake and SaslAuthenticate: the connection's SASL exchange
// (broker/net/connection_auth.h holds the state machine and Kafka's rules).
#include <chrono>

#include "broker/net/connection_auth.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/logging.h"
#include "broker/metrics.h"
#include "broker/meta/scram_credentials.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"

namespace rokka::broker {

boost::asio::awaitable<HandlerResult> handle_sasl_handshake(RequestContext& ctx, protocol::SaslHandshakeRequest& req) {
  const Services& svc = *ctx.services;
  // A SCRAM exchange reads the store at client-first (no store: every SCRAM user is unknown).
  const auto result = ctx.auth->handshake(req.mechanism, ctx.version(),
                                          svc.scram.lookup_function());
  if (result.close) {
    std::string enabled;
    for (const auto& m : result.mechanisms) enabled += (enabled.empty() ? "" : ",") + m;
    net_log().info("SASL handshake refused: peer={} mechanism={} v={} enabled={}", ctx.client_host, req.mechanism,
                   ctx.version(), enabled);
  }
  protocol::SaslHandshakeResponse resp;
  resp.error_code = result.error_code;
  resp.mechanisms = result.mechanisms;
  Response r = make_response(resp, ctx.version());
  r.close_after = result.close;
  co_return r;
}

boost::asio::awaitable<HandlerResult> handle_sasl_authenticate(RequestContext& ctx, protocol::SaslAuthenticateRequest& req) {
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto result = ctx.auth->authenticate(req.auth_bytes, now_ms, std::chrono::steady_clock::now());
  Metrics* metrics = ctx.services->metrics;
  if (result.error_code != protocol::ErrorCode::kNone) {
    net_log().info("SASL authentication failed: peer={} listener={} error={} reason={}", ctx.client_host,
                   ctx.listener_name, result.error_message.value_or(""), result.detail);
    if (metrics) metrics->authentication(ctx.auth->mechanism(), false);
  } else if (!ctx.auth->authenticating()) {
    SPDLOG_LOGGER_DEBUG(&net_log(), "SASL authenticated: peer={} principal={}", ctx.client_host, ctx.auth->principal());
    if (metrics) metrics->authentication(ctx.auth->mechanism(), true);
  }
  protocol::SaslAuthenticateResponse resp;
  resp.error_code = result.error_code;
  resp.error_message = std::move(result.error_message);
  const auto* p = reinterpret_cast<const std::byte*>(result.auth_bytes.data());
  resp.auth_bytes.assign(p, p + result.auth_bytes.size());
  resp.session_lifetime_ms = result.session_lifetime_ms;
  Response r = make_response(resp, ctx.version());
  r.close_after = result.close;
  co_return r;
}

}  // namespace rokka::broker
