// SaslAuthenticate (key 36), v0-v2: one SASL token each way, after SaslHandshake v1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct SaslAuthenticateRequest {
  static constexpr ApiKey kApiKey = ApiKey::kSaslAuthenticate;
  Bytes auth_bytes;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.bytes(m.auth_bytes);
    s.tags();
  }
};

struct SaslAuthenticateResponse {
  static constexpr ApiKey kApiKey = ApiKey::kSaslAuthenticate;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::vector<std::byte> auth_bytes;
  int64_t session_lifetime_ms = 0;  // v1+: 0 = the session does not expire

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.bytes(m.auth_bytes);
    if (s.version >= 1) s.i64(m.session_lifetime_ms);
    s.tags();
  }
};

}  // namespace rokka::protocol
