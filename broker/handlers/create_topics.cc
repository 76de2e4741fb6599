#include "protocol/messages/create_topics.h"

#include <algorithm>
#include <set>

#include "broker/net/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/mutation_quota.h"
#include "broker/handlers/routing.h"
#include "broker/link/cluster_link.h"

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
// (v4+). A single broker meets replication factor 1 only, and assignments to itself. In
// cluster mode a topic of replication factor 1 goes to the root stores (an assignment names
// one live broker per partition); one of a replication group's size lives in that group's
// store (an assignment names exactly the group's members for every partition); any other
// factor cannot be met.
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
    std::string group;
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
    int32_t replicas = 1;
    std::vector<int32_t> assignment;  // each partition's broker, when given
    std::string group;                // replication factor > 1: the group holding the partitions
    if (!t.assignments.empty()) {
      if (t.num_partitions != -1 || t.replication_factor != -1) {
        fail(ErrorCode::kInvalidRequest, "give either assignments or partition count and replication factor");
        continue;
      }
      if (svc.cluster && t.assignments[0].broker_ids.size() > 1) {  // replicas: the same group's members for all
        std::vector<int32_t> first(t.assignments[0].broker_ids.begin(), t.assignments[0].broker_ids.end());
        std::sort(first.begin(), first.end());
        bool same = std::adjacent_find(first.begin(), first.end()) == first.end();
        for (size_t i = 0; i < t.assignments.size() && same; ++i) {
          std::vector<int32_t> ids(t.assignments[i].broker_ids.begin(), t.assignments[i].broker_ids.end());
          std::sort(ids.begin(), ids.end());
          same = t.assignments[i].partition_index == static_cast<int32_t>(i) && ids == first;
        }
        auto [err, named] = same ? svc.cluster->group_with(first)
                                 : std::pair{TopicError{ErrorCode::kInvalidReplicaAssignment,
                                                        "assignments must list partitions 0..n-1, each with the "
                                                        "same replicas: the members of one replication group"},
                                             std::string()};
        if (!err.ok()) {
          fail(err.code, err.message);
          continue;
        }
        group = std::move(named);
        replicas = static_cast<int32_t>(first.size());
        partitions = static_cast<int32_t>(t.assignments.size());
      }
      bool bad = false;
      for (size_t i = 0; i < t.assignments.size() && !bad && group.empty(); ++i) {
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
      if (rf > 1 && !svc.cluster) {
        fail(ErrorCode::kInvalidReplicationFactor,
             "replication factor: " + std::to_string(rf) + " larger than available brokers: 1");
        continue;
      }
      if (rf > 1) {
        auto [err, named] = svc.cluster->group_for(rf, t.name);
        if (!err.ok()) {
          fail(err.code, err.message);
          continue;
        }
        group = std::move(named);
        replicas = rf;
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
    out.replication_factor = static_cast<int16_t>(replicas);
    pending.push_back({resp.topics.size() - 1, out.name, partitions, std::move(configs), std::move(assignment),
                       std::move(group)});
  }

  using Created = std::pair<TopicError, TopicPtr>;
  auto created = co_await await_all<Created>(pending.size(), [&](size_t i, std::function<void(Created)> done) {
    const Pending& p = pending[i];
    svc.topics.create(
        p.name, p.partitions, p.configs, req.validate_only,
        [done](TopicError e, TopicPtr t) { done({std::move(e), std::move(t)}); }, p.assignment, p.group);
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
