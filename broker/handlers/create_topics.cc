#include "protocol/messages/create_topics.h"

#include <set>

#include "broker/net/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/mutation_quota.h"
#include "broker/handlers/routing.h"

namespace rokka::broker {

using protocol::CreateTopicsRequest;
using protocol::CreateTopicsResponse;
using protocol::ErrorCode;

// GCC 12 reports asio's coroutine frame allocation of this handler as mismatched
// new/delete (a false positive, as for handle_produce: asio pairs its own operator
// new/delete); it appeared when TopicSettings grew the compaction settings.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
// Creates topics: -1 partitions or replication factor means the broker default
// (v4+); a replication factor other than 1 cannot be met (one copy per partition), nor an
// assignment naming a broker that is not live (on a single broker: any other broker).
boost::asio::awaitable<HandlerResult> handle_create_topics(RequestContext& ctx, CreateTopicsRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();
  const int32_t broker_id = svc.config.broker_id;

  CreateTopicsResponse resp;
  struct Pending {
    size_t index;
    std::string name;
    int32_t partitions;
    std::map<std::string, std::string> configs;
    std::vector<int32_t> assignment;
  };
  std::vector<Pending> pending;
  std::map<std::string_view, int> seen;
  for (const auto& t : req.topics) ++seen[t.name];
  // CREATE on the cluster covers every topic; else CREATE on each topic (as in Kafka).
  const bool may_create_any = authorized_cluster(ctx, AclOperation::kCreate);

  for (const auto& t : req.topics) {
    auto& out = resp.topics.emplace_back();
    out.name = std::string(t.name);
    auto fail = [&](ErrorCode e, std::string message) {
      out.error_code = e;
      out.error_message = std::move(message);
    };
    if (seen[t.name] > 1) {
      fail(ErrorCode::kInvalidRequest, "topic '" + out.name + "' appears more than once in the request");
      continue;
    }
    if (!may_create_any && !authorized(ctx, AclOperation::kCreate, ResourceType::kTopic, t.name)) {
      fail(ErrorCode::kTopicAuthorizationFailed, "not authorized to create the topic");
      continue;
    }
    int32_t partitions = t.num_partitions;
    std::vector<int32_t> assignment;  // each partition's broker, when given
    if (!t.assignments.empty()) {
      if (t.num_partitions != -1 || t.replication_factor != -1) {
        fail(ErrorCode::kInvalidRequest, "give either assignments or partition count and replication factor");
        continue;
      }
      bool bad = false;
      for (size_t i = 0; i < t.assignments.size() && !bad; ++i) {
        const auto& a = t.assignments[i];
        bad = a.partition_index != static_cast<int32_t>(i) || a.broker_ids.size() != 1 ||
              !broker_live(svc, a.broker_ids[0]);
        if (!bad) assignment.push_back(a.broker_ids[0]);
      }
      if (bad) {
        fail(ErrorCode::kInvalidReplicaAssignment,
             svc.cluster ? "assignments must list partitions 0..n-1, each on one live broker"
                         : "assignments must list partitions 0..n-1, each on broker " + std::to_string(broker_id) +
                               " only");
        continue;
      }
      partitions = static_cast<int32_t>(t.assignments.size());
    } else {
      if (partitions == -1) partitions = svc.config.num_partitions;
      const int16_t rf = t.replication_factor == -1 ? svc.config.default_replication_factor : t.replication_factor;
      if (partitions <= 0) {
        fail(ErrorCode::kInvalidPartitions, "number of partitions must be larger than 0");
        continue;
      }
      if (rf <= 0) {
        fail(ErrorCode::kInvalidReplicationFactor, "replication factor must be larger than 0");
        continue;
      }
      if (rf > 1) {
        fail(ErrorCode::kInvalidReplicationFactor,
             svc.cluster ? "replication factor: " + std::to_string(rf) +
                               ": every partition has one copy (replication is not available yet)"
                         : "replication factor: " + std::to_string(rf) + " larger than available brokers: 1");
        continue;
      }
    }
    std::map<std::string, std::string> configs;
    bool bad_config = false;
    for (const auto& c : t.configs) {
      if (!c.value) {
        fail(ErrorCode::kInvalidConfig, "null value for config " + std::string(c.name));
        bad_config = true;
        break;
      }
      configs[std::string(c.name)] = std::string(*c.value);
    }
    if (bad_config) continue;
    // Charged before it is created, as Kafka's controller does; a name already taken
    // fails in create() below and is not charged.
    if (!svc.topics.find(t.name) && !admit_mutation(ctx, partitions, /*strict=*/v >= 6)) {
      fail(ErrorCode::kThrottlingQuotaExceeded, kThrottlingQuotaExceededMessage);
      continue;
    }
    out.num_partitions = partitions;
    out.replication_factor = 1;
    pending.push_back({resp.topics.size() - 1, out.name, partitions, std::move(configs), std::move(assignment)});
  }

  using Created = std::pair<TopicError, TopicPtr>;
  auto created = co_await await_all<Created>(pending.size(), [&](size_t i, std::function<void(Created)> done) {
    const Pending& p = pending[i];
    svc.topics.create(
        p.name, p.partitions, p.configs, req.validate_only,
        [done](TopicError e, TopicPtr t) { done({std::move(e), std::move(t)}); }, p.assignment);
  });
  for (size_t i = 0; i < pending.size(); ++i) {
    auto& out = resp.topics[pending[i].index];
    auto& [err, topic] = created[i];
    if (!err.ok()) {
      out.error_code = err.code;
      out.error_message = err.message;
      out.num_partitions = -1;
      out.replication_factor = -1;
      continue;
    }
    if (v >= 5) {
      Topic shown;
      if (topic) {
        shown = *topic;
        out.topic_id = topic->id;
      } else {  // validate_only: describe what would have been created
        shown.configs = pending[i].configs;
      }
      std::vector<CreateTopicsResponse::CreatableTopicConfigs> configs;
      for (auto& [name, value, is_default] : svc.topics.describe_configs(shown)) {
        configs.push_back({name, value, false, static_cast<int8_t>(is_default ? 5 : 1), false});
      }
      out.configs = std::move(configs);
    }
  }
  resp.throttle_time_ms = mutation_throttle(ctx);
  Response r = make_response(resp, v);
  r.throttle_ms = resp.throttle_time_ms;
  co_return r;
}

#pragma GCC diagnostic pop

}  // namespace rokka::broker
