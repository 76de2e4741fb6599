#include "protocol/messages/offset_commit.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

using protocol::ErrorCode;

// Commits are acknowledged once durable. Partitions of unknown topics are answered
// UNKNOWN_TOPIC_OR_PARTITION here; the rest go to the coordinator together.
boost::asio::awaitable<HandlerResult> handle_offset_commit(RequestContext& ctx, protocol::OffsetCommitRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  protocol::OffsetCommitResponse resp;
  coordinator::OffsetCommitArgs args;
  args.group_id = std::string(req.group_id);
  args.generation_id = v >= 1 ? req.generation_id_or_member_epoch : -1;
  args.member_id = std::string(req.member_id);
  if (req.group_instance_id) args.group_instance_id = std::string(*req.group_instance_id);
  args.retention_time_ms = req.retention_time_ms;
  args.api_version = v;
  const bool group_denied = !authorized_group(ctx, AclOperation::kRead, req.group_id);
  const bool not_coordinator = !coordinates(svc, req.group_id);

  // Where each committed partition's answer goes.
  std::vector<std::pair<size_t, size_t>> slots;
  for (const auto& t : req.topics) {
    auto& out_topic = resp.topics.emplace_back();
    out_topic.name = std::string(t.name);
    const TopicPtr topic = svc.topics.find(t.name);
    coordinator::TopicCommit commit;
    commit.topic = std::string(t.name);
    const bool topic_denied = !authorized(ctx, AclOperation::kRead, ResourceType::kTopic, t.name);
    for (const auto& p : t.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition_index = p.partition_index;
      if (group_denied || topic_denied) {
        out.error_code = group_denied ? ErrorCode::kGroupAuthorizationFailed : ErrorCode::kTopicAuthorizationFailed;
        continue;
      }
      if (not_coordinator) {
        out.error_code = ErrorCode::kNotCoordinator;
        continue;
      }
      if (resolve_partition(svc.stores, topic, p.partition_index).error != ErrorCode::kNone) {
        out.error_code = ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      coordinator::PartitionCommit pc;
      pc.partition = p.partition_index;
      pc.offset = p.committed_offset;
      pc.leader_epoch = p.committed_leader_epoch;
      if (p.committed_metadata) pc.metadata = std::string(*p.committed_metadata);
      commit.partitions.push_back(std::move(pc));
      slots.emplace_back(resp.topics.size() - 1, out_topic.partitions.size() - 1);
    }
    if (!commit.partitions.empty()) args.topics.push_back(std::move(commit));
  }
  if (!slots.empty()) {
    const std::shared_ptr<CoordinatorPair> coord = svc.coordinators.current();
    coordinator::OffsetCommitResult r = co_await coord->groups().commit_offsets(std::move(args));
    size_t i = 0;
    for (const auto& t : r.topics) {
      for (const auto& p : t.partitions) {
        if (i >= slots.size()) break;
        auto [ti, pi] = slots[i++];
        resp.topics[ti].partitions[pi].error_code = to_kafka(p.error);
      }
    }
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
