#include "protocol/messages/metadata.h"

#include "broker/net/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/logging.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;
using protocol::MetadataRequest;
using protocol::MetadataResponse;

MetadataResponse::MetadataResponseTopic describe(const RequestContext& ctx, const PartitionPlaces& places, const Topic& t,
                                                bool with_operations) {
  MetadataResponse::MetadataResponseTopic out;
  out.name = t.name;
  out.topic_id = t.id;
  out.is_internal = t.internal;
  out.partitions.reserve(t.partitions.size());
  for (size_t i = 0; i < t.partitions.size(); ++i) {
    auto& p = out.partitions.emplace_back();
    p.partition_index = static_cast<int32_t>(i);
    describe_place(p, places.of(t, p.partition_index));
  }
  if (with_operations)
    out.topic_authorized_operations = authorized_operations(ctx, kAllTopicOperations, ResourceType::kTopic, t.name);
  return out;
}

}  // namespace

// GCC 12 reports asio's coroutine frame allocation of this handler as mismatched new/delete
// (a false positive, as for handle_create_topics: asio pairs its own operator new/delete); it
// appeared when the frame came to hold a shared_ptr (PartitionPlaces).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
// Brokers, cluster id, controller, and topics: all of them (null list; empty in v0),
// or those asked for by name (v10+: or by id). Unknown topics are created when both
// the broker (auto.create.topics.enable) and the request (v4+) allow it.
boost::asio::awaitable<HandlerResult> handle_metadata(RequestContext& ctx, MetadataRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  MetadataResponse resp;
  resp.cluster_id = svc.cluster_id;
  resp.controller_id = controller_id(svc);
  for (const BrokerAddress& b : broker_addresses(ctx)) resp.brokers.push_back({b.id, b.host, b.port, b.rack});
  if (req.include_cluster_authorized_operations)
    resp.cluster_authorized_operations =
        authorized_operations(ctx, kAllClusterOperations, ResourceType::kCluster, kClusterResourceName);
  const bool ops = req.include_topic_authorized_operations;
  const PartitionPlaces places(svc);

  // Topics the principal may not DESCRIBE are left out of "all topics" and answer
  // TOPIC_AUTHORIZATION_FAILED when named, whether they exist or not (as in Kafka).
  auto may_describe = [&](std::string_view name) {
    return authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, name);
  };
  const bool all = !req.topics || (v == 0 && req.topics->empty());
  if (all) {
    for (const TopicPtr& t : svc.topics.all())
      if (authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, t->name, false))
        resp.topics.push_back(describe(ctx, places, *t, ops));
    co_return make_response(resp, v);
  }

  const bool may_create = svc.config.auto_create_topics_enable && (v < 4 || req.allow_auto_topic_creation);
  // Auto-creation needs CREATE on the cluster or on the topic.
  auto may_create_topic = [&](std::string_view name) {
    return authorized_cluster(ctx, AclOperation::kCreate) ||
           authorized(ctx, AclOperation::kCreate, ResourceType::kTopic, name);
  };
  std::vector<size_t> to_create;  // indexes into resp.topics
  for (const auto& asked : *req.topics) {
    if (!asked.name) {  // by id (v10+)
      TopicPtr t = svc.topics.find(asked.topic_id);
      if (t && !may_describe(t->name)) {
        auto& out = resp.topics.emplace_back();
        out.error_code = ErrorCode::kTopicAuthorizationFailed;
        out.topic_id = asked.topic_id;
      } else if (t) {
        resp.topics.push_back(describe(ctx, places, *t, ops));
      } else {
        auto& out = resp.topics.emplace_back();
        out.error_code = ErrorCode::kUnknownTopicId;
        out.topic_id = asked.topic_id;
      }
      continue;
    }
    const std::string_view name = *asked.name;
    if (!may_describe(name)) {
      auto& out = resp.topics.emplace_back();
      out.name = std::string(name);
      out.error_code = ErrorCode::kTopicAuthorizationFailed;
      continue;
    }
    if (TopicPtr t = svc.topics.find(name)) {
      resp.topics.push_back(describe(ctx, places, *t, ops));
      continue;
    }
    auto& out = resp.topics.emplace_back();
    out.name = std::string(name);
    if (TopicError e = TopicRegistry::validate_name(name); !e.ok()) {
      out.error_code = e.code;
    } else if (!may_create) {
      out.error_code = ErrorCode::kUnknownTopicOrPartition;
    } else if (!may_create_topic(name)) {
      out.error_code = ErrorCode::kTopicAuthorizationFailed;
    } else if (svc.topics.creating(name)) {
      out.error_code = ErrorCode::kLeaderNotAvailable;  // the client retries shortly
    } else {
      to_create.push_back(resp.topics.size() - 1);
    }
  }

  // Create the missing topics together and answer once they exist.
  using Created = std::pair<TopicError, TopicPtr>;
  auto created = co_await await_all<Created>(to_create.size(), [&](size_t i, std::function<void(Created)> done) {
    svc.topics.create(*resp.topics[to_create[i]].name, svc.config.num_partitions, {}, false,
                       [done](TopicError e, TopicPtr t) { done({std::move(e), std::move(t)}); });
  });
  for (size_t i = 0; i < to_create.size(); ++i) {
    auto& out = resp.topics[to_create[i]];
    auto& [err, topic] = created[i];
    if (topic) {
      out = describe(ctx, places, *topic, ops);
    } else if (err.code == ErrorCode::kTopicAlreadyExists) {
      out.error_code = ErrorCode::kLeaderNotAvailable;  // someone else is creating it
    } else {
      out.error_code = err.code;
    }
  }
  co_return make_response(resp, v);
}

#pragma GCC diagnostic pop

}  // namespace rokka::broker
