// Fetch (key 1), v4-v12: reads record batches from partitions, long-polling up to max_wait_ms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

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
    std::string_view topic;
    std::vector<FetchPartition> partitions;
  };
  struct ForgottenTopic {
    std::string_view topic;
    std::vector<int32_t> partitions;
  };
  int32_t replica_id = -1;
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
    s.i32(m.replica_id);
    s.i32(m.max_wait_ms);
    s.i32(m.min_bytes);
    s.i32(m.max_bytes);
    s.i8(m.isolation_level);
    if (s.version >= 7) {
      s.i32(m.session_id);
      s.i32(m.session_epoch);
    }
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.topic);
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
        s.str(topic.topic);
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
    int16_t error_code = 0;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;  // v5+
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;  // v11+
    Records records;
  };
  struct FetchableTopicResponse {
    std::string topic;
    std::vector<PartitionData> partitions;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v7+
  int32_t session_id = 0;  // v7+
  std::vector<FetchableTopicResponse> responses;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    if (s.version >= 7) {
      s.i16(m.error_code);
      s.i32(m.session_id);
    }
    s.array(m.responses, [&](auto& topic) {
      s.str(topic.topic);
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
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
