// Heartbeat (key 12), v0-v4: keeps a member alive and tells it about rebalances.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "protocol/message.h"

namespace rokka::protocol {

struct HeartbeatRequest {
  static constexpr ApiKey kApiKey = ApiKey::kHeartbeat;
  std::string_view group_id;
  int32_t generation_id = 0;
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    s.i32(m.generation_id);
    s.str(m.member_id);
    if (s.version >= 3) s.nstr(m.group_instance_id);
    s.tags();
  }
};

struct HeartbeatResponse {
  static constexpr ApiKey kApiKey = ApiKey::kHeartbeat;
  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::kNone;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.tags();
  }
};

}  // namespace rokka::protocol
