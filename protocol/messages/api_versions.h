// ApiVersions (key 18), v0-v4. The broker answers any version: an unknown one gets
// UNSUPPORTED_VERSION with a v0 body that still lists the supported ranges (KIP-511).
// v3+ carries the feature levels (KIP-584) in tagged fields; v4 only lifts v3's rule
// that a supported feature whose minimum is 0 be left out (KAFKA-17011).
#pragma once

#include <cstdint>
#include <string>
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
  struct SupportedFeatureKey {
    std::string name;
    int16_t min_version = 0;
    int16_t max_version = 0;
  };
  struct FinalizedFeatureKey {
    std::string name;
    int16_t max_version_level = 0;
    int16_t min_version_level = 0;
  };
  ErrorCode error_code = ErrorCode::kNone;
  std::vector<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<SupportedFeatureKey> supported_features;  // v3+, tag 0
  int64_t finalized_features_epoch = -1;                // v3+, tag 1; -1: unknown
  std::vector<FinalizedFeatureKey> finalized_features;  // v3+, tag 2
  // Tag 3 (ZkMigrationReady, a KRaft controller's) is skipped as unknown.

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
    s.tags(tagged(0, !m.supported_features.empty(),
                  [&](auto& t) {
                    t.array(m.supported_features, [&](auto& f) {
                      t.str(f.name);
                      t.i16(f.min_version);
                      t.i16(f.max_version);
                      t.tags();
                    });
                  }),
           tagged(1, m.finalized_features_epoch != -1, [&](auto& t) { t.i64(m.finalized_features_epoch); }),
           tagged(2, !m.finalized_features.empty(), [&](auto& t) {
             t.array(m.finalized_features, [&](auto& f) {
               t.str(f.name);
               t.i16(f.max_version_level);
               t.i16(f.min_version_level);
               t.tags();
             });
           }));
  }
};

}  // namespace rokka::protocol
