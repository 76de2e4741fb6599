// CreatePartitions (key 37), v0-v3: raises a topic's partition count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct CreatePartitionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kCreatePartitions;
  struct CreatePartitionsAssignment {
    std::vector<int32_t> broker_ids;
  };
  struct CreatePartitionsTopic {
    std::string_view name;
    int32_t count = 0;
    std::optional<std::vector<CreatePartitionsAssignment>> assignments;
  };
  std::vector<CreatePartitionsTopic> topics;
  int32_t timeout_ms = 0;
  bool validate_only = false;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.i32(topic.count);
      s.narray(topic.assignments, [&](auto& assignment) {
        s.array_i32(assignment.broker_ids);
        s.tags();
      });
      s.tags();
    });
    s.i32(m.timeout_ms);
    s.boolean(m.validate_only);
    s.tags();
  }
};

struct CreatePartitionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kCreatePartitions;
  struct CreatePartitionsTopicResult {
    std::string name;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<CreatePartitionsTopicResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.results, [&](auto& partition) {
      s.str(partition.name);
      s.i16(partition.error_code);
      s.nstr(partition.error_message);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
