#include "protocol/messages/write_txn_markers.h"

#include "broker/net/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/link/cluster_link.h"
#include "broker/records/txn_markers.h"

namespace rokka::broker {

using protocol::ErrorCode;

// A transaction coordinator on another broker of the cluster asks this one to write COMMIT
// or ABORT markers into partitions it leads (Kafka's broker-to-broker request; the client
// side is broker/link/txn_marker_sender.h). Needs CLUSTER_ACTION on the cluster. Each partition
// gets its own error: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (the coordinator
// asks the new leader), KAFKA_STORAGE_ERROR when the write failed.
boost::asio::awaitable<HandlerResult> handle_write_txn_markers(RequestContext& ctx, protocol::WriteTxnMarkersRequest& req) {
  Services& svc = *ctx.services;
  const bool allowed = authorized_cluster(ctx, AclOperation::kClusterAction);

  protocol::WriteTxnMarkersResponse resp;
  std::vector<coordinator::MarkerRequest> writes(req.markers.size());
  // Where each written partition's answer goes: (marker, topic, partition) in resp.
  std::vector<std::vector<std::pair<size_t, size_t>>> slots(req.markers.size());
  for (size_t m = 0; m < req.markers.size(); ++m) {
    const auto& marker = req.markers[m];
    auto& out = resp.markers.emplace_back();
    out.producer_id = marker.producer_id;
    writes[m] = {marker.producer_id, marker.producer_epoch, marker.transaction_result, {}};
    for (const auto& t : marker.topics) {
      auto& out_topic = out.topics.emplace_back();
      out_topic.name = std::string(t.name);
      const TopicPtr topic = svc.topics.find(t.name);
      for (int32_t p : t.partition_indexes) {
        auto& r = out_topic.partitions.emplace_back();
        r.partition_index = p;
        const PartitionRef ref = resolve_led_partition(svc, allowed, topic, p);
        const ErrorCode e = allowed ? ref.error : ErrorCode::kClusterAuthorizationFailed;
        r.error_code = e;
        if (e != ErrorCode::kNone) continue;
        writes[m].partitions.push_back({std::string(t.name), p});
        slots[m].emplace_back(out.topics.size() - 1, out_topic.partitions.size() - 1);
      }
    }
  }
  auto results = co_await await_all<storage::Status>(writes.size(), [&](size_t m, auto done) {
    ConfirmWaitersOf confirm;  // markers in a group store answer once its in-sync members have them
    if (svc.cluster != nullptr) confirm = [link = svc.cluster](StoreSlot slot) { return link->confirm_waiters(slot); };
    write_txn_markers(svc.topics, writes[m], done, std::move(confirm));
  });
  for (size_t m = 0; m < results.size(); ++m) {
    if (results[m].ok()) continue;
    // Not confirmed by the group (no lead, demoted, timed out): the coordinator asks the leader again.
    const ErrorCode e = results[m].code() == storage::StatusCode::kNotLeader ? ErrorCode::kNotLeaderOrFollower
                                                                            : ErrorCode::kKafkaStorageError;
    for (auto [t, p] : slots[m]) resp.markers[m].topics[t].partitions[p].error_code = e;
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
