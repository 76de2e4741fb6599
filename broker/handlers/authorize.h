// What a handler asks before acting on a resource: may this request's principal, from
// its host, perform `op` on it? One call into the Authorizer (broker/meta/authorizer.h);
// always yes when no authorizer is configured.
#pragma once

#include <string_view>

#include "broker/meta/acl.h"
#include "broker/meta/authorizer.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/routing.h"
#include "broker/net/request_context.h"
#include "broker/services.h"

namespace rokka::broker {

// The peer's address as ACL hosts name it: client_host without Kafka's leading '/'.
inline std::string_view acl_host(const RequestContext& ctx) {
  std::string_view host = ctx.client_host;
  if (host.starts_with('/')) host.remove_prefix(1);
  return host;
}

// A refusal is logged (rate-limited) unless `log_denial` is false: a request that only
// filters what it lists (Metadata for all topics) refuses nothing, as in Kafka.
inline bool authorized(const RequestContext& ctx, AclOperation op, ResourceType type, std::string_view name,
                       bool log_denial = true) {
  return ctx.services->authorizer.check(ctx.principal, acl_host(ctx), op, type, name, log_denial);
}

// resolve_partition() for a request that may (`allowed`) or may not act on the topic.
inline PartitionRef resolve_partition_if(const StoreSet& stores, bool allowed, const TopicPtr& topic,
                                         int32_t index) {
  if (!allowed) return {topic, 0, protocol::ErrorCode::kTopicAuthorizationFailed};
  return resolve_partition(stores, topic, index);
}

inline bool authorized_group(const RequestContext& ctx, AclOperation op, std::string_view group_id) {
  return authorized(ctx, op, ResourceType::kGroup, group_id);
}

// The first check of a group API: Read on the group, then whether this broker
// coordinates it. GROUP_AUTHORIZATION_FAILED, NOT_COORDINATOR, or kNone to go on.
inline protocol::ErrorCode group_gate(const RequestContext& ctx, std::string_view group_id) {
  if (!authorized_group(ctx, AclOperation::kRead, group_id)) return protocol::ErrorCode::kGroupAuthorizationFailed;
  return coordinates(*ctx.services, group_id) ? protocol::ErrorCode::kNone : protocol::ErrorCode::kNotCoordinator;
}
// The same for a transaction API: Write on the transactional id
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then NOT_COORDINATOR.
inline protocol::ErrorCode txn_gate(const RequestContext& ctx, std::string_view transactional_id) {
  if (!authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, transactional_id))
    return protocol::ErrorCode::kTransactionalIdAuthorizationFailed;
  return coordinates(*ctx.services, transactional_id) ? protocol::ErrorCode::kNone : protocol::ErrorCode::kNotCoordinator;
}

inline bool authorized_cluster(const RequestContext& ctx, AclOperation op) {
  return authorized(ctx, op, ResourceType::kCluster, kClusterResourceName);
}

// KIP-430 group operations (DescribeGroups, ConsumerGroupDescribe): READ, DELETE, DESCRIBE.
inline constexpr int32_t kAllGroupOperations = (1 << 3) | (1 << 6) | (1 << 8);

// The subset of `candidates` (a bit per AclOperation code, as Metadata and
// DescribeGroups report authorized operations) this request may perform on the resource.
inline int32_t authorized_operations(const RequestContext& ctx, int32_t candidates, ResourceType type,
                                     std::string_view name) {
  int32_t granted = 0;
  for (int8_t op = 0; op < 31; ++op) {
    const int32_t bit = int32_t{1} << op;
    // Computing the field refuses nothing: no denial is logged.
    if ((candidates & bit) && authorized(ctx, static_cast<AclOperation>(op), type, name, false)) granted |= bit;
  }
  return granted;
}

}  // namespace rokka::broker
