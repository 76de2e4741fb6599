// AlterConfigs (key 33), v0-v2: replaces the whole config set of a resource.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct AlterConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kAlterConfigs;
  struct AlterableConfig {
    std::string_view name;
    std::optional<std::string_view> value;
  };
  struct AlterConfigsResource {
    int8_t resource_type = 0;
    std::string_view resource_name;
    std::vector<AlterableConfig> configs;
  };
  std::vector<AlterConfigsResource> resources;
  bool validate_only = false;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.resources, [&](auto& resource) {
      s.i8(resource.resource_type);
      s.str(resource.resource_name);
      s.array(resource.configs, [&](auto& config) {
        s.str(config.name);
        s.nstr(config.value);
        s.tags();
      });
      s.tags();
    });
    s.boolean(m.validate_only);
    s.tags();
  }
};

struct AlterConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kAlterConfigs;
  struct AlterConfigsResourceResponse {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
  };
  int32_t throttle_time_ms = 0;
  std::vector<AlterConfigsResourceResponse> responses;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.responses, [&](auto& config) {
      s.i16(config.error_code);
      s.nstr(config.error_message);
      s.i8(config.resource_type);
      s.str(config.resource_name);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
