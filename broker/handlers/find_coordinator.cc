#include "protocol/messages/find_coordinator.h"

#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"

namespace rokka::broker {

using protocol::ErrorCode;

// The broker coordinating a group (key type 0) or transactional id (1): this one on a single
// broker, the key's shard's broker in cluster mode (COORDINATOR_NOT_AVAILABLE while it is
// down or the shards are being placed: the client asks again). Share groups (key type 2, v6+, KIP-932) are not served: such a key gets
// INVALID_REQUEST, as does any other type.
boost::asio::awaitable<HandlerResult> handle_find_coordinator(RequestContext& ctx, protocol::FindCoordinatorRequest& req) {
  const Services& svc = *ctx.services;
  auto answer = [&](std::string_view key) {
    protocol::FindCoordinatorResponse::Coordinator c;
    c.key = std::string(key);
    const bool group = req.key_type == 0;
    if ((group || req.key_type == 1) &&
        !authorized(ctx, AclOperation::kDescribe, group ? ResourceType::kGroup : ResourceType::kTransactionalId, key)) {
      c.node_id = -1;
      c.port = -1;
      c.error_code = group ? ErrorCode::kGroupAuthorizationFailed : ErrorCode::kTransactionalIdAuthorizationFailed;
    } else if (req.key_type == 0 || req.key_type == 1) {
      const int32_t broker = coordinator_broker(svc, key);
      if (auto address = broker < 0 ? std::nullopt : broker_address(ctx, broker)) {
        c.node_id = address->id;
        c.host = address->host;
        c.port = address->port;
      } else {
        c.node_id = -1;
        c.port = -1;
        c.error_code = ErrorCode::kCoordinatorNotAvailable;
        c.error_message = "the coordinator is not available";
      }
    } else {
      c.node_id = -1;
      c.port = -1;
      c.error_code = ErrorCode::kInvalidRequest;
      c.error_message = req.key_type == 2 ? "share groups are not supported" : "unknown coordinator key type";
    }
    return c;
  };
  protocol::FindCoordinatorResponse resp;
  if (ctx.version() >= 4) {
    for (auto key : req.coordinator_keys) resp.coordinators.push_back(answer(key));
  } else {
    auto c = answer(req.key);
    resp.error_code = c.error_code;
    resp.error_message = c.error_message;
    resp.node_id = c.node_id;
    resp.host = c.host;
    resp.port = c.port;
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
