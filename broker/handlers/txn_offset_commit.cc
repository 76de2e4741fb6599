#include "protocol/messages/txn_offset_commit.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/transaction_service.h"

namespace rokka::broker {

using protocol::ErrorCode;

// Stages offsets in the producer's transaction: they become the group's committed
// offsets when it commits and vanish when it aborts. Partitions of unknown topics get
// UNKNOWN_TOPIC_OR_PARTITION; a producer or group error applies to every partition.
boost::asio::awaitable<HandlerResult> handle_txn_offset_commit(RequestContext& ctx, protocol::TxnOffsetCommitRequest& req) {
  const Services& svc = *ctx.services;

  coordinator::TxnOffsetCommitArgs args;
  args.producer = {std::string(req.transactional_id), req.producer_id, req.producer_epoch};
  args.group_id = std::string(req.group_id);
  args.generation_id = req.generation_id;
  args.member_id = std::string(req.member_id);
  if (req.group_instance_id) args.group_instance_id = std::string(*req.group_instance_id);
  std::vector<ErrorCode> known;  // per request partition: kNone if it goes to the coordinator
  ErrorCode denied = ErrorCode::kNone;  // the transactional id's or the group's: every partition
  if (!authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, req.transactional_id)) {
    denied = ErrorCode::kTransactionalIdAuthorizationFailed;
  } else if (!authorized_group(ctx, AclOperation::kRead, req.group_id)) {
    denied = ErrorCode::kGroupAuthorizationFailed;
  } else if (!coordinates(svc, req.transactional_id)) {
    denied = ErrorCode::kNotCoordinator;
  }
  for (const auto& t : req.topics) {
    const TopicPtr topic = svc.topics.find(t.name);
    const bool topic_denied = !authorized(ctx, AclOperation::kRead, ResourceType::kTopic, t.name);
    for (const auto& p : t.partitions) {
      known.push_back(denied != ErrorCode::kNone ? denied
                      : topic_denied             ? ErrorCode::kTopicAuthorizationFailed
                                                 : resolve_partition(svc.stores, topic, p.partition_index).error);
      if (known.back() != ErrorCode::kNone) continue;
      coordinator::CommittedOffset offset;
      offset.offset = p.committed_offset;
      offset.leader_epoch = p.committed_leader_epoch;
      offset.metadata = std::string(p.committed_metadata.value_or(""));
      args.offsets.emplace_back(coordinator::TopicPartition{std::string(t.name), p.partition_index}, std::move(offset));
    }
  }

  coordinator::TxnOffsetCommitResult r;
  const std::shared_ptr<CoordinatorPair> coord = svc.coordinators.current();
  if (!args.offsets.empty()) r = co_await coord->txns().txn_offset_commit(std::move(args));
  ErrorCode all = ErrorCode::kNone;
  if (r.txn_error != coordinator::TxnError::kNone) {
    all = to_kafka(r.txn_error, /*fenced_supported=*/false);
  } else if (r.group_error != coordinator::GroupError::kNone) {
    all = to_kafka(r.group_error);
  }

  protocol::TxnOffsetCommitResponse resp;
  size_t i = 0;  // into `known`
  size_t j = 0;  // into r.partitions
  for (const auto& t : req.topics) {
    auto& out = resp.topics.emplace_back();
    out.name = std::string(t.name);
    for (const auto& p : t.partitions) {
      ErrorCode e = known[i++];
      if (e == ErrorCode::kNone) {
        const coordinator::GroupError pe = j < r.partitions.size() ? r.partitions[j] : coordinator::GroupError::kNone;
        ++j;
        e = all != ErrorCode::kNone ? all : to_kafka(pe);
      }
      out.partitions.push_back({p.partition_index, e});
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
