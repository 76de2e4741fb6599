#include "protocol/messages/leave_group.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

// v0-2 name one member; v3+ a batch by member id or group.instance.id.
boost::asio::awaitable<HandlerResult> handle_leave_group(RequestContext& ctx, protocol::LeaveGroupRequest& req) {
  const int16_t v = ctx.version();
  if (const auto refused = group_gate(ctx, req.group_id); refused != protocol::ErrorCode::kNone)
    co_return error_response<protocol::LeaveGroupResponse>(refused, v);
  coordinator::LeaveGroupArgs args;
  args.group_id = std::string(req.group_id);
  if (v < 3) {
    args.members.push_back({std::string(req.member_id), std::nullopt, std::nullopt});
  } else {
    for (const auto& m : req.members) {
      coordinator::MemberIdentity id;
      id.member_id = std::string(m.member_id);
      if (m.group_instance_id) id.group_instance_id = std::string(*m.group_instance_id);
      if (m.reason) id.reason = std::string(*m.reason);
      args.members.push_back(std::move(id));
    }
  }
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::LeaveGroupResult r = co_await coord->groups().leave_group(std::move(args));
  protocol::LeaveGroupResponse resp;
  resp.error_code = to_kafka(r.error);
  if (v < 3) {
    if (r.error == coordinator::GroupError::kNone && !r.members.empty())
      resp.error_code = to_kafka(r.members.front().error);
  } else {
    for (auto& m : r.members) resp.members.push_back({m.member_id, m.group_instance_id, to_kafka(m.error)});
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
