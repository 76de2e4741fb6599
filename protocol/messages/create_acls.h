// CreateAcls (key 30), v0-v3: creates ACLs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct CreateAclsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kCreateAcls;
  struct AclCreation {
    int8_t resource_type = 0;
    std::string_view resource_name;
    int8_t resource_pattern_type = 3;  // v1+
    std::string_view principal;
    std::string_view host;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  std::vector<AclCreation> creations;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.creations, [&](auto& creation) {
      s.i8(creation.resource_type);
      s.str(creation.resource_name);
      if (s.version >= 1) s.i8(creation.resource_pattern_type);
      s.str(creation.principal);
      s.str(creation.host);
      s.i8(creation.operation);
      s.i8(creation.permission_type);
      s.tags();
    });
    s.tags();
  }
};

struct CreateAclsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kCreateAcls;
  struct AclCreationResult {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<AclCreationResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.results, [&](auto& result) {
      s.i16(result.error_code);
      s.nstr(result.error_message);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
