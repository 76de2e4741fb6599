// TxnOffsetCommit (key 28), v0-v3: commits offsets inside a transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct TxnOffsetCommitRequest {
  static constexpr ApiKey kApiKey = ApiKey::kTxnOffsetCommit;
  struct TxnOffsetCommitRequestPartition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v2+
    std::optional<std::string_view> committed_metadata;
  };
  struct TxnOffsetCommitRequestTopic {
    std::string_view name;
    std::vector<TxnOffsetCommitRequestPartition> partitions;
  };
  std::string_view transactional_id;
  std::string_view group_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t generation_id = -1;  // v3+
  std::string_view member_id;  // v3+
  std::optional<std::string_view> group_instance_id;  // v3+
  std::vector<TxnOffsetCommitRequestTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.transactional_id);
    s.str(m.group_id);
    s.i64(m.producer_id);
    s.i16(m.producer_epoch);
    if (s.version >= 3) {
      s.i32(m.generation_id);
      s.str(m.member_id);
      s.nstr(m.group_instance_id);
    }
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i64(partition.committed_offset);
        if (s.version >= 2) s.i32(partition.committed_leader_epoch);
        s.nstr(partition.committed_metadata);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct TxnOffsetCommitResponse {
  static constexpr ApiKey kApiKey = ApiKey::kTxnOffsetCommit;
  struct TxnOffsetCommitResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct TxnOffsetCommitResponseTopic {
    std::string name;
    std::vector<TxnOffsetCommitResponsePartition> partitions;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TxnOffsetCommitResponseTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
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
