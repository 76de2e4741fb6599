// DeleteTopics (key 20), v0-v6: deletes topics by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DeleteTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteTopics;
  struct DeleteTopicState {
    std::optional<std::string_view> name;
    Uuid topic_id;
  };
  std::vector<DeleteTopicState> topics;  // v6+
  std::vector<std::string_view> topic_names;  // v0-5
  int32_t timeout_ms = 0;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 6) {
      s.array(m.topics, [&](auto& topic) {
        s.nstr(topic.name);
        s.uuid(topic.topic_id);
        s.tags();
      });
    }
    if (s.version <= 5) s.array_str(m.topic_names);
    s.i32(m.timeout_ms);
    s.tags();
  }
};

struct DeleteTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteTopics;
  struct DeletableTopicResult {
    std::optional<std::string> name;  // null only from v6 (deleted by id)
    Uuid topic_id;  // v6+
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;  // v5+
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<DeletableTopicResult> responses;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.array(m.responses, [&](auto& topic) {
      s.nstr(topic.name);
      if (s.version >= 6) s.uuid(topic.topic_id);
      s.i16(topic.error_code);
      if (s.version >= 5) s.nstr(topic.error_message);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
