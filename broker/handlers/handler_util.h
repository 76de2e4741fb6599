// Small pieces every handler uses: decode the request body, encode the response,
// and resolve a (topic, partition) to a storage partition.
#pragma once

#include <limits>
#include <string_view>

#include "broker/net/request_context.h"
#include "broker/services.h"
#include "broker/meta/topic_registry.h"
#include "broker/records/store_set.h"
#include "protocol/error_code.h"
#include "protocol/message.h"

namespace rokka::broker {

// Bytes after the request's last field are ignored, as Kafka does (protocol::decode_request).
template <typename Req>
bool decode_request(const RequestContext& ctx, Req& req) {
  return protocol::decode_request(req, ctx.body(), ctx.version());
}

template <typename Resp>
Response make_response(const Resp& resp, int16_t version) {
  Response r;
  if constexpr (requires { resp.throttle_time_ms; })
    r.throttle_field = protocol::encode_marking(resp, r.body, version, resp.throttle_time_ms);
  else
    protocol::encode(resp, r.body, version);
  tally_errors(resp, r.errors);
  return r;
}

// A response that carries only its top-level error code (every other field at its default).
template <typename Resp>
Response error_response(protocol::ErrorCode error, int16_t version) {
  Resp resp;
  resp.error_code = error;
  return make_response(resp, version);
}


// The advertised address of the listener this request came in on (Kafka answers
// Metadata, FindCoordinator and DescribeCluster per listener), else the first.
inline const Listener& advertised_listener(const RequestContext& ctx) {
  const auto& all = ctx.services->advertised;
  for (const Listener& l : all)
    if (l.name == ctx.listener_name) return l;
  return all.front();
}

// The leader epoch this broker reports for every partition (a single broker never
// changes leader): stamped into stored batches and Metadata.
inline constexpr int32_t kLeaderEpoch = 0;

// Kafka ACL operation bits that apply to a topic: READ, WRITE, CREATE, DELETE, ALTER,
// DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS (all granted without an authorizer).
inline constexpr int32_t kAllTopicOperations =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);
// Cluster: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE.
inline constexpr int32_t kAllClusterOperations =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);
inline constexpr int32_t kOperationsNotRequested = std::numeric_limits<int32_t>::min();

// A Kafka partition resolved to where it lives: `store` (its slot's) and `pid`, a partition
// id of that store only. Without an error, `store` is set.
struct PartitionRef {
  TopicPtr topic;
  storage::PartitionId pid = 0;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  storage::Store* store = nullptr;
  StoreSlot slot = kRootSlot;
  int32_t leader_epoch = kLeaderEpoch;  // the epoch this broker leads the partition in (resolve_led_partition)
};

inline PartitionRef resolve_partition(const StoreSet& stores, const TopicPtr& topic, int32_t index) {
  if (!topic || index < 0 || index >= static_cast<int32_t>(topic->partitions.size()))
    return {topic, 0, protocol::ErrorCode::kUnknownTopicOrPartition};
  const PartitionLoc loc = topic->partitions[static_cast<size_t>(index)];
  storage::Store* store = stores.at(loc.slot);
  if (store == nullptr) return {topic, 0, protocol::ErrorCode::kUnknownTopicOrPartition};
  return {topic, loc.pid, protocol::ErrorCode::kNone, store, loc.slot};
}

// A client's current_leader_epoch against ours (PartitionRef::leader_epoch): newer is
// unknown to us, older is fenced; a negative one asks for no check.
inline protocol::ErrorCode check_leader_epoch(int32_t current_leader_epoch, int32_t ours) {
  if (current_leader_epoch < 0 || current_leader_epoch == ours) return protocol::ErrorCode::kNone;
  return current_leader_epoch > ours ? protocol::ErrorCode::kUnknownLeaderEpoch
                                     : protocol::ErrorCode::kFencedLeaderEpoch;
}

}  // namespace rokka::broker
