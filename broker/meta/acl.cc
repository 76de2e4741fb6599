#include "broker/meta/acl.h"

namespace rokka::broker {
namespace {

template <typename E>
E enum_or_unknown(int8_t code, E max) {
  return code < 0 || code > static_cast<int8_t>(max) ? E{} : static_cast<E>(code);
}

}  // namespace

ResourceType to_resource_type(int8_t code) { return enum_or_unknown(code, ResourceType::kUser); }
PatternType to_pattern_type(int8_t code) { return enum_or_unknown(code, PatternType::kPrefixed); }
AclOperation to_acl_operation(int8_t code) { return enum_or_unknown(code, AclOperation::kDescribeTokens); }
AclPermission to_acl_permission(int8_t code) { return enum_or_unknown(code, AclPermission::kAllow); }

std::optional<std::string> validate_binding(const AclBinding& b) {
  if (b.resource_type == ResourceType::kUnknown || b.resource_type == ResourceType::kAny)
    return "invalid resource type";
  if (b.pattern_type != PatternType::kLiteral && b.pattern_type != PatternType::kPrefixed)
    return "invalid pattern type: only LITERAL and PREFIXED bindings can be created";
  if (b.operation == AclOperation::kUnknown || b.operation == AclOperation::kAny) return "invalid operation";
  if (b.permission != AclPermission::kAllow && b.permission != AclPermission::kDeny)
    return "invalid permission type";
  if (b.resource_name.empty()) return "invalid empty resource name";
  if (b.resource_type == ResourceType::kCluster &&
      (b.resource_name != kClusterResourceName || b.pattern_type != PatternType::kLiteral))
    return "the only valid CLUSTER resource is the literal name kafka-cluster";
  if (b.principal.find(':') == std::string::npos)
    return "could not parse principal '" + b.principal + "' (no colon separates its type from its name)";
  return std::nullopt;
}

std::optional<std::string> validate_filter(const AclFilter& f) {
  if (f.resource_type == ResourceType::kUnknown || f.pattern_type == PatternType::kUnknown ||
      f.operation == AclOperation::kUnknown || f.permission == AclPermission::kUnknown)
    return "filter contains UNKNOWN elements";
  return std::nullopt;
}

bool pattern_covers(const AclBinding& b, ResourceType type, std::string_view name) {
  if (b.resource_type != type) return false;
  switch (b.pattern_type) {
    case PatternType::kLiteral: return b.resource_name == name || b.resource_name == kWildcard;
    case PatternType::kPrefixed: return name.starts_with(b.resource_name);
    case PatternType::kUnknown:
    case PatternType::kAny:
    case PatternType::kMatch: return false;
  }
  return false;
}

bool filter_matches(const AclFilter& f, const AclBinding& b) {
  if (f.resource_type != ResourceType::kAny && f.resource_type != b.resource_type) return false;
  if (f.pattern_type != PatternType::kAny && f.pattern_type != PatternType::kMatch &&
      f.pattern_type != b.pattern_type)
    return false;
  if (f.resource_name) {
    const bool exact = f.pattern_type != PatternType::kMatch;
    if (exact ? *f.resource_name != b.resource_name : !pattern_covers(b, b.resource_type, *f.resource_name))
      return false;
  }
  if (f.principal && *f.principal != b.principal) return false;
  if (f.host && *f.host != b.host) return false;
  if (f.operation != AclOperation::kAny && f.operation != b.operation) return false;
  if (f.permission != AclPermission::kAny && f.permission != b.permission) return false;
  return true;
}

bool allow_grants(AclOperation granted, AclOperation requested) {
  if (granted == requested || granted == AclOperation::kAll) return true;
  switch (requested) {
    case AclOperation::kDescribe:
      return granted == AclOperation::kRead || granted == AclOperation::kWrite || granted == AclOperation::kDelete ||
             granted == AclOperation::kAlter;
    case AclOperation::kDescribeConfigs: return granted == AclOperation::kAlterConfigs;
    default: return false;
  }
}

}  // namespace rokka::broker
