// ListOffsets (key 2), v0-v10: earliest/latest offset, or the first offset at a timestamp
// (max timestamp v7+, earliest local v8+, latest tiered v9+, timeout_ms v10+).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct ListOffsetsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kListOffsets;
  struct ListOffsetsPartition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;  // v4+
    int64_t timestamp = 0;
    int32_t max_num_offsets = 1;  // v0
  };
  struct ListOffsetsTopic {
    std::string_view name;
    std::vector<ListOffsetsPartition> partitions;
  };
  int32_t replica_id = 0;
  int8_t isolation_level = 0;  // v2+
  std::vector<ListOffsetsTopic> topics;
  int32_t timeout_ms = 0;  // v10+: how long a remote-storage lookup may take (none here)

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.replica_id);
    if (s.version >= 2) s.i8(m.isolation_level);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        if (s.version >= 4) s.i32(partition.current_leader_epoch);
        s.i64(partition.timestamp);
        if (s.version == 0) s.i32(partition.max_num_offsets);
        s.tags();
      });
      s.tags();
    });
    if (s.version >= 10) s.i32(m.timeout_ms);
    s.tags();
  }
};

struct ListOffsetsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kListOffsets;
  struct ListOffsetsPartitionResponse {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
    std::vector<int64_t> old_style_offsets;  // v0
    int64_t timestamp = -1;  // v1+
    int64_t offset = -1;  // v1+
    int32_t leader_epoch = -1;  // v4+
  };
  struct ListOffsetsTopicResponse {
    std::string name;
    std::vector<ListOffsetsPartitionResponse> partitions;
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<ListOffsetsTopicResponse> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 2) s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i16(partition.error_code);
        if (s.version == 0) s.array_i64(partition.old_style_offsets);
        if (s.version >= 1) {
          s.i64(partition.timestamp);
          s.i64(partition.offset);
        }
        if (s.version >= 4) s.i32(partition.leader_epoch);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
