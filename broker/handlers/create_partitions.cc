#include "protocol/messages/create_partitions.h"

#include <algorithm>

#include "broker/net/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/link/cluster_link.h"
#include "broker/handlers/mutation_quota.h"

namespace rokka::broker {

using protocol::CreatePartitionsRequest;
using protocol::CreatePartitionsResponse;
using protocol::ErrorCode;

// Grows topics to `count` partitions; assignments, when given, must place each new
// partition on this broker alone (single broker), on one live broker (cluster mode,
// replication factor 1), or on exactly the members of the replication group holding the
// topic (cluster mode, replication factor > 1: the new partitions go to that group).
boost::asio::awaitable<HandlerResult> handle_create_partitions(RequestContext& ctx, CreatePartitionsRequest& req) {
  Services& svc = *ctx.services;

  CreatePartitionsResponse resp;
  std::vector<size_t> todo;
  std::vector<std::vector<int32_t>> assignments;  // per entry of todo
  for (const auto& t : req.topics) {
    auto& out = resp.results.emplace_back();
    out.name = std::string(t.name);
    if (!authorized(ctx, AclOperation::kAlter, ResourceType::kTopic, t.name)) {
      out.error_code = ErrorCode::kTopicAuthorizationFailed;
      out.error_message = "not authorized to alter the topic";
      continue;
    }
    const TopicPtr topic = svc.topics.find(t.name);
    const auto have = topic ? static_cast<int32_t>(topic->partitions.size()) : 0;
    std::vector<int32_t> assignment;  // each new partition's broker, when given
    const bool in_group = topic && !topic->partitions.empty() && topic->partitions[0].slot != kRootSlot;
    if (t.assignments && in_group && svc.cluster) {
      const std::string& group = svc.stores.entries()[topic->partitions[0].slot].name;
      const auto groups = svc.cluster->replication_groups();
      auto members = groups.count(group) ? groups.at(group) : std::vector<int32_t>{};
      std::sort(members.begin(), members.end());
      bool bad = static_cast<int32_t>(t.assignments->size()) != t.count - have;
      for (const auto& a : *t.assignments) {
        std::vector<int32_t> ids(a.broker_ids.begin(), a.broker_ids.end());
        std::sort(ids.begin(), ids.end());
        bad = bad || ids != members;
      }
      if (bad) {
        out.error_code = ErrorCode::kInvalidReplicaAssignment;
        out.error_message = "each new partition must be assigned the members of replication group " + group +
                            ", which holds the topic";
        continue;
      }
    } else if (t.assignments) {
      bool bad = static_cast<int32_t>(t.assignments->size()) != t.count - have;
      for (const auto& a : *t.assignments) {
        bad = bad || a.broker_ids.size() != 1 || !broker_live(svc, a.broker_ids[0]);
        if (!bad) assignment.push_back(a.broker_ids[0]);
      }
      if (topic && bad) {
        out.error_code = ErrorCode::kInvalidReplicaAssignment;
        out.error_message = svc.cluster ? "each new partition must be assigned to one live broker"
                                        : "each new partition must be assigned to broker " +
                                              std::to_string(svc.config.broker_id);
        continue;
      }
    }
    // The partitions it adds are charged (a count that adds none fails below, uncharged).
    if (topic && t.count > have && !admit_mutation(ctx, t.count - have, /*strict=*/ctx.version() >= 3)) {
      out.error_code = ErrorCode::kThrottlingQuotaExceeded;
      out.error_message = kThrottlingQuotaExceededMessage;
      continue;
    }
    todo.push_back(resp.results.size() - 1);
    assignments.push_back(std::move(assignment));
  }
  auto results = co_await await_all<TopicError>(todo.size(), [&](size_t i, std::function<void(TopicError)> done) {
    const auto& t = req.topics[todo[i]];
    svc.topics.add_partitions(t.name, t.count, req.validate_only, done, assignments[i]);
  });
  for (size_t i = 0; i < todo.size(); ++i) {
    if (results[i].ok()) continue;
    resp.results[todo[i]].error_code = results[i].code;
    resp.results[todo[i]].error_message = results[i].message;
  }
  resp.throttle_time_ms = mutation_throttle(ctx);
  Response r = make_response(resp, ctx.version());
  r.throttle_ms = resp.throttle_time_ms;
  co_return r;
}

}  // namespace rokka::broker
