// DeleteRecords (key 21), v0-v2: moves a partition's log start offset forward.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DeleteRecordsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteRecords;
  struct DeleteRecordsPartition {
    int32_t partition_index = 0;
    int64_t offset = 0;
  };
  struct DeleteRecordsTopic {
    std::string_view name;
    std::vector<DeleteRecordsPartition> partitions;
  };
  std::vector<DeleteRecordsTopic> topics;
  int32_t timeout_ms = 0;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i64(partition.offset);
        s.tags();
      });
      s.tags();
    });
    s.i32(m.timeout_ms);
    s.tags();
  }
};

struct DeleteRecordsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteRecords;
  struct DeleteRecordsPartitionResult {
    int32_t partition_index = 0;
    int64_t low_watermark = 0;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct DeleteRecordsTopicResult {
    std::string name;
    std::vector<DeleteRecordsPartitionResult> partitions;
  };
  int32_t throttle_time_ms = 0;
  std::vector<DeleteRecordsTopicResult> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i64(partition.low_watermark);
        s.i16(partition.error_code);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
