// DescribeClientQuotas (key 48) and AlterClientQuotas (key 49), v0-1 (v1 flexible):
// read and change the byte-rate, request and connection-rate quotas of users, client
// ids and IPs (what kafka-configs.sh --entity-type users/clients/ips sends).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

// One (type, name) part of a quota entity; a null name is the type's default entity.
template <class String, class NullableString>
struct QuotaEntityPart {
  String entity_type{};
  NullableString entity_name;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.entity_type);
    s.nstr(m.entity_name);
    s.tags();
  }
};

struct DescribeClientQuotasRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeClientQuotas;
  static constexpr int8_t kMatchExact = 0;      // the entity named `match`
  static constexpr int8_t kMatchDefault = 1;    // the type's default entity
  static constexpr int8_t kMatchSpecified = 2;  // any entity of the type
  struct Component {
    std::string_view entity_type;
    int8_t match_type = kMatchExact;
    std::optional<std::string_view> match;
  };
  std::vector<Component> components;
  bool strict = false;  // leave out entities with types the components do not name

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.components, [&](auto& c) {
      s.str(c.entity_type);
      s.i8(c.match_type);
      s.nstr(c.match);
      s.tags();
    });
    s.boolean(m.strict);
    s.tags();
  }
};

struct DescribeClientQuotasResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeClientQuotas;
  using EntityPart = QuotaEntityPart<std::string, std::optional<std::string>>;
  struct Value {
    std::string key;
    double value = 0;
  };
  struct Entry {
    std::vector<EntityPart> entity;
    std::vector<Value> values;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::optional<std::vector<Entry>> entries;  // null with an error

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.narray(m.entries, [&](auto& e) {
      s.array(e.entity, [&](auto& part) { EntityPart::fields(part, s); });
      s.array(e.values, [&](auto& v) {
        s.str(v.key);
        s.f64(v.value);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct AlterClientQuotasRequest {
  static constexpr ApiKey kApiKey = ApiKey::kAlterClientQuotas;
  using EntityPart = QuotaEntityPart<std::string_view, std::optional<std::string_view>>;
  struct Op {
    std::string_view key;
    double value = 0;     // ignored when removing
    bool remove = false;  // remove the key instead of setting it
  };
  struct Entry {
    std::vector<EntityPart> entity;
    std::vector<Op> ops;
  };
  std::vector<Entry> entries;
  bool validate_only = false;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.entries, [&](auto& e) {
      s.array(e.entity, [&](auto& part) { EntityPart::fields(part, s); });
      s.array(e.ops, [&](auto& op) {
        s.str(op.key);
        s.f64(op.value);
        s.boolean(op.remove);
        s.tags();
      });
      s.tags();
    });
    s.boolean(m.validate_only);
    s.tags();
  }
};

struct AlterClientQuotasResponse {
  static constexpr ApiKey kApiKey = ApiKey::kAlterClientQuotas;
  using EntityPart = QuotaEntityPart<std::string, std::optional<std::string>>;
  struct Entry {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    std::vector<EntityPart> entity;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Entry> entries;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.entries, [&](auto& e) {
      s.i16(e.error_code);
      s.nstr(e.error_message);
      s.array(e.entity, [&](auto& part) { EntityPart::fields(part, s); });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
