// DescribeGroups (key 15), v0-v6: state, protocol and members of groups (v6, KIP-1043: an
// unknown group is GROUP_ID_NOT_FOUND with an error message, not a Dead group).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeGroups;
  std::vector<std::string_view> groups;
  bool include_authorized_operations = false;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array_str(m.groups);
    if (s.version >= 3) s.boolean(m.include_authorized_operations);
    s.tags();
  }
};

struct DescribeGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeGroups;
  struct DescribedGroupMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v4+
    std::string client_id;
    std::string client_host;
    std::vector<std::byte> member_metadata;
    std::vector<std::byte> member_assignment;
  };
  struct DescribedGroup {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;  // v6+
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;
    std::vector<DescribedGroupMember> members;
    int32_t authorized_operations = std::numeric_limits<int32_t>::min();  // v3+
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<DescribedGroup> groups;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.array(m.groups, [&](auto& group) {
      s.i16(group.error_code);
      if (s.version >= 6) s.nstr(group.error_message);
      s.str(group.group_id);
      s.str(group.group_state);
      s.str(group.protocol_type);
      s.str(group.protocol_data);
      s.array(group.members, [&](auto& member) {
        s.str(member.member_id);
        if (s.version >= 4) s.nstr(member.group_instance_id);
        s.str(member.client_id);
        s.str(member.client_host);
        s.bytes(member.member_metadata);
        s.bytes(member.member_assignment);
        s.tags();
      });
      if (s.version >= 3) s.i32(group.authorized_operations);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
