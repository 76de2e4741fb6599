// The partition-placement admin APIs, answered as one broker truthfully can: every
// partition has one replica, on this broker, which leads it. ElectLeaders also elects the
// leaders of replication groups (a partition of an RF > 1 topic lives in a group's store).
#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <map>
#include <string>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/routing.h"
#include "broker/handlers/handlers.h"
#include "broker/link/cluster_link.h"
#include "broker/logging.h"
#include "broker/meta/topic_registry.h"
#include "broker/net/async.h"
#include "cluster/group_decisions.h"
#include "cluster/placement.h"
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

// The replication group of each partition of `topic` by the topic's placement in etcd (on any
// broker, a member of the group or not); empty for an RF-1 topic, or one not in the view.
std::vector<std::string> groups_of(const cluster::ClusterSnapshot* snap, const std::string& topic) {
  if (snap == nullptr) return {};
  auto it = snap->topics.find(topic);
  if (it == snap->topics.end()) return {};
  const cluster::TopicRecord& rec = it->second.record;
  auto placement = cluster::decode_placement(rec.placement, rec.partitions);
  if (!placement.ok() || !placement->replicated()) return {};
  return placement->groups(rec.partitions);
}

// ElectLeaders on replication group `group` (docs/cluster.md "Elections an operator asks for"):
// the decision from this broker's view (cluster::preferred_election / unclean_election), written
// as the controller's election txn under the controller epoch the view shows, so it applies only
// while that controller holds its key and the group's state and the epoch counter are as seen. A
// txn that did not apply (the state moved, or the controller) or an etcd error: decide again on a
// newer view, a few times.
boost::asio::awaitable<TopicError> elect_group(const Services& svc, const std::string& group, int8_t type) {
  constexpr int kAttempts = 10;
  boost::asio::steady_timer pause(co_await boost::asio::this_coro::executor);
  bool written = false;  // a txn of ours may have applied (an etcd error leaves it unknown)
  std::string last_error;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) {
      pause.expires_after(std::chrono::milliseconds(100));
      co_await pause.async_wait(boost::asio::use_awaitable);
    }
    const auto snap = svc.cluster->view();
    const cluster::GroupInfo* info = snap ? snap->group(group) : nullptr;
    const ErrorCode unavailable =
        type == 0 ? ErrorCode::kPreferredLeaderNotAvailable : ErrorCode::kEligibleLeadersNotAvailable;
    if (info == nullptr || !info->spec || !info->state)
      co_return TopicError{unavailable, "replication group " + group + " has no leader yet (no state in etcd)"};
    if (!snap->controller) {
      last_error = "the cluster has no controller";
      continue;
    }
    if (snap->epoch_counter_mod_revision != 0 && !snap->epoch_counter)
      co_return TopicError{ErrorCode::kUnknownServerError, "the epoch counter in etcd does not decode"};
    const cluster::LiveMembers live = cluster::live_members(*snap, group);
    auto decided = type == 0 ? cluster::preferred_election(*info->spec, *info->state, live, snap->epoch_counter)
                             : cluster::unclean_election(*info->spec, *info->state, live,
                                                         svc.config.unclean_leader_election_enable, snap->epoch_counter);
    if (!decided.ok()) co_return TopicError{ErrorCode::kUnknownServerError, decided.status().to_string()};
    switch (decided->kind) {
      case cluster::AskedElection::Kind::kNotNeeded:
        if (written) co_return TopicError{};  // ours applied after all
        co_return TopicError{ErrorCode::kElectionNotNeeded, decided->why};
      case cluster::AskedElection::Kind::kNotAvailable: co_return TopicError{unavailable, decided->why};
      case cluster::AskedElection::Kind::kElect: break;
    }
    cluster::Txn txn = cluster::election_txn(svc.cluster->keys(), snap->controller->epoch, group, decided->next,
                                             {info->state_mod_revision, snap->epoch_counter_mod_revision});
    const auto r = co_await await_callback<storage::Result<cluster::TxnResult>>(
        [&](std::function<void(storage::Result<cluster::TxnResult>)> done) {
          svc.cluster->commit(std::move(txn), std::move(done));
        });
    if (r.ok() && r->succeeded) {
      broker_log().info("cluster: group {}: {} election: broker {} leads at epoch {}", group,
                        type == 0 ? "preferred" : "unclean", decided->next.leader, decided->next.epoch);
      co_return TopicError{};
    }
    if (!r.ok()) {
      written = true;
      last_error = r.status().to_string();
    } else {
      last_error = "the group's state or the controller changed meanwhile";
    }
  }
  co_return TopicError{ErrorCode::kRequestTimedOut, "no election written: " + last_error};
}

}  // namespace

