// DescribeConfigs (key 32), v0-v4: reads topic or broker configs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeConfigs;
  struct DescribeConfigsResource {
    int8_t resource_type = 0;
    std::string_view resource_name;
    std::optional<std::vector<std::string_view>> configuration_keys;
  };
  std::vector<DescribeConfigsResource> resources;
  bool include_synonyms = false;  // v1+
  bool include_documentation = false;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.resources, [&](auto& resource) {
      s.i8(resource.resource_type);
      s.str(resource.resource_name);
      s.narray(resource.configuration_keys, [&](auto& key) { s.str(key); });
      s.tags();
    });
    if (s.version >= 1) s.boolean(m.include_synonyms);
    if (s.version >= 3) s.boolean(m.include_documentation);
    s.tags();
  }
};

struct DescribeConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeConfigs;
  struct DescribeConfigsSynonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;
  };
  struct DescribeConfigsResourceResult {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;  // v0
    int8_t config_source = -1;  // v1+
    bool is_sensitive = false;
    std::vector<DescribeConfigsSynonym> synonyms;  // v1+
    int8_t config_type = 0;  // v3+
    std::optional<std::string> documentation;  // v3+
  };
  struct DescribeConfigsResult {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<DescribeConfigsResourceResult> configs;
  };
  int32_t throttle_time_ms = 0;
  std::vector<DescribeConfigsResult> results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.results, [&](auto& result) {
      s.i16(result.error_code);
      s.nstr(result.error_message);
      s.i8(result.resource_type);
      s.str(result.resource_name);
      s.array(result.configs, [&](auto& config) {
        s.str(config.name);
        s.nstr(config.value);
        s.boolean(config.read_only);
        if (s.version == 0) s.boolean(config.is_default);
        if (s.version >= 1) s.i8(config.config_source);
        s.boolean(config.is_sensitive);
        if (s.version >= 1) {
          s.array(config.synonyms, [&](auto& synonym) {
            s.str(synonym.name);
            s.nstr(synonym.value);
            s.i8(synonym.source);
            s.tags();
          });
        }
        if (s.version >= 3) {
          s.i8(config.config_type);
          s.nstr(config.documentation);
        }
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
