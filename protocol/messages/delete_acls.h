// DeleteAcls (key 31), v0-v3: deletes ACLs matching filters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DeleteAclsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteAcls;
  struct DeleteAclsFilter {
    int8_t resource_type_filter = 0;
    std::optional<std::string_view> resource_name_filter;
    int8_t pattern_type_filter = 3;  // v1+
    std::optional<std::string_view> principal_filter;
    std::optional<std::string_view> host_filter;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  std::vector<DeleteAclsFilter> filters;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.filters, [&](auto& acl) {
      s.i8(acl.resource_type_filter);
      s.nstr(acl.resource_name_filter);
      if (s.version >= 1) s.i8(acl.pattern_type_filter);
      s.nstr(acl.principal_filter);
      s.nstr(acl.host_filter);
      s.i8(acl.operation);
      s.i8(acl.permission_type);
      s.tags();
    });
    s.tags();
  }
};

struct DeleteAclsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDeleteAcls;
  struct DeleteAclsMatchingAcl {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = 3;  // v1+
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  struct DeleteAclsFilterResult {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    std::vector<DeleteAclsMatchingAcl> matching_acls;
  };
  int32_t throttle_time_ms = 0;
  std::vector<DeleteAclsFilterResult> filter_results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.filter_results, [&](auto& result) {
      s.i16(result.error_code);
      s.nstr(result.error_message);
      s.array(result.matching_acls, [&](auto& acl) {
        s.i16(acl.error_code);
        s.nstr(acl.error_message);
        s.i8(acl.resource_type);
        s.str(acl.resource_name);
        if (s.version >= 1) s.i8(acl.pattern_type);
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
