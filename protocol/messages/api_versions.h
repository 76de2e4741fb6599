// ApiVersions (key 18), v0-v3. The broker answers any version: an unknown one gets
// UNSUPPORTED_VERSION with a v0 body that still lists the supported ranges (KIP-511).
#pragma once

#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct ApiVersionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kApiVersions;
  std::string_view client_software_name;     // v3+
  std::string_view client_software_version;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 3) {
      s.str(m.client_software_name);
      s.str(m.client_software_version);
    }
    s.tags();
  }
};

struct ApiVersionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kApiVersions;
  struct ApiVersion {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;
  };
  int16_t error_code = 0;
  std::vector<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;  // v1+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i16(m.error_code);
    s.array(m.api_keys, [&](auto& k) {
      s.i16(k.api_key);
      s.i16(k.min_version);
      s.i16(k.max_version);
      s.tags();
    });
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    s.tags();  // SupportedFeatures etc. are optional tagged fields: none sent
  }
};

}  // namespace rokka::protocol
