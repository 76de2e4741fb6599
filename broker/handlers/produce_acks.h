// acks=all on the partitions of a replication group's store (issue 24, docs/cluster.md
// "Produce on a group store"): Kafka's answers for an in-sync set smaller than the topic's
// min.insync.replicas, and for each way a wait for the group's confirmed position C can end.
// Pure: the produce handler gives the group's in-sync set size as the cluster view has it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cluster/confirm_waiters.h"
#include "protocol/error_code.h"

namespace rokka::broker {

// Before appending: an acks=all write is refused with NOT_ENOUGH_REPLICAS while the in-sync set
// is smaller than min.insync.replicas, and nothing is appended; acks=0 and acks=1 never are (as
// in Kafka's Partition.appendRecordsToLeader).
constexpr protocol::ErrorCode check_in_sync_before_append(int16_t acks, size_t in_sync, int32_t min_insync) {
  if (acks == -1 && in_sync < static_cast<size_t>(min_insync < 0 ? 0 : min_insync))
    return protocol::ErrorCode::kNotEnoughReplicas;
  return protocol::ErrorCode::kNone;
}

// After an acks=all append waited for C to cover it: `waited` is how the wait ended and
// `in_sync` the in-sync set's size once it had. Confirmed by an in-sync set that shrank below
// min.insync.replicas meanwhile: NOT_ENOUGH_REPLICAS_AFTER_APPEND (the records are stored, the
// client may retry: idempotence dedupes), as Kafka's checkEnoughReplicasReachOffset.
constexpr protocol::ErrorCode acks_all_answer(cluster::ConfirmOutcome::Kind waited, size_t in_sync,
                                              int32_t min_insync) {
  using Kind = cluster::ConfirmOutcome::Kind;
  switch (waited) {
    case Kind::kConfirmed:
      return in_sync < static_cast<size_t>(min_insync < 0 ? 0 : min_insync)
                 ? protocol::ErrorCode::kNotEnoughReplicasAfterAppend
                 : protocol::ErrorCode::kNone;
    case Kind::kTimedOut: return protocol::ErrorCode::kRequestTimedOut;
    case Kind::kNotEnoughReplicas: return protocol::ErrorCode::kNotEnoughReplicasAfterAppend;
    // The store stopped leading (demotion, fencing) or the broker is stopping: the client
    // looks the leader up again and retries there.
    case Kind::kNotLeader: return protocol::ErrorCode::kNotLeaderOrFollower;
    case Kind::kShutdown: return protocol::ErrorCode::kNotLeaderOrFollower;
  }
  return protocol::ErrorCode::kUnknownServerError;
}

}  // namespace rokka::broker
