#include "protocol/messages/join_group.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

// Parked by the coordinator until the join phase ends (the rebalance), then answered.
boost::asio::awaitable<HandlerResult> handle_join_group(RequestContext& ctx, protocol::JoinGroupRequest& req) {
  const int16_t v = ctx.version();
  if (const auto refused = group_gate(ctx, req.group_id); refused != protocol::ErrorCode::kNone) {
    protocol::JoinGroupResponse denied;
    denied.error_code = refused;
    denied.generation_id = -1;
    if (v < 7) denied.protocol_name = std::string();  // not nullable before v7
    denied.member_id = std::string(req.member_id);
    co_return make_response(denied, v);
  }
  coordinator::JoinGroupArgs args;
  args.group_id = std::string(req.group_id);
  args.member_id = std::string(req.member_id);
  if (req.group_instance_id) args.group_instance_id = std::string(*req.group_instance_id);
  args.protocol_type = std::string(req.protocol_type);
  for (const auto& p : req.protocols)
    args.protocols.push_back({std::string(p.name), std::string(protocol::as_string_view(p.metadata))});
  args.session_timeout_ms = req.session_timeout_ms;
  args.rebalance_timeout_ms = v >= 1 ? req.rebalance_timeout_ms : -1;
  args.client_id = std::string(ctx.header.client_id.value_or(""));
  args.client_host = ctx.client_host;
  if (req.reason) args.reason = std::string(*req.reason);
  args.api_version = v;

  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::JoinGroupResult r = co_await coord->groups().join_group(std::move(args));

  protocol::JoinGroupResponse resp;
  resp.error_code = to_kafka(r.error);
  resp.generation_id = r.generation_id;
  resp.protocol_type = r.protocol_type;
  resp.protocol_name = r.protocol_name;
  if (v < 7 && !resp.protocol_name) resp.protocol_name = std::string();  // not nullable before v7
  resp.leader = r.leader;
  resp.skip_assignment = r.skip_assignment;
  resp.member_id = r.member_id;
  for (auto& m : r.members) {
    auto& out = resp.members.emplace_back();
    out.member_id = std::move(m.member_id);
    out.group_instance_id = std::move(m.group_instance_id);
    const auto bytes = protocol::as_bytes(m.metadata);
    out.metadata.assign(bytes.begin(), bytes.end());
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
