// AlterUserScramCredentials (key 51), v0 (flexible): deletes and upserts SCRAM
// credentials. An upsertion carries the client's salt and salted password
// (Hi(password, salt, iterations)), never the password itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct AlterUserScramCredentialsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kAlterUserScramCredentials;
  struct ScramCredentialDeletion {
    std::string_view name;
    int8_t mechanism = 0;
  };
  struct ScramCredentialUpsertion {
    std::string_view name;
    int8_t mechanism = 0;
    int32_t iterations = 0;
    Bytes salt;
    Bytes salted_password;
  };
  std::vector<ScramCredentialDeletion> deletions;
  std::vector<ScramCredentialUpsertion> upsertions;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.deletions, [&](auto& deletion) {
      s.str(deletion.name);
      s.i8(deletion.mechanism);
      s.tags();
    });
    s.array(m.upsertions, [&](auto& upsertion) {
      s.str(upsertion.name);
      s.i8(upsertion.mechanism);
      s.i32(upsertion.iterations);
      s.bytes(upsertion.salt);
      s.bytes(upsertion.salted_password);
      s.tags();
    });
    s.tags();
  }
};

struct AlterUserScramCredentialsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kAlterUserScramCredentials;
  struct AlterUserScramCredentialsResult {
    std::string user;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<AlterUserScramCredentialsResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.results, [&](auto& result) {
      s.str(result.user);
      s.i16(result.error_code);
      s.nstr(result.error_message);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
