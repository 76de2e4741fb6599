#include "protocol/messages/add_partitions_to_txn.h"

#include "broker/error_mapping.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "coordinator/transaction_service.h"

namespace rokka::broker {

using protocol::ErrorCode;

// Adds partitions to the producer's transaction. As Kafka: if any partition is unknown,
// it gets UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED and nothing is
// added; else every partition gets the coordinator's answer.
boost::asio::awaitable<HandlerResult> handle_add_partitions_to_txn(RequestContext ctx) {
  protocol::AddPartitionsToTxnRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("AddPartitionsToTxnRequest");
  const Services& svc = *ctx.services;
  std::vector<coordinator::TopicPartition> partitions;
  bool any_unknown = false;
  for (const auto& t : req.v3_and_below_topics) {
    const TopicPtr topic = svc.topics->find(t.name);
    for (int32_t p : t.partitions) {
      partitions.push_back({std::string(t.name), p});
      any_unknown = any_unknown || resolve_partition(topic, p).error != ErrorCode::kNone;
    }
  }

  ErrorCode all = ErrorCode::kOperationNotAttempted;
  if (!any_unknown) {
    coordinator::ProducerRef producer{std::string(req.v3_and_below_transactional_id), req.v3_and_below_producer_id,
                                      req.v3_and_below_producer_epoch};
    std::vector<coordinator::TopicPartition> added = partitions;
    const coordinator::TxnError e = co_await svc.txns->add_partitions(std::move(producer), std::move(added));
    all = to_kafka(e, ctx.version() >= 2);
  }

  protocol::AddPartitionsToTxnResponse resp;
  for (const auto& t : req.v3_and_below_topics) {
    auto& out = resp.results_by_topic_v3_and_below.emplace_back();
    out.name = std::string(t.name);
    const TopicPtr topic = svc.topics->find(t.name);
    for (int32_t p : t.partitions) {
      const bool unknown = any_unknown && resolve_partition(topic, p).error != ErrorCode::kNone;
      out.results_by_partition.push_back({p, code(unknown ? ErrorCode::kUnknownTopicOrPartition : all)});
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
