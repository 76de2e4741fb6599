// DescribeLogDirs (key 35), v0-v4: log directories and partition sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeLogDirsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeLogDirs;
  struct DescribableLogDirTopic {
    std::string_view topic;
    std::vector<int32_t> partitions;
  };
  std::optional<std::vector<DescribableLogDirTopic>> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.narray(m.topics, [&](auto& topic) {
      s.str(topic.topic);
      s.array_i32(topic.partitions);
      s.tags();
    });
    s.tags();
  }
};

struct DescribeLogDirsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeLogDirs;
  struct DescribeLogDirsPartition {
    int32_t partition_index = 0;
    int64_t partition_size = 0;
    int64_t offset_lag = 0;
    bool is_future_key = false;
  };
  struct DescribeLogDirsTopic {
    std::string name;
    std::vector<DescribeLogDirsPartition> partitions;
  };
  struct DescribeLogDirsResult {
    ErrorCode error_code = ErrorCode::kNone;
    std::string log_dir;
    std::vector<DescribeLogDirsTopic> topics;
    int64_t total_bytes = -1;  // v4+
    int64_t usable_bytes = -1;  // v4+
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;  // v3+
  std::vector<DescribeLogDirsResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    if (s.version >= 3) s.i16(m.error_code);
    s.array(m.results, [&](auto& result) {
      s.i16(result.error_code);
      s.str(result.log_dir);
      s.array(result.topics, [&](auto& topic) {
        s.str(topic.name);
        s.array(topic.partitions, [&](auto& partition) {
          s.i32(partition.partition_index);
          s.i64(partition.partition_size);
          s.i64(partition.offset_lag);
          s.boolean(partition.is_future_key);
          s.tags();
        });
        s.tags();
      });
      if (s.version >= 4) {
        s.i64(result.total_bytes);
        s.i64(result.usable_bytes);
      }
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
