// ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69): the consumer group protocol
// (KIP-848). The coordinator keys topics by name; the wire names them by topic id, so
// this handler maps both ways through the TopicRegistry (an owned partition of a topic
// that no longer exists is dropped; so is an assigned one whose topic went meanwhile).
#include "protocol/messages/consumer_group.h"

#include <algorithm>

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/client_regex.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;

std::vector<protocol::ConsumerGroupTopicPartitions> to_wire(const TopicRegistry& topics,
                                                            const coordinator::TopicPartitionsMap& assignment) {
  std::vector<protocol::ConsumerGroupTopicPartitions> out;
  for (const auto& [name, partitions] : assignment) {
    const TopicPtr topic = topics.find(name);
    if (topic == nullptr) continue;
    out.push_back({topic->id, partitions});
  }
  return out;
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_consumer_group_heartbeat(RequestContext& ctx, protocol::ConsumerGroupHeartbeatRequest& req) {
  Services& svc = *ctx.services;
  protocol::ConsumerGroupHeartbeatResponse resp;
  auto fail = [&](ErrorCode e, std::string message) {
    resp.error_code = e;
    resp.error_message = std::move(message);
    return make_response(resp, ctx.version());
  };
  if (!authorized_group(ctx, AclOperation::kRead, req.group_id))
    co_return fail(ErrorCode::kGroupAuthorizationFailed, "Not authorized to read group " + std::string(req.group_id) + ".");
  if (!coordinates(svc, req.group_id))
    co_return fail(ErrorCode::kNotCoordinator, "This broker does not coordinate group " + std::string(req.group_id) + ".");

  coordinator::ConsumerGroupHeartbeatArgs args;
  args.group_id = std::string(req.group_id);
  args.api_version = ctx.version();
  coordinator::ConsumerHeartbeat& hb = args.heartbeat;
  hb.member_id = std::string(req.member_id);
  hb.member_epoch = req.member_epoch;
  if (req.instance_id) hb.instance_id = std::string(*req.instance_id);
  if (req.rack_id) hb.rack_id = std::string(*req.rack_id);
  hb.client_id = std::string(ctx.header.client_id.value_or(""));
  hb.client_host = ctx.client_host;
  hb.rebalance_timeout_ms = req.rebalance_timeout_ms;
  if (req.subscribed_topic_names) {
    std::vector<std::string> names;
    names.reserve(req.subscribed_topic_names->size());
    for (std::string_view name : *req.subscribed_topic_names) {
      // Kafka 4: a member may not subscribe to an existing topic it may not describe.
      if (svc.topics.find(name) != nullptr && !authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, name))
        co_return fail(ErrorCode::kTopicAuthorizationFailed, "Not authorized to describe topic " + std::string(name) + ".");
      names.emplace_back(name);
    }
    hb.subscribed_topics = std::move(names);
  }
  if (req.subscribed_topic_regex) {
    std::string why;
    if (!req.subscribed_topic_regex->empty() && compile_client_regex(*req.subscribed_topic_regex, &why) == nullptr)
      co_return fail(ErrorCode::kInvalidRegularExpression,
                     "SubscribedTopicRegex `" + std::string(*req.subscribed_topic_regex) + "` is not a valid regular expression: " + why + ".");
    hb.subscribed_regex = std::string(*req.subscribed_topic_regex);
  }
  {
    const Authorizer* a = &svc.authorizer;
    // Runs on the coordinator's strand while this request waits for its answer.
    args.may_describe = [a, principal = std::string(ctx.principal), host = std::string(acl_host(ctx))](const std::string& t) {
      return a->check(principal, host, AclOperation::kDescribe, ResourceType::kTopic, t, false);
    };
  }
  if (req.server_assignor) hb.server_assignor = std::string(*req.server_assignor);
  if (req.topic_partitions) {
    coordinator::TopicPartitionsMap owned;
    for (const auto& tp : *req.topic_partitions) {
      const TopicPtr topic = svc.topics.find(tp.topic_id);
      if (topic == nullptr) continue;  // deleted since it was assigned
      auto& list = owned[topic->name];
      list.insert(list.end(), tp.partitions.begin(), tp.partitions.end());
    }
    hb.owned = std::move(owned);
  }

  const std::shared_ptr<CoordinatorPair> coord = svc.coordinators.current();
  coordinator::ConsumerGroupHeartbeatResult r = co_await coord->groups().consumer_group_heartbeat(std::move(args));
  if (r.error != coordinator::GroupError::kNone) co_return fail(to_kafka(r.error), std::move(r.message));
  resp.member_id = r.member_id;
  resp.member_epoch = r.member_epoch;
  resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
  if (r.assignment) resp.assignment = protocol::ConsumerGroupHeartbeatResponse::Assignment{to_wire(svc.topics, *r.assignment)};
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_consumer_group_describe(RequestContext& ctx, protocol::ConsumerGroupDescribeRequest& req) {
  Services& svc = *ctx.services;
  std::vector<std::string> ids;
  for (std::string_view id : req.group_ids)
    if (authorized_group(ctx, AclOperation::kDescribe, id) && coordinates(svc, id)) ids.emplace_back(id);
  const std::shared_ptr<CoordinatorPair> coord = svc.coordinators.current();
  std::vector<coordinator::DescribedConsumerGroup> described =
      co_await coord->groups().consumer_group_describe(std::move(ids));
  auto to_assignment = [&](const coordinator::TopicPartitionsMap& m) {
    protocol::ConsumerGroupDescribeResponse::Assignment a;
    for (const auto& [name, partitions] : m) {
      const TopicPtr topic = svc.topics.find(name);
      if (topic != nullptr) a.topic_partitions.push_back({topic->id, name, partitions});
    }
    return a;
  };
  protocol::ConsumerGroupDescribeResponse resp;
  size_t next = 0;
  for (std::string_view id : req.group_ids) {
    auto& out = resp.groups.emplace_back();
    out.group_id = std::string(id);
    if (next >= described.size() || described[next].group_id != id) {  // not asked of the coordinator
      const bool may = authorized(ctx, AclOperation::kDescribe, ResourceType::kGroup, id, /*log_denial=*/false);
      out.error_code = may ? ErrorCode::kNotCoordinator : ErrorCode::kGroupAuthorizationFailed;
      continue;
    }
    const coordinator::DescribedConsumerGroup& g = described[next++];
    // Kafka 4 (KAFKA-18813): a group is described only to a caller who may describe every
    // topic its members are assigned or targeted.
    const bool topics_visible = std::ranges::all_of(g.members, [&](const coordinator::DescribedConsumerMember& dm) {
      auto visible = [&](const coordinator::TopicPartitionsMap& m) {
        return std::ranges::all_of(m, [&](const auto& tp) {
          return authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, tp.first, false);
        });
      };
      return visible(dm.member.assigned) && visible(dm.target);
    });
    if (!topics_visible) {
      out.error_code = ErrorCode::kTopicAuthorizationFailed;
      out.error_message = "The group has topics the client is not authorized to describe.";
      continue;
    }
    out.error_code = to_kafka(g.error);
    if (!g.message.empty()) out.error_message = g.message;
    out.group_state = g.state;
    out.group_epoch = g.group_epoch;
    out.assignment_epoch = g.assignment_epoch;
    out.assignor_name = g.assignor_name;
    for (const coordinator::DescribedConsumerMember& dm : g.members) {
      const coordinator::ConsumerMember& m = dm.member;
      auto& om = out.members.emplace_back();
      om.member_id = m.member_id;
      om.instance_id = m.instance_id;
      om.rack_id = m.rack_id;
      om.member_epoch = m.member_epoch;
      om.client_id = m.client_id;
      om.client_host = m.client_host;
      om.subscribed_topic_names = m.subscribed_topics;
      om.subscribed_topic_regex = m.subscribed_regex;
      om.assignment = to_assignment(m.assigned);
      om.target_assignment = to_assignment(dm.target);
      om.member_type = m.classic ? 0 : 1;
    }
    if (req.include_authorized_operations)
      out.authorized_operations = authorized_operations(ctx, kAllGroupOperations, ResourceType::kGroup, id);
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
