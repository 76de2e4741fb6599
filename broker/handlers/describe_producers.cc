#include "protocol/messages/describe_producers.h"

#include "broker/net/async.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/meta/topic_registry.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;

// DescribeProducers: per partition, the idempotent and transactional producers it holds
// state for (what kafka-transactions.sh describe-producers prints), with Kafka's errors:
// an invalid topic name INVALID_TOPIC_EXCEPTION with the reason, no READ on the topic
// TOPIC_AUTHORIZATION_FAILED, an unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION.
// lastTimestamp is the broker's time of the producer's last append; coordinatorEpoch is
// -1 (Rokka's markers carry none).
boost::asio::awaitable<HandlerResult> handle_describe_producers(RequestContext& ctx, protocol::DescribeProducersRequest& req) {
  Services& svc = *ctx.services;
  using PartitionResponse = protocol::DescribeProducersResponse::PartitionResponse;
  protocol::DescribeProducersResponse resp;
  struct Target {
    size_t topic, partition;  // indexes into resp.topics[topic].partitions
    storage::Store* store;
    storage::PartitionId pid;
  };
  std::vector<Target> targets;
  resp.topics.reserve(req.topics.size());
  for (const auto& t : req.topics) {
    auto& out_topic = resp.topics.emplace_back();
    out_topic.name = std::string(t.name);
    TopicError topic_error = TopicRegistry::validate_name(t.name);
    TopicPtr topic;
    if (topic_error.ok() && !authorized(ctx, AclOperation::kRead, ResourceType::kTopic, t.name))
      topic_error.code = ErrorCode::kTopicAuthorizationFailed;
    if (topic_error.ok() && !(topic = svc.topics.find(t.name))) topic_error.code = ErrorCode::kUnknownTopicOrPartition;
    out_topic.partitions.reserve(t.partition_indexes.size());
    for (int32_t index : t.partition_indexes) {
      PartitionResponse& out = out_topic.partitions.emplace_back();
      out.partition_index = index;
      if (!topic_error.ok()) {
        out.error_code = topic_error.code;
        if (!topic_error.message.empty()) out.error_message = topic_error.message;
        continue;
      }
      PartitionRef ref = resolve_led_partition(svc, true, topic, index);
      if (ref.error != ErrorCode::kNone) {
        out.error_code = ref.error;
        continue;
      }
      targets.push_back({resp.topics.size() - 1, out_topic.partitions.size() - 1, ref.store, ref.pid});
    }
  }
  using R = storage::Result<std::vector<storage::ActiveProducer>>;
  auto results = co_await await_all<R>(targets.size(), [&](size_t i, std::function<void(R)> done) {
    targets[i].store->active_producers(targets[i].pid, std::move(done));
  });
  for (size_t i = 0; i < targets.size(); ++i) {
    PartitionResponse& out = resp.topics[targets[i].topic].partitions[targets[i].partition];
    if (!results[i].ok()) {
      out.error_code = to_kafka(results[i].status());
      continue;
    }
    out.active_producers.reserve(results[i]->size());
    for (const storage::ActiveProducer& a : *results[i])
      out.active_producers.push_back({a.producer_id, a.epoch, a.last_sequence, a.last_append_ms, -1, a.txn_start_offset});
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
