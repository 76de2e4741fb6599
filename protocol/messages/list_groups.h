// ListGroups (key 16), v0-v5: lists the groups a broker coordinates (state filter from v4,
// type filter and each group's type from v5, KIP-848).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct ListGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kListGroups;
  std::vector<std::string_view> states_filter;  // v4+
  std::vector<std::string_view> types_filter;   // v5+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 4) s.array_str(m.states_filter);
    if (s.version >= 5) s.array_str(m.types_filter);
    s.tags();
  }
};

struct ListGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kListGroups;
  struct ListedGroup {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;  // v4+
    std::string group_type;   // v5+
  };
  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::kNone;
  std::vector<ListedGroup> groups;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.array(m.groups, [&](auto& group) {
      s.str(group.group_id);
      s.str(group.protocol_type);
      if (s.version >= 4) s.str(group.group_state);
      if (s.version >= 5) s.str(group.group_type);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
