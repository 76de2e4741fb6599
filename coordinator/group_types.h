// Plain argument and result structs of the coordinator's operations, one pair per Kafka API.
// They own their data (the broker copies out of the request frame); byte blobs such as
// protocol metadata and assignments are carried in std::string. Field names follow Kafka's
// in snake_case. Nothing here depends on protocol/: broker handlers translate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coordinator/group_error.h"

namespace rokka::coordinator {

// One entry of JoinGroup's protocol list, in the member's order of preference.
struct Protocol {
  std::string name;
  std::string metadata;  // bytes
  bool operator==(const Protocol&) const = default;
};

// ---- JoinGroup (11) ----
struct JoinGroupArgs {
  std::string group_id;
  std::string member_id;                         // "" on a member's first join
  std::optional<std::string> group_instance_id;  // static membership (v5+)
  std::string protocol_type;                     // "consumer" for Kafka consumers
  std::vector<Protocol> protocols;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;             // v0 has none: -1 means "use session_timeout_ms"
  std::string client_id;                         // from the request header
  std::string client_host;                       // peer address, for DescribeGroups
  std::optional<std::string> reason;             // v8+, logged only
  int16_t api_version = 0;                       // v4+: a new member first gets MEMBER_ID_REQUIRED
};

struct JoinGroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string metadata;  // bytes: this member's metadata for the selected protocol
};

struct JoinGroupResult {
  GroupError error = GroupError::kNone;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::string leader;
  bool skip_assignment = false;          // v9+: a static leader rejoined a stable group
  std::string member_id;                 // the caller's (possibly new) member id
  std::vector<JoinGroupMember> members;  // filled for the leader only
};

// An answer that carries only its group-level `error`.
template <typename Result>
Result error_result(GroupError error) {
  Result r;
  r.error = error;
  return r;
}

// A JoinGroup answer that carries only `error` and the member id named to the caller.
inline JoinGroupResult join_error(std::string member_id, GroupError error) {
  JoinGroupResult r;
  r.error = error;
  r.member_id = std::move(member_id);
  return r;
}

// ---- SyncGroup (14) ----
struct SyncGroupAssignment {
  std::string member_id;
  std::string assignment;  // bytes
};

struct SyncGroupArgs {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  std::optional<std::string> protocol_type;      // v5+: checked against the group's
  std::optional<std::string> protocol_name;      // v5+: checked against the group's
  std::vector<SyncGroupAssignment> assignments;  // the leader's; empty from followers
};

struct SyncGroupResult {
  GroupError error = GroupError::kNone;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::string assignment;  // bytes
};

inline SyncGroupResult sync_error(GroupError error) {
  SyncGroupResult r;
  r.error = error;
  return r;
}

// ---- Heartbeat (12) ----
struct HeartbeatArgs {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
};

// ---- LeaveGroup (13) ----
// v0-2 send one member id: pass it as the only identity. The v0-2 response has no member
// list, so its error code is the top-level error, or else that one member's error.
struct MemberIdentity {
  std::string member_id;                         // "" to remove a static member by instance id
  std::optional<std::string> group_instance_id;
  std::optional<std::string> reason;             // v5+, logged only
};

struct LeaveGroupArgs {
  std::string group_id;
  std::vector<MemberIdentity> members;
};

struct LeaveMemberResult {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  GroupError error = GroupError::kNone;
};

struct LeaveGroupResult {
  GroupError error = GroupError::kNone;
  std::vector<LeaveMemberResult> members;  // one per identity, in request order
};

// ---- OffsetCommit (8) ----
struct PartitionCommit {
  int32_t partition = 0;
  int64_t offset = 0;
  int32_t leader_epoch = -1;            // v6+
  std::optional<std::string> metadata;  // null is stored as ""
};

struct TopicCommit {
  std::string topic;
  std::vector<PartitionCommit> partitions;
};

// The broker checks topics and partitions exist (UNKNOWN_TOPIC_OR_PARTITION) before calling.
struct OffsetCommitArgs {
  std::string group_id;
  int32_t generation_id = -1;  // -1 with member_id "": a simple commit (assign()-only consumer)
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v7+
  int64_t retention_time_ms = -1;                // v2-4; -1 = offsets.retention.minutes applies
  std::vector<TopicCommit> topics;
  int16_t api_version = 0;                       // a consumer-protocol member must use v9+
};

struct PartitionError {
  int32_t partition = 0;
  GroupError error = GroupError::kNone;
};

struct TopicErrors {
  std::string topic;
  std::vector<PartitionError> partitions;
};

struct OffsetCommitResult {
  std::vector<TopicErrors> topics;  // every requested partition, in request order
};

// ---- OffsetFetch (9) ----
struct TopicPartitions {
  std::string topic;
  std::vector<int32_t> partitions;
};

// v8+ asks for several groups in one request: call once per group.
struct OffsetFetchArgs {
  std::string group_id;
  std::optional<std::vector<TopicPartitions>> topics;  // nullopt (null, v2+): every committed offset
  bool require_stable = false;                          // v7+
  std::optional<std::string> member_id;                 // v9+: a consumer-protocol member's
  int32_t member_epoch = -1;                            // v9+
};

struct PartitionOffset {
  int32_t partition = 0;
  int64_t offset = -1;  // -1: nothing committed
  int32_t leader_epoch = -1;
  std::string metadata;
  GroupError error = GroupError::kNone;
};

struct TopicOffsets {
  std::string topic;
  std::vector<PartitionOffset> partitions;
};

struct OffsetFetchResult {
  GroupError error = GroupError::kNone;  // group level (v2+); on error `topics` is empty
  std::vector<TopicOffsets> topics;
};

// ---- DescribeGroups (15) ----
struct DescribedMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  std::string metadata;    // bytes; only while Stable
  std::string assignment;  // bytes; only while Stable
};

struct DescribedGroup {
  GroupError error = GroupError::kNone;
  std::string group_id;
  std::string state;          // "Empty", "PreparingRebalance", ...; "Dead" for an unknown group
  std::string protocol_type;
  std::string protocol_data;  // the selected protocol; only while Stable
  std::vector<DescribedMember> members;
  std::string group_type = "classic";  // "consumer": not a classic group (described as Dead)
};

// ---- ListGroups (16) ----
struct ListGroupsArgs {
  std::vector<std::string> states_filter;  // v4+, case-insensitive; empty = all
  std::vector<std::string> types_filter;   // v5+ ("classic", "consumer", ...), case-insensitive; empty = all
};

// A classic group (JoinGroup/SyncGroup); "consumer" (kConsumerGroupType) is KIP-848's.
inline constexpr std::string_view kClassicGroupType = "classic";

struct ListedGroup {
  std::string group_id;
  std::string protocol_type;
  std::string state;
  std::string group_type = std::string(kClassicGroupType);
};

struct ListGroupsResult {
  GroupError error = GroupError::kNone;
  std::vector<ListedGroup> groups;
};

// ---- DeleteGroups (42) ----
struct DeletedGroup {
  std::string group_id;
  GroupError error = GroupError::kNone;
};

struct DeleteGroupsResult {
  std::vector<DeletedGroup> groups;  // request order
};

// ---- OffsetDelete (47) ----
struct OffsetDeleteArgs {
  std::string group_id;
  std::vector<TopicPartitions> topics;
};

struct OffsetDeleteResult {
  GroupError error = GroupError::kNone;  // group level; on error `topics` is empty
  std::vector<TopicErrors> topics;
};

}  // namespace rokka::coordinator
