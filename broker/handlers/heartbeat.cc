#include "protocol/messages/heartbeat.h"

#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

boost::asio::awaitable<HandlerResult> handle_heartbeat(RequestContext ctx) {
  protocol::HeartbeatRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("HeartbeatRequest");
  const bool may_read = authorized_group(ctx, AclOperation::kRead, req.group_id);
  if (!may_read || !coordinates(*ctx.services, req.group_id)) {
    protocol::HeartbeatResponse denied;
    denied.error_code = code(may_read ? protocol::ErrorCode::kNotCoordinator : protocol::ErrorCode::kGroupAuthorizationFailed);
    co_return make_response(denied, ctx.version());
  }
  coordinator::HeartbeatArgs args;
  args.group_id = std::string(req.group_id);
  args.generation_id = req.generation_id;
  args.member_id = std::string(req.member_id);
  if (req.group_instance_id) args.group_instance_id = std::string(*req.group_instance_id);
  const coordinator::GroupError e = co_await ctx.services->groups->heartbeat(std::move(args));
  protocol::HeartbeatResponse resp;
  resp.error_code = code(to_kafka(e));
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
