// DescribeTopicPartitions (key 75), v0 (flexible): topics and their partitions, paged
// (KIP-966). The request names topics (none: all) and a partition limit; a Cursor names
// the topic and partition a page starts at, and NextCursor in the response where the
// next page starts when the limit cut this one. Both are nullable structs.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeTopicPartitionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeTopicPartitions;
  struct TopicRequest {
    std::string_view name;
  };
  struct Cursor {
    std::string_view topic_name;
    int32_t partition_index = 0;
  };
  std::vector<TopicRequest> topics;  // empty: every topic
  int32_t response_partition_limit = 2000;
  std::optional<Cursor> cursor;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.tags();
    });
    s.i32(m.response_partition_limit);
    s.nstruct(m.cursor, [&](auto& cursor) {
      s.str(cursor.topic_name);
      s.i32(cursor.partition_index);
      s.tags();
    });
    s.tags();
  }
};

struct DescribeTopicPartitionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeTopicPartitions;
  struct Partition {
    ErrorCode error_code = ErrorCode::kNone;
    int32_t partition_index = 0;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::optional<std::vector<int32_t>> eligible_leader_replicas;
    std::optional<std::vector<int32_t>> last_known_elr;
    std::vector<int32_t> offline_replicas;
  };
  struct Topic {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> name;
    Uuid topic_id{};
    bool is_internal = false;
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = std::numeric_limits<int32_t>::min();
  };
  struct Cursor {
    std::string topic_name;
    int32_t partition_index = 0;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  std::optional<Cursor> next_cursor;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.i16(topic.error_code);
      s.nstr(topic.name);
      s.uuid(topic.topic_id);
      s.boolean(topic.is_internal);
      s.array(topic.partitions, [&](auto& p) {
        s.i16(p.error_code);
        s.i32(p.partition_index);
        s.i32(p.leader_id);
        s.i32(p.leader_epoch);
        s.array_i32(p.replica_nodes);
        s.array_i32(p.isr_nodes);
        s.narray(p.eligible_leader_replicas, [&](auto& id) { s.i32(id); });
        s.narray(p.last_known_elr, [&](auto& id) { s.i32(id); });
        s.array_i32(p.offline_replicas);
        s.tags();
      });
      s.i32(topic.topic_authorized_operations);
      s.tags();
    });
    s.nstruct(m.next_cursor, [&](auto& cursor) {
      s.str(cursor.topic_name);
      s.i32(cursor.partition_index);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
