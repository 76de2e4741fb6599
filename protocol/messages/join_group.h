// JoinGroup (key 11), v0-v9: joins a consumer group and starts or waits for a rebalance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct JoinGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::kJoinGroup;
  struct JoinGroupRequestProtocol {
    std::string_view name;
    Bytes metadata;
  };
  std::string_view group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;  // v1+
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // v5+
  std::string_view protocol_type;
  std::vector<JoinGroupRequestProtocol> protocols;
  std::optional<std::string_view> reason;  // v8+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    s.i32(m.session_timeout_ms);
    if (s.version >= 1) s.i32(m.rebalance_timeout_ms);
    s.str(m.member_id);
    if (s.version >= 5) s.nstr(m.group_instance_id);
    s.str(m.protocol_type);
    s.array(m.protocols, [&](auto& protocol) {
      s.str(protocol.name);
      s.bytes(protocol.metadata);
      s.tags();
    });
    if (s.version >= 8) s.nstr(m.reason);
    s.tags();
  }
};

struct JoinGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::kJoinGroup;
  struct JoinGroupResponseMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v5+
    std::vector<std::byte> metadata;
  };
  int32_t throttle_time_ms = 0;  // v2+
  ErrorCode error_code = ErrorCode::kNone;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;  // v7+
  std::optional<std::string> protocol_name;  // null only from v7
  std::string leader;
  bool skip_assignment = false;  // v9+
  std::string member_id;
  std::vector<JoinGroupResponseMember> members;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 2) s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.i32(m.generation_id);
    if (s.version >= 7) s.nstr(m.protocol_type);
    s.nstr(m.protocol_name);
    s.str(m.leader);
    if (s.version >= 9) s.boolean(m.skip_assignment);
    s.str(m.member_id);
    s.array(m.members, [&](auto& member) {
      s.str(member.member_id);
      if (s.version >= 5) s.nstr(member.group_instance_id);
      s.bytes(member.metadata);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
