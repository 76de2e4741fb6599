// DescribeAcls (key 29), v0-v3: lists ACLs matching a filter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeAclsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeAcls;
  int8_t resource_type_filter = 0;
  std::optional<std::string_view> resource_name_filter;
  int8_t pattern_type_filter = 3;  // v1+
  std::optional<std::string_view> principal_filter;
  std::optional<std::string_view> host_filter;
  int8_t operation = 0;
  int8_t permission_type = 0;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i8(m.resource_type_filter);
    s.nstr(m.resource_name_filter);
    if (s.version >= 1) s.i8(m.pattern_type_filter);
    s.nstr(m.principal_filter);
    s.nstr(m.host_filter);
    s.i8(m.operation);
    s.i8(m.permission_type);
    s.tags();
  }
};

struct DescribeAclsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeAcls;
  struct AclDescription {
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  struct DescribeAclsResource {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = 3;  // v1+
    std::vector<AclDescription> acls;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::vector<DescribeAclsResource> resources;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.array(m.resources, [&](auto& resource) {
      s.i8(resource.resource_type);
      s.str(resource.resource_name);
      if (s.version >= 1) s.i8(resource.pattern_type);
      s.array(resource.acls, [&](auto& acl) {
        s.str(acl.principal);
        s.str(acl.host);
        s.i8(acl.operation);
        s.i8(acl.permission_type);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
