// LeaveGroup (key 13), v0-v5: removes members from a group (batched from v3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct LeaveGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::kLeaveGroup;
  struct MemberIdentity {
    std::string_view member_id;
    std::optional<std::string_view> group_instance_id;
    std::optional<std::string_view> reason;  // v5+
  };
  std::string_view group_id;
  std::string_view member_id;  // v0-2
  std::vector<MemberIdentity> members;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    if (s.version <= 2) s.str(m.member_id);
    if (s.version >= 3) {
      s.array(m.members, [&](auto& member) {
        s.str(member.member_id);
        s.nstr(member.group_instance_id);
        if (s.version >= 5) s.nstr(member.reason);
        s.tags();
      });
    }
    s.tags();
  }
};

struct LeaveGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::kLeaveGroup;
  struct MemberResponse {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    ErrorCode error_code = ErrorCode::kNone;
  };
  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::kNone;
  std::vector<MemberResponse> members;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    if (s.version >= 3) {
      s.array(m.members, [&](auto& member) {
        s.str(member.member_id);
        s.nstr(member.group_instance_id);
        s.i16(member.error_code);
        s.tags();
      });
    }
    s.tags();
  }
};

}  // namespace rokka::protocol
