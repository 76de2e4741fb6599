// A committed offset and the partition it belongs to.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace rokka::coordinator {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  bool operator==(const TopicPartition&) const = default;
};

struct TopicPartitionHash {
  size_t operator()(const TopicPartition& tp) const {
    return std::hash<std::string>()(tp.topic) * 31 + std::hash<int32_t>()(tp.partition);
  }
};

struct CommittedOffset {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp_ms = 0;
  int64_t expire_timestamp_ms = -1;  // OffsetCommit v2-4 retention_time; -1 = the broker's retention
  bool operator==(const CommittedOffset&) const = default;
};

}  // namespace rokka::coordinator
