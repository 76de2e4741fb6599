// ACL bindings as Kafka defines them (KIP-140, KIP-290): the enums with Kafka's wire
// codes, a binding (resource pattern + access control entry), a filter over bindings
// with ANY/MATCH semantics, and the validation CreateAcls applies. Pure values and
// functions: the Authorizer (authorizer.h) stores bindings and decides requests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rokka::broker {

// Wire codes of Kafka's ResourceType.
enum class ResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,
  kTransactionalId = 5,
  kDelegationToken = 6,
  kUser = 7,
};

// Wire codes of Kafka's PatternType.
enum class PatternType : int8_t {
  kUnknown = 0,
  kAny = 1,    // filters only: any pattern type, names compared exactly
  kMatch = 2,  // filters only: the patterns that would apply to the named resource
  kLiteral = 3,
  kPrefixed = 4,
};

// Wire codes of Kafka's AclOperation.
enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kAll = 2,
  kRead = 3,
  kWrite = 4,
  kCreate = 5,
  kDelete = 6,
  kAlter = 7,
  kDescribe = 8,
  kClusterAction = 9,
  kDescribeConfigs = 10,
  kAlterConfigs = 11,
  kIdempotentWrite = 12,
  kCreateTokens = 13,
  kDescribeTokens = 14,
};

// Wire codes of Kafka's AclPermissionType.
enum class AclPermission : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kDeny = 2,
  kAllow = 3,
};

// The one name a CLUSTER resource has.
inline constexpr std::string_view kClusterResourceName = "kafka-cluster";
// A literal resource name, principal or host that matches every one.
inline constexpr std::string_view kWildcard = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";

struct AclBinding {
  ResourceType resource_type = ResourceType::kUnknown;
  std::string resource_name;
  PatternType pattern_type = PatternType::kLiteral;
  std::string principal;  // "User:alice"
  std::string host;       // an IP address, or "*"
  AclOperation operation = AclOperation::kUnknown;
  AclPermission permission = AclPermission::kUnknown;

  auto operator<=>(const AclBinding&) const = default;
};

// DescribeAcls/DeleteAcls filter: an absent name/principal/host matches any value.
struct AclFilter {
  ResourceType resource_type = ResourceType::kAny;
  std::optional<std::string> resource_name;
  PatternType pattern_type = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermission permission = AclPermission::kAny;
};

// Wire values to enums: codes outside Kafka's range become kUnknown (as Kafka reads them).
ResourceType to_resource_type(int8_t code);
PatternType to_pattern_type(int8_t code);
AclOperation to_acl_operation(int8_t code);
AclPermission to_acl_permission(int8_t code);

// Why a binding cannot be created (CreateAcls answers INVALID_REQUEST with it), or
// nullopt when it is valid: concrete enum values only (no UNKNOWN/ANY/MATCH), a
// non-empty resource name, "kafka-cluster" for CLUSTER, a "Type:name" principal.
// The host is not checked (as in Kafka): "*" or an address.
std::optional<std::string> validate_binding(const AclBinding& binding);
// Why a filter is unusable (UNKNOWN values), or nullopt.
std::optional<std::string> validate_filter(const AclFilter& filter);

// Kafka's filter semantics: type ANY matches every type; pattern ANY matches every
// pattern type with the name compared exactly; MATCH matches the patterns that apply
// to the named resource (that literal name, the literal wildcard "*", prefixes of it);
// principal/host/operation/permission compare exactly unless absent or ANY.
bool filter_matches(const AclFilter& filter, const AclBinding& binding);

// Whether the binding's resource pattern covers resource (type, name).
bool pattern_covers(const AclBinding& binding, ResourceType type, std::string_view name);

// Whether an ALLOW binding for `granted` permits `requested`: the same operation, ALL,
// or an implied one (DESCRIBE by READ/WRITE/DELETE/ALTER, DESCRIBE_CONFIGS by ALTER_CONFIGS).
bool allow_grants(AclOperation granted, AclOperation requested);

}  // namespace rokka::broker
