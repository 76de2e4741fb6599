// SaslHandshake (key 17), v0-v1: chooses a SASL mechanism.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct SaslHandshakeRequest {
  static constexpr ApiKey kApiKey = ApiKey::kSaslHandshake;
  std::string_view mechanism;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.mechanism);
    s.tags();
  }
};

struct SaslHandshakeResponse {
  static constexpr ApiKey kApiKey = ApiKey::kSaslHandshake;
  ErrorCode error_code = ErrorCode::kNone;
  std::vector<std::string> mechanisms;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i16(m.error_code);
    s.array_str(m.mechanisms);
    s.tags();
  }
};

}  // namespace rokka::protocol
