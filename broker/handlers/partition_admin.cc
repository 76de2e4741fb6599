// The partition-placement admin APIs, answered as one broker truthfully can: every
// partition has one replica, on this broker, which leads it.
#include <algorithm>
#include <string>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/routing.h"
#include "broker/handlers/handlers.h"
#include "broker/meta/topic_registry.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/partition_reassignments.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;

// UNKNOWN_TOPIC_OR_PARTITION with what is missing, or kNone when the partition exists.
TopicError find_partition(const Services& svc, std::string_view topic, int32_t index) {
  const TopicPtr t = svc.topics.find(topic);
  if (!t) return {ErrorCode::kUnknownTopicOrPartition, "no topic named " + std::string(topic)};
  if (index < 0 || static_cast<size_t>(index) >= t->partitions.size())
    return {ErrorCode::kUnknownTopicOrPartition, "no partition " + std::string(topic) + "-" + std::to_string(index)};
  return {};
}

}  // namespace

// ElectLeaders: each partition's only replica already leads it, so a named partition gets
// ELECTION_NOT_NEEDED (preferred and unclean alike) and an unknown one
// UNKNOWN_TOPIC_OR_PARTITION. With a null list (every partition) Kafka's controller lists
// each topic and leaves out the partitions that needed no election: every topic, no
// partitions. Needs CLUSTER ALTER; an election type other than 0 or 1 is INVALID_REQUEST.
// Either failure is the top-level error (v1+) and every named partition's.
boost::asio::awaitable<HandlerResult> handle_elect_leaders(RequestContext& ctx, protocol::ElectLeadersRequest& req) {
  const Services& svc = *ctx.services;
  protocol::ElectLeadersResponse resp;
  TopicError refused;
  if (!authorized_cluster(ctx, AclOperation::kAlter))
    refused = {ErrorCode::kClusterAuthorizationFailed, ""};
  else if (req.election_type != 0 && req.election_type != 1)
    refused = {ErrorCode::kInvalidRequest, "unknown election type " + std::to_string(req.election_type)};

  if (!req.topic_partitions) {
    resp.error_code = refused.code;
    if (refused.ok()) {
      std::vector<TopicPtr> topics = svc.topics.all();
      std::sort(topics.begin(), topics.end(), [](const TopicPtr& a, const TopicPtr& b) { return a->name < b->name; });
      for (const TopicPtr& t : topics) resp.replica_election_results.push_back({t->name, {}});
    }
    co_return make_response(resp, ctx.version());
  }
  resp.error_code = refused.code;
  const PartitionPlaces places(svc);
  for (const auto& t : *req.topic_partitions) {
    auto& out = resp.replica_election_results.emplace_back();
    out.topic = std::string(t.topic);
    for (int32_t index : t.partitions) {
      auto& p = out.partition_result.emplace_back();
      p.partition_id = index;
      TopicError e = refused.ok() ? find_partition(svc, t.topic, index) : refused;
      const TopicPtr topic = e.ok() ? svc.topics.find(t.topic) : nullptr;
      if (topic && !places.of(*topic, index).live) {
        // Its only replica is down (cluster mode): no broker can lead it.
        e = req.election_type == 0
                ? TopicError{ErrorCode::kPreferredLeaderNotAvailable, "the partition's only replica is down"}
                : TopicError{ErrorCode::kEligibleLeadersNotAvailable, "the partition's only replica is down"};
      }
      p.error_code = e.ok() ? ErrorCode::kElectionNotNeeded : e.code;
      if (!e.message.empty()) p.error_message = e.message;
    }
  }
  co_return make_response(resp, ctx.version());
}

// AlterPartitionReassignments: a partition has one replica and stays on the broker it was
// placed on (one broker: [broker.id]), so asking for that placement succeeds and changes
// nothing; a replica list naming a broker that is not registered, more than one broker, or
// another broker (moving a partition's data comes with replication) is
// INVALID_REPLICA_ASSIGNMENT with a message saying which, as are an empty list and a broker
// named twice; cancelling (null replicas) is NO_REASSIGNMENT_IN_PROGRESS. Needs CLUSTER
// ALTER (else CLUSTER_AUTHORIZATION_FAILED, top level and every partition).
boost::asio::awaitable<HandlerResult> handle_alter_partition_reassignments(RequestContext& ctx, protocol::AlterPartitionReassignmentsRequest& req) {
  const Services& svc = *ctx.services;
  const PartitionPlaces places(svc);
  protocol::AlterPartitionReassignmentsResponse resp;
  const bool allowed = authorized_cluster(ctx, AclOperation::kAlter);
  if (!allowed) resp.error_code = ErrorCode::kClusterAuthorizationFailed;
  for (const auto& t : req.topics) {
    auto& out = resp.responses.emplace_back();
    out.name = std::string(t.name);
    for (const auto& p : t.partitions) {
      auto& r = out.partitions.emplace_back();
      r.partition_index = p.partition_index;
      TopicError e;
      if (!allowed) {
        e.code = ErrorCode::kClusterAuthorizationFailed;
      } else if (e = find_partition(svc, t.name, p.partition_index); !e.ok()) {
      } else if (!p.replicas) {
        e = {ErrorCode::kNoReassignmentInProgress, "no partition reassignment is in progress"};
      } else if (p.replicas->empty()) {
        e = {ErrorCode::kInvalidReplicaAssignment, "the replica list is empty"};
      } else {
        std::vector<int32_t> sorted = *p.replicas;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < sorted.size() && e.ok(); ++i) {
          if (i > 0 && sorted[i] == sorted[i - 1])
            e = {ErrorCode::kInvalidReplicaAssignment, "broker " + std::to_string(sorted[i]) + " is named more than once"};
          else if (!broker_live(svc, sorted[i]))
            e = {ErrorCode::kInvalidReplicaAssignment, "broker " + std::to_string(sorted[i]) + " is not registered"};
        }
        const TopicPtr topic = svc.topics.find(t.name);
        const int32_t placed = topic ? places.of(*topic, p.partition_index).broker : -1;
        if (e.ok() && sorted.size() > 1)
          e = {ErrorCode::kInvalidReplicaAssignment, "a partition has one replica (replication factor 1)"};
        else if (e.ok() && sorted.front() != placed)
          e = {ErrorCode::kInvalidReplicaAssignment,
               "the partition stays on broker " + std::to_string(placed) +
                   ", where it was placed: moving a partition's data to another broker is not supported"};
      }
      r.error_code = e.code;
      if (!e.message.empty()) r.error_message = e.message;
    }
  }
  co_return make_response(resp, ctx.version());
}

// ListPartitionReassignments: one broker never has a reassignment in progress, so the
// answer lists nothing (Kafka leaves out unknown topics too). Needs CLUSTER DESCRIBE.
boost::asio::awaitable<HandlerResult> handle_list_partition_reassignments(RequestContext& ctx, protocol::ListPartitionReassignmentsRequest& /*req*/) {
  protocol::ListPartitionReassignmentsResponse resp;
  if (!authorized_cluster(ctx, AclOperation::kDescribe)) resp.error_code = ErrorCode::kClusterAuthorizationFailed;
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
