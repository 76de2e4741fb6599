// OffsetDelete (key 47), v0: deletes committed offsets of partitions a group no longer consumes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct OffsetDeleteRequest {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetDelete;
  struct OffsetDeleteRequestPartition {
    int32_t partition_index = 0;
  };
  struct OffsetDeleteRequestTopic {
    std::string_view name;
    std::vector<OffsetDeleteRequestPartition> partitions;
  };
  std::string_view group_id;
  std::vector<OffsetDeleteRequestTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct OffsetDeleteResponse {
  static constexpr ApiKey kApiKey = ApiKey::kOffsetDelete;
  struct OffsetDeleteResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct OffsetDeleteResponseTopic {
    std::string name;
    std::vector<OffsetDeleteResponsePartition> partitions;
  };
  ErrorCode error_code = ErrorCode::kNone;
  int32_t throttle_time_ms = 0;
  std::vector<OffsetDeleteResponseTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i16(m.error_code);
    s.i32(m.throttle_time_ms);
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
