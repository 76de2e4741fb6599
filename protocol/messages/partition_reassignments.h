// AlterPartitionReassignments (key 45) and ListPartitionReassignments (key 46), v0:
// move partitions' replicas between brokers, and list the moves in progress.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct AlterPartitionReassignmentsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kAlterPartitionReassignments;
  struct ReassignablePartition {
    int32_t partition_index = 0;
    std::optional<std::vector<int32_t>> replicas;  // null: cancel the reassignment
  };
  struct ReassignableTopic {
    std::string_view name;
    std::vector<ReassignablePartition> partitions;
  };
  int32_t timeout_ms = 60000;
  std::vector<ReassignableTopic> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.timeout_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.narray(partition.replicas, [&](auto& replica) { s.i32(replica); });
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct AlterPartitionReassignmentsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kAlterPartitionReassignments;
  struct ReassignablePartitionResponse {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
  };
  struct ReassignableTopicResponse {
    std::string name;
    std::vector<ReassignablePartitionResponse> partitions;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::vector<ReassignableTopicResponse> responses;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.array(m.responses, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i16(partition.error_code);
        s.nstr(partition.error_message);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct ListPartitionReassignmentsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kListPartitionReassignments;
  struct ListPartitionReassignmentsTopics {
    std::string_view name;
    std::vector<int32_t> partition_indexes;
  };
  int32_t timeout_ms = 60000;
  std::optional<std::vector<ListPartitionReassignmentsTopics>> topics;  // null: every partition

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.timeout_ms);
    s.narray(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array_i32(topic.partition_indexes);
      s.tags();
    });
    s.tags();
  }
};

struct ListPartitionReassignmentsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kListPartitionReassignments;
  struct OngoingPartitionReassignment {
    int32_t partition_index = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;
    std::vector<int32_t> removing_replicas;
  };
  struct OngoingTopicReassignment {
    std::string name;
    std::vector<OngoingPartitionReassignment> partitions;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::vector<OngoingTopicReassignment> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.array_i32(partition.replicas);
        s.array_i32(partition.adding_replicas);
        s.array_i32(partition.removing_replicas);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
