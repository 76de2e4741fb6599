// Fetch (key 1), v4-v17: reads record batches from partitions, long-polling up to max_wait_ms.
// v13+ names topics by id (KIP-516); v15 moves the replica id into a tagged field
// (ReplicaState, for followers); v16-17 add tagged fields only (KIP-951's NodeEndpoints, KIP-853
// directory ids). v12+ answers carry the current-leader hint (protocol/messages/leader_hint.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"
#include "protocol/messages/leader_hint.h"

namespace rokka::protocol {

struct FetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::kFetch;
  struct FetchPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v9+
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;  // v12+
    int64_t log_start_offset = -1;  // v5+
    int32_t partition_max_bytes = 0;
  };
  struct FetchTopic {
    std::string_view topic;  // v0-12
    std::vector<FetchPartition> partitions;
    Uuid topic_id;           // v13+ (on the wire before the partitions)
  };
  struct ForgottenTopic {
    std::string_view topic;  // v7-12
    std::vector<int32_t> partitions;
    Uuid topic_id;           // v13+ (on the wire before the partitions)
  };
  int32_t replica_id = -1;  // v0-14
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff;
  int8_t isolation_level = 0;
  int32_t session_id = 0;  // v7+
  int32_t session_epoch = -1;  // v7+
  std::vector<FetchTopic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;  // v7+
  std::string_view rack_id;  // v11+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version <= 14) s.i32(m.replica_id);
    s.i32(m.max_wait_ms);
    s.i32(m.min_bytes);
    s.i32(m.max_bytes);
    s.i8(m.isolation_level);
    if (s.version >= 7) {
      s.i32(m.session_id);
      s.i32(m.session_epoch);
    }
    s.array(m.topics, [&](auto& topic) {
      if (s.version <= 12) s.str(topic.topic);
      if (s.version >= 13) s.uuid(topic.topic_id);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition);
        if (s.version >= 9) s.i32(partition.current_leader_epoch);
        s.i64(partition.fetch_offset);
        if (s.version >= 12) s.i32(partition.last_fetched_epoch);
        if (s.version >= 5) s.i64(partition.log_start_offset);
        s.i32(partition.partition_max_bytes);
        s.tags();
      });
      s.tags();
    });
    if (s.version >= 7) {
      s.array(m.forgotten_topics_data, [&](auto& topic) {
        if (s.version <= 12) s.str(topic.topic);
        if (s.version >= 13) s.uuid(topic.topic_id);
        s.array_i32(topic.partitions);
        s.tags();
      });
    }
    if (s.version >= 11) s.str(m.rack_id);
    s.tags();
  }
};

struct FetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::kFetch;
  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
  };
  struct PartitionData {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;  // v5+
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;  // v11+
    Records records;
    LeaderIdAndEpoch current_leader;  // v12+, tag 1
  };
  struct FetchableTopicResponse {
    std::string topic;  // v0-12
    std::vector<PartitionData> partitions;
    Uuid topic_id;      // v13+ (on the wire before the partitions)
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;  // v7+
  int32_t session_id = 0;  // v7+
  std::vector<FetchableTopicResponse> responses;
  std::vector<NodeEndpoint> node_endpoints;  // v16+, tag 0: the leaders named in current_leader

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    if (s.version >= 7) {
      s.i16(m.error_code);
      s.i32(m.session_id);
    }
    s.array(m.responses, [&](auto& topic) {
      if (s.version <= 12) s.str(topic.topic);
      if (s.version >= 13) s.uuid(topic.topic_id);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i16(partition.error_code);
        s.i64(partition.high_watermark);
        s.i64(partition.last_stable_offset);
        if (s.version >= 5) s.i64(partition.log_start_offset);
        s.narray(partition.aborted_transactions, [&](auto& transaction) {
          s.i64(transaction.producer_id);
          s.i64(transaction.first_offset);
          s.tags();
        });
        if (s.version >= 11) s.i32(partition.preferred_read_replica);
        s.records(partition.records);
        if (s.version >= 12) {
          s.tags(tagged(1, !partition.current_leader.is_default(),
                        [&](auto& t) { LeaderIdAndEpoch::fields(partition.current_leader, t); }));
        } else {
          s.tags();
        }
      });
      s.tags();
    });
    if (s.version >= 16) {
      s.tags(tagged(0, !m.node_endpoints.empty(), [&](auto& t) {
        t.array(m.node_endpoints, [&](auto& n) { NodeEndpoint::fields(n, t); });
      }));
    } else {
      s.tags();
    }
  }
};

}  // namespace rokka::protocol
