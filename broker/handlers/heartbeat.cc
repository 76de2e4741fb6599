#include "protocol/messages/heartbeat.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

boost::asio::awaitable<HandlerResult> handle_heartbeat(RequestContext& ctx, protocol::HeartbeatRequest& req) {
  if (const auto refused = group_gate(ctx, req.group_id); refused != protocol::ErrorCode::kNone)
    co_return error_response<protocol::HeartbeatResponse>(refused, ctx.version());
  coordinator::HeartbeatArgs args;
  args.group_id = std::string(req.group_id);
  args.generation_id = req.generation_id;
  args.member_id = std::string(req.member_id);
  if (req.group_instance_id) args.group_instance_id = std::string(*req.group_instance_id);
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  const coordinator::GroupError e = co_await coord->groups().heartbeat(std::move(args));
  protocol::HeartbeatResponse resp;
  resp.error_code = to_kafka(e);
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
