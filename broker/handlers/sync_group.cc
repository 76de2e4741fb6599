#include "protocol/messages/sync_group.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

// Parked until the leader's assignment is in and durable; each member gets its own.
boost::asio::awaitable<HandlerResult> handle_sync_group(RequestContext& ctx, protocol::SyncGroupRequest& req) {
  if (const auto refused = group_gate(ctx, req.group_id); refused != protocol::ErrorCode::kNone)
    co_return error_response<protocol::SyncGroupResponse>(refused, ctx.version());
  coordinator::SyncGroupArgs args;
  args.group_id = std::string(req.group_id);
  args.generation_id = req.generation_id;
  args.member_id = std::string(req.member_id);
  if (req.group_instance_id) args.group_instance_id = std::string(*req.group_instance_id);
  if (req.protocol_type) args.protocol_type = std::string(*req.protocol_type);
  if (req.protocol_name) args.protocol_name = std::string(*req.protocol_name);
  for (const auto& a : req.assignments)
    args.assignments.push_back({std::string(a.member_id), std::string(protocol::as_string_view(a.assignment))});

  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::SyncGroupResult r = co_await coord->groups().sync_group(std::move(args));

  protocol::SyncGroupResponse resp;
  resp.error_code = to_kafka(r.error);
  resp.protocol_type = r.protocol_type;
  resp.protocol_name = r.protocol_name;
  const auto bytes = protocol::as_bytes(r.assignment);
  resp.assignment.assign(bytes.begin(), bytes.end());
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
