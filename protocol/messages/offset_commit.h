// OffsetCommit (key 8), v0-v9: stores a group's consumed offsets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct OffsetCommitRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetCommit;
  struct OffsetCommitRequestPartition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v6+
    int64_t commit_timestamp = -1;  // v1
    std::optional<std::string_view> committed_metadata;
  };
  struct OffsetCommitRequestTopic {
    std::string_view name;
    std::vector<OffsetCommitRequestPartition> partitions;
  };
  std::string_view group_id;
  int32_t generation_id_or_member_epoch = -1;  // v1+
  std::string_view member_id;  // v1+
  std::optional<std::string_view> group_instance_id;  // v7+
  int64_t retention_time_ms = -1;  // v2-4
  std::vector<OffsetCommitRequestTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    if (s.version >= 1) {
      s.i32(m.generation_id_or_member_epoch);
      s.str(m.member_id);
    }
    if (s.version >= 7) s.nstr(m.group_instance_id);
    if (s.version >= 2 && s.version <= 4) s.i64(m.retention_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i64(partition.committed_offset);
        if (s.version >= 6) s.i32(partition.committed_leader_epoch);
        if (s.version == 1) s.i64(partition.commit_timestamp);
        s.nstr(partition.committed_metadata);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct OffsetCommitResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetCommit;
  struct OffsetCommitResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct OffsetCommitResponseTopic {
    std::string name;
    std::vector<OffsetCommitResponsePartition> partitions;
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<OffsetCommitResponseTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 3) s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i16(partition.error_code);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
