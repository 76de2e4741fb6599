// OffsetFetch (key 9), v0-v9: reads a group's committed offsets (several groups at once from v8;
// v9 adds the member id and epoch of KIP-848 consumer groups, which classic groups ignore).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct OffsetFetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetFetch;
  struct OffsetFetchRequestTopic {
    std::string_view name;
    std::vector<int32_t> partition_indexes;
  };
  struct OffsetFetchRequestTopics {
    std::string_view name;
    std::vector<int32_t> partition_indexes;
  };
  struct OffsetFetchRequestGroup {
    std::string_view group_id;
    std::optional<std::string_view> member_id;  // v9+
    int32_t member_epoch = -1;                  // v9+
    std::optional<std::vector<OffsetFetchRequestTopics>> topics;
  };
  std::string_view group_id;  // v0-7
  std::optional<std::vector<OffsetFetchRequestTopic>> topics;  // v0-7; null (v2+): all topics
  std::vector<OffsetFetchRequestGroup> groups;  // v8+
  bool require_stable = false;  // v7+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version <= 7) {
      s.str(m.group_id);
      s.narray(m.topics, [&](auto& topic) {
        s.str(topic.name);
        s.array_i32(topic.partition_indexes);
        s.tags();
      });
    }
    if (s.version >= 8) {
      s.array(m.groups, [&](auto& group) {
        s.str(group.group_id);
        if (s.version >= 9) {
          s.nstr(group.member_id);
          s.i32(group.member_epoch);
        }
        s.narray(group.topics, [&](auto& topic) {
          s.str(topic.name);
          s.array_i32(topic.partition_indexes);
          s.tags();
        });
        s.tags();
      });
    }
    if (s.version >= 7) s.boolean(m.require_stable);
    s.tags();
  }
};

struct OffsetFetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetFetch;
  struct OffsetFetchResponsePartition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v5-7
    std::optional<std::string> metadata;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct OffsetFetchResponseTopic {
    std::string name;
    std::vector<OffsetFetchResponsePartition> partitions;
  };
  struct OffsetFetchResponsePartitions {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;
    std::optional<std::string> metadata;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct OffsetFetchResponseTopics {
    std::string name;
    std::vector<OffsetFetchResponsePartitions> partitions;
  };
  struct OffsetFetchResponseGroup {
    std::string group_id;
    std::vector<OffsetFetchResponseTopics> topics;
    ErrorCode error_code = ErrorCode::kNone;
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<OffsetFetchResponseTopic> topics;  // v0-7
  ErrorCode error_code = ErrorCode::kNone;  // v2-7
  std::vector<OffsetFetchResponseGroup> groups;  // v8+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 3) s.i32(m.throttle_time_ms);
    if (s.version <= 7) {
      s.array(m.topics, [&](auto& topic) {
        s.str(topic.name);
        s.array(topic.partitions, [&](auto& partition) {
          s.i32(partition.partition_index);
          s.i64(partition.committed_offset);
          if (s.version >= 5) s.i32(partition.committed_leader_epoch);
          s.nstr(partition.metadata);
          s.i16(partition.error_code);
          s.tags();
        });
        s.tags();
      });
    }
    if (s.version >= 2 && s.version <= 7) s.i16(m.error_code);
    if (s.version >= 8) {
      s.array(m.groups, [&](auto& group) {
        s.str(group.group_id);
        s.array(group.topics, [&](auto& topic) {
          s.str(topic.name);
          s.array(topic.partitions, [&](auto& partition) {
            s.i32(partition.partition_index);
            s.i64(partition.committed_offset);
            s.i32(partition.committed_leader_epoch);
            s.nstr(partition.metadata);
            s.i16(partition.error_code);
            s.tags();
          });
          s.tags();
        });
        s.i16(group.error_code);
        s.tags();
      });
    }
    s.tags();
  }
};

}  // namespace rokka::protocol
