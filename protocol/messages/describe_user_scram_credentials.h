// DescribeUserScramCredentials (key 50), v0 (flexible): the SCRAM mechanisms and
// iteration counts stored for users; never salts or keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeUserScramCredentialsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeUserScramCredentials;
  struct UserName {
    std::string_view name;
  };
  std::optional<std::vector<UserName>> users;  // null or empty: every user with a credential

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.narray(m.users, [&](auto& user) {
      s.str(user.name);
      s.tags();
    });
    s.tags();
  }
};

struct DescribeUserScramCredentialsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeUserScramCredentials;
  struct CredentialInfo {
    int8_t mechanism = 0;
    int32_t iterations = 0;
  };
  struct DescribeUserScramCredentialsResult {
    std::string user;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    std::vector<CredentialInfo> credential_infos;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::vector<DescribeUserScramCredentialsResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.array(m.results, [&](auto& result) {
      s.str(result.user);
      s.i16(result.error_code);
      s.nstr(result.error_message);
      s.array(result.credential_infos, [&](auto& info) {
        s.i8(info.mechanism);
        s.i32(info.iterations);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
