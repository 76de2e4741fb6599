// OffsetForLeaderEpoch (key 23), v0-v4: the end offset of a leader epoch (log truncation detection).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct OffsetForLeaderEpochRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetForLeaderEpoch;
  struct OffsetForLeaderPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v2+
    int32_t leader_epoch = 0;
  };
  struct OffsetForLeaderTopic {
    std::string_view topic;
    std::vector<OffsetForLeaderPartition> partitions;
  };
  int32_t replica_id = -2;  // v3+
  std::vector<OffsetForLeaderTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 3) s.i32(m.replica_id);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.topic);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition);
        if (s.version >= 2) s.i32(partition.current_leader_epoch);
        s.i32(partition.leader_epoch);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct OffsetForLeaderEpochResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetForLeaderEpoch;
  struct EpochEndOffset {
    ErrorCode error_code = ErrorCode::kNone;
    int32_t partition = 0;
    int32_t leader_epoch = -1;  // v1+
    int64_t end_offset = -1;
  };
  struct OffsetForLeaderTopicResult {
    std::string topic;
    std::vector<EpochEndOffset> partitions;
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<OffsetForLeaderTopicResult> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 2) s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.topic);
      s.array(topic.partitions, [&](auto& partition) {
        s.i16(partition.error_code);
        s.i32(partition.partition);
        if (s.version >= 1) s.i32(partition.leader_epoch);
        s.i64(partition.end_offset);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
