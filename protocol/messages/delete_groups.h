// DeleteGroups (key 42), v0-v2: deletes empty groups and their offsets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DeleteGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteGroups;
  std::vector<std::string_view> groups_names;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array_str(m.groups_names);
    s.tags();
  }
};

struct DeleteGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteGroups;
  struct DeletableGroupResult {
    std::string group_id;
    ErrorCode error_code = ErrorCode::kNone;
  };
  int32_t throttle_time_ms = 0;
  std::vector<DeletableGroupResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.results, [&](auto& group) {
      s.str(group.group_id);
      s.i16(group.error_code);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