// ElectLeaders. A partition of a replication group (cluster mode): the group's leader moves,
// and with it every partition of the group (elect_group above): PREFERRED to the spec's first
// member, UNCLEAN to a live member when the group has no leader (outside the in-sync set only
// with unclean.leader.election.enable); each requested partition gets its group's answer. Any
// other partition's only replica already leads it, so a named partition gets
// ELECTION_NOT_NEEDED (preferred and unclean alike) and an unknown one
// UNKNOWN_TOPIC_OR_PARTITION. With a null list (every partition) Kafka's controller lists
// each topic and leaves out the partitions that needed no election: every topic, with the
// partitions of each replication group whose election was written or failed (all of the
// group's partitions, with its answer); RF-1 partitions never need one. Needs CLUSTER ALTER; an
// election type other than 0 or 1 is INVALID_REQUEST. Either failure is the top-level error
// (v1+) and every named partition's.
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
    if (!refused.ok()) co_return make_response(resp, ctx.version());
    std::vector<TopicPtr> topics = svc.topics.all();
    std::sort(topics.begin(), topics.end(), [](const TopicPtr& a, const TopicPtr& b) { return a->name < b->name; });
    const auto view = svc.cluster != nullptr ? svc.cluster->view() : nullptr;
    std::map<std::string, std::vector<std::pair<size_t, int32_t>>> in_groups;  // group -> (topic index, partition)
    for (const TopicPtr& t : topics) {
      const std::vector<std::string> groups = groups_of(view.get(), t->name);
      for (size_t i = 0; i < groups.size() && i < t->partitions.size(); ++i)
        in_groups[groups[i]].emplace_back(resp.replica_election_results.size(), static_cast<int32_t>(i));
      resp.replica_election_results.push_back({t->name, {}});
    }
    for (const auto& entry : in_groups) {  // no structured binding across a co_await (GCC 12)
      const TopicError e = co_await elect_group(svc, entry.first, req.election_type);
      if (e.code == ErrorCode::kElectionNotNeeded) continue;
      for (const auto& [ti, index] : entry.second) {
        auto& p = resp.replica_election_results[ti].partition_result.emplace_back();
        p.partition_id = index;
        p.error_code = e.code;
        if (!e.message.empty()) p.error_message = e.message;
      }
    }
    co_return make_response(resp, ctx.version());
  }
  resp.error_code = refused.code;
  const PartitionPlaces places(svc);
  const auto view = svc.cluster != nullptr ? svc.cluster->view() : nullptr;
  // The partitions of replication groups, answered once each group's election is done.
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> in_groups;  // group -> (topic, partition) indexes
  for (const auto& t : *req.topic_partitions) {
    auto& out = resp.replica_election_results.emplace_back();
    out.topic = std::string(t.topic);
    const std::vector<std::string> groups = groups_of(view.get(), out.topic);  // once per topic, not per partition
    for (int32_t index : t.partitions) {
      auto& p = out.partition_result.emplace_back();
      p.partition_id = index;
      TopicError e = refused.ok() ? find_partition(svc, t.topic, index) : refused;
      const TopicPtr topic = e.ok() ? svc.topics.find(t.topic) : nullptr;
      if (topic && svc.cluster != nullptr) {
        if (static_cast<size_t>(index) < groups.size()) {  // find_partition checked index >= 0
          in_groups[groups[static_cast<size_t>(index)]].emplace_back(resp.replica_election_results.size() - 1,
                                                                     out.partition_result.size() - 1);
          continue;
        }
      }
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
  for (const auto& entry : in_groups) {  // no structured binding across a co_await (GCC 12)
    const TopicError e = co_await elect_group(svc, entry.first, req.election_type);
    for (const auto& [ti, pi] : entry.second) {
      auto& p = resp.replica_election_results[ti].partition_result[pi];
      p.error_code = e.code;
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
