// SyncGroup (key 14), v0-v5: the leader hands out assignments; every member receives its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct SyncGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::kSyncGroup;
  struct SyncGroupRequestAssignment {
    std::string_view member_id;
    Bytes assignment;
  };
  std::string_view group_id;
  int32_t generation_id = 0;
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // v3+
  std::optional<std::string_view> protocol_type;  // v5+
  std::optional<std::string_view> protocol_name;  // v5+
  std::vector<SyncGroupRequestAssignment> assignments;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    s.i32(m.generation_id);
    s.str(m.member_id);
    if (s.version >= 3) s.nstr(m.group_instance_id);
    if (s.version >= 5) {
      s.nstr(m.protocol_type);
      s.nstr(m.protocol_name);
    }
    s.array(m.assignments, [&](auto& assignment) {
      s.str(assignment.member_id);
      s.bytes(assignment.assignment);
      s.tags();
    });
    s.tags();
  }
};

struct SyncGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::kSyncGroup;
  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> protocol_type;  // v5+
  std::optional<std::string> protocol_name;  // v5+
  std::vector<std::byte> assignment;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    if (s.version >= 5) {
      s.nstr(m.protocol_type);
      s.nstr(m.protocol_name);
    }
    s.bytes(m.assignment);
    s.tags();
  }
};

}  // namespace rokka::protocol
