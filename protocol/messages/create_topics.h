// CreateTopics (key 19), v0-v7: creates topics with partition counts and configs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct CreateTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kCreateTopics;
  struct CreatableReplicaAssignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
  };
  struct CreatableTopicConfig {
    std::string_view name;
    std::optional<std::string_view> value;
  };
  struct CreatableTopic {
    std::string_view name;
    int32_t num_partitions = 0;
    int16_t replication_factor = 0;
    std::vector<CreatableReplicaAssignment> assignments;
    std::vector<CreatableTopicConfig> configs;
  };
  std::vector<CreatableTopic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.i32(topic.num_partitions);
      s.i16(topic.replication_factor);
      s.array(topic.assignments, [&](auto& assignment) {
        s.i32(assignment.partition_index);
        s.array_i32(assignment.broker_ids);
        s.tags();
      });
      s.array(topic.configs, [&](auto& config) {
        s.str(config.name);
        s.nstr(config.value);
        s.tags();
      });
      s.tags();
    });
    s.i32(m.timeout_ms);
    if (s.version >= 1) s.boolean(m.validate_only);
    s.tags();
  }
};

struct CreateTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kCreateTopics;
  struct CreatableTopicConfigs {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    int8_t config_source = -1;
    bool is_sensitive = false;
  };
  struct CreatableTopicResult {
    std::string name;
    Uuid topic_id;  // v7+
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;  // v1+
    int32_t num_partitions = -1;  // v5+
    int16_t replication_factor = -1;  // v5+
    std::optional<std::vector<CreatableTopicConfigs>> configs;  // v5+
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<CreatableTopicResult> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 2) s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      if (s.version >= 7) s.uuid(topic.topic_id);
      s.i16(topic.error_code);
      if (s.version >= 1) s.nstr(topic.error_message);
      if (s.version >= 5) {
        s.i32(topic.num_partitions);
        s.i16(topic.replication_factor);
        s.narray(topic.configs, [&](auto& config) {
          s.str(config.name);
          s.nstr(config.value);
          s.boolean(config.read_only);
          s.i8(config.config_source);
          s.boolean(config.is_sensitive);
          s.tags();
        });
      }
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
