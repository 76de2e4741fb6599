#include "protocol/messages/add_partitions_to_txn.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/transaction_service.h"

namespace rokka::broker {

using protocol::ErrorCode;

// Adds partitions to the producer's transaction. As Kafka: if any partition is unknown,
// it gets UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED and nothing is
// added; else every partition gets the coordinator's answer.
boost::asio::awaitable<HandlerResult> handle_add_partitions_to_txn(RequestContext& ctx, protocol::AddPartitionsToTxnRequest& req) {
  const Services& svc = *ctx.services;
  std::vector<coordinator::TopicPartition> partitions;
  bool any_unknown = false;
  // A partition's own failure (denied, unknown) or kNone; any failure stops the whole add.
  auto own_error = [&](std::string_view name, const TopicPtr& topic, int32_t p) {
    if (!authorized(ctx, AclOperation::kWrite, ResourceType::kTopic, name)) return ErrorCode::kTopicAuthorizationFailed;
    return resolve_partition(svc.stores, topic, p).error;
  };
  for (const auto& t : req.v3_and_below_topics) {
    const TopicPtr topic = svc.topics.find(t.name);
    for (int32_t p : t.partitions) {
      partitions.push_back({std::string(t.name), p});
      any_unknown = any_unknown || own_error(t.name, topic, p) != ErrorCode::kNone;
    }
  }

  ErrorCode all = ErrorCode::kOperationNotAttempted;
  if (!authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, req.v3_and_below_transactional_id)) {
    all = ErrorCode::kTransactionalIdAuthorizationFailed;
    any_unknown = false;  // the transactional id's failure applies to every partition
  } else if (!coordinates(svc, req.v3_and_below_transactional_id)) {
    all = ErrorCode::kNotCoordinator;
    any_unknown = false;
  } else if (!any_unknown) {
    coordinator::ProducerRef producer{std::string(req.v3_and_below_transactional_id), req.v3_and_below_producer_id,
                                      req.v3_and_below_producer_epoch};
    std::vector<coordinator::TopicPartition> added = partitions;
    const std::shared_ptr<CoordinatorPair> coord = svc.coordinators.current();
    const coordinator::TxnError e = co_await coord->txns().add_partitions(std::move(producer), std::move(added));
    all = to_kafka(e, ctx.version() >= 2);
  }

  protocol::AddPartitionsToTxnResponse resp;
  for (const auto& t : req.v3_and_below_topics) {
    auto& out = resp.results_by_topic_v3_and_below.emplace_back();
    out.name = std::string(t.name);
    const TopicPtr topic = svc.topics.find(t.name);
    for (int32_t p : t.partitions) {
      const ErrorCode own = any_unknown ? own_error(t.name, topic, p) : ErrorCode::kNone;
      out.results_by_partition.push_back({p, own != ErrorCode::kNone ? own : all});
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
