// ListGroups, DescribeGroups, DeleteGroups and OffsetDelete: the admin side of groups.
#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group.h"
#include "coordinator/group_service.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_delete.h"

namespace rokka::broker {

namespace {

std::vector<std::byte> to_bytes(const std::string& s) {
  const auto b = protocol::as_bytes(s);
  return {b.begin(), b.end()};
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_list_groups(RequestContext& ctx, protocol::ListGroupsRequest& req) {
  coordinator::ListGroupsArgs args;
  for (auto s : req.states_filter) args.states_filter.emplace_back(s);
  for (auto t : req.types_filter) args.types_filter.emplace_back(t);
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::ListGroupsResult r;  // a broker coordinating nothing lists nothing
  if (coord->serving()) r = co_await coord->groups().list_groups(std::move(args));
  protocol::ListGroupsResponse resp;
  resp.error_code = to_kafka(r.error);
  // DESCRIBE on the cluster lists every group; else the groups the request may DESCRIBE.
  const bool all = authorized_cluster(ctx, AclOperation::kDescribe);
  for (auto& g : r.groups) {
    if (all || authorized_group(ctx, AclOperation::kDescribe, g.group_id))
      resp.groups.push_back({g.group_id, g.protocol_type, g.state, g.group_type});
  }
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_describe_groups(RequestContext& ctx, protocol::DescribeGroupsRequest& req) {
  std::vector<std::string> ids(req.groups.begin(), req.groups.end());
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  std::vector<coordinator::DescribedGroup> groups = co_await coord->groups().describe_groups(std::move(ids));
  protocol::DescribeGroupsResponse resp;
  for (auto& g : groups) {
    auto& out = resp.groups.emplace_back();
    out.group_id = g.group_id;
    if (!authorized_group(ctx, AclOperation::kDescribe, g.group_id)) {
      out.error_code = protocol::ErrorCode::kGroupAuthorizationFailed;
      continue;
    }
    if (!coordinates(*ctx.services, g.group_id)) {  // cluster mode: another broker's group
      out.error_code = protocol::ErrorCode::kNotCoordinator;
      continue;
    }
    out.error_code = to_kafka(g.error);
    if (ctx.version() >= 6 && g.error == coordinator::GroupError::kNone && g.group_type != coordinator::kClassicGroupType) {
      // v6 (KIP-1043): a consumer group (KIP-848) is described by ConsumerGroupDescribe.
      out.error_code = protocol::ErrorCode::kGroupIdNotFound;
      out.error_message = "Group " + g.group_id + " is not a classic group.";
      continue;
    }
    if (ctx.version() >= 6 && g.error == coordinator::GroupError::kNone &&
        g.state == coordinator::group_state_name(coordinator::GroupState::kDead)) {
      // v6 (KIP-1043): a group that does not exist is an error, no longer a Dead group.
      out.error_code = protocol::ErrorCode::kGroupIdNotFound;
      out.error_message = "Group " + g.group_id + " not found.";
      continue;
    }
    out.group_state = g.state;
    out.protocol_type = g.protocol_type;
    out.protocol_data = g.protocol_data;
    for (auto& m : g.members) {
      out.members.push_back({m.member_id, m.group_instance_id, m.client_id, m.client_host, to_bytes(m.metadata),
                             to_bytes(m.assignment)});
    }
    if (req.include_authorized_operations)
      out.authorized_operations = authorized_operations(ctx, kAllGroupOperations, ResourceType::kGroup, g.group_id);
  }
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_delete_groups(RequestContext& ctx, protocol::DeleteGroupsRequest& req) {
  protocol::DeleteGroupsResponse resp;
  std::vector<std::string> ids;
  for (std::string_view id : req.groups_names) {
    if (!authorized_group(ctx, AclOperation::kDelete, id)) {
      resp.results.push_back({std::string(id), protocol::ErrorCode::kGroupAuthorizationFailed});
    } else if (!coordinates(*ctx.services, id)) {
      resp.results.push_back({std::string(id), protocol::ErrorCode::kNotCoordinator});
    } else {
      ids.emplace_back(id);
    }
  }
  if (!ids.empty()) {
    const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
    coordinator::DeleteGroupsResult r = co_await coord->groups().delete_groups(std::move(ids));
    for (auto& g : r.groups) resp.results.push_back({g.group_id, to_kafka(g.error)});
  }
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_offset_delete(RequestContext& ctx, protocol::OffsetDeleteRequest& req) {
  protocol::OffsetDeleteResponse resp;
  if (!authorized_group(ctx, AclOperation::kDelete, req.group_id)) {
    resp.error_code = protocol::ErrorCode::kGroupAuthorizationFailed;
    co_return make_response(resp, ctx.version());
  }
  if (!coordinates(*ctx.services, req.group_id)) {
    resp.error_code = protocol::ErrorCode::kNotCoordinator;
    co_return make_response(resp, ctx.version());
  }
  coordinator::OffsetDeleteArgs args;
  args.group_id = std::string(req.group_id);
  for (const auto& t : req.topics) {
    if (!authorized(ctx, AclOperation::kRead, ResourceType::kTopic, t.name)) {
      auto& out = resp.topics.emplace_back();
      out.name = std::string(t.name);
      for (const auto& p : t.partitions)
        out.partitions.push_back({p.partition_index, protocol::ErrorCode::kTopicAuthorizationFailed});
      continue;
    }
    coordinator::TopicPartitions tp{std::string(t.name), {}};
    for (const auto& p : t.partitions) tp.partitions.push_back(p.partition_index);
    args.topics.push_back(std::move(tp));
  }
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::OffsetDeleteResult r = co_await coord->groups().delete_offsets(std::move(args));
  resp.error_code = to_kafka(r.error);
  for (auto& t : r.topics) {
    auto& out = resp.topics.emplace_back();
    out.name = t.topic;
    for (auto& p : t.partitions) out.partitions.push_back({p.partition, to_kafka(p.error)});
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
