// GroupError: what the group coordinator answers, in its own words (STYLE §c "Errors").
// The broker maps each value to a Kafka ErrorCode in broker/error_mapping.h; the Kafka
// code each one stands for is named beside it.
#pragma once

#include <cstdint>
#include <string_view>

namespace rokka::coordinator {

enum class GroupError : uint8_t {
  kNone = 0,
  kCoordinatorLoadInProgress,  // COORDINATOR_LOAD_IN_PROGRESS (14): state not loaded yet after start-up
  kCoordinatorNotAvailable,    // COORDINATOR_NOT_AVAILABLE (15): group is being deleted, or shutting down
  kStorageError,               // NOT_COORDINATOR (16), as Kafka maps a failed log append: durable write failed
  kOffsetMetadataTooLarge,     // OFFSET_METADATA_TOO_LARGE (12): commit metadata above offset.metadata.max.bytes
  kIllegalGeneration,          // ILLEGAL_GENERATION (22): stale or unknown generation id
  kInconsistentGroupProtocol,  // INCONSISTENT_GROUP_PROTOCOL (23): no protocol every member supports
  kInvalidGroupId,             // INVALID_GROUP_ID (24): empty group id where one is required
  kUnknownMemberId,            // UNKNOWN_MEMBER_ID (25): member id not in the group
  kInvalidSessionTimeout,      // INVALID_SESSION_TIMEOUT (26): outside group.min/max.session.timeout.ms
  kRebalanceInProgress,        // REBALANCE_IN_PROGRESS (27): the group is rebalancing; rejoin
  kNonEmptyGroup,              // NON_EMPTY_GROUP (68): the group still has members
  kGroupIdNotFound,            // GROUP_ID_NOT_FOUND (69): no such group
  kMemberIdRequired,           // MEMBER_ID_REQUIRED (79): rejoin with the member id handed out
  kGroupMaxSizeReached,        // GROUP_MAX_SIZE_REACHED (81): group.max.size members already
  kFencedInstanceId,           // FENCED_INSTANCE_ID (82): a newer instance took this group.instance.id
  kGroupSubscribedToTopic,     // GROUP_SUBSCRIBED_TO_TOPIC (86): OffsetDelete of a topic still consumed
  kUnstableOffsetCommit,       // UNSTABLE_OFFSET_COMMIT (88): a commit of this partition is not durable yet
  // The consumer group protocol (KIP-848):
  kInvalidRequest,             // INVALID_REQUEST (42): a heartbeat missing what its step needs
  kFencedMemberEpoch,          // FENCED_MEMBER_EPOCH (110): not the member's epoch; it rejoins
  kUnreleasedInstanceId,       // UNRELEASED_INSTANCE_ID (111): another member holds the instance id
  kUnsupportedAssignor,        // UNSUPPORTED_ASSIGNOR (112): ServerAssignor names none offered
  kStaleMemberEpoch,           // STALE_MEMBER_EPOCH (113): a commit or fetch from an older epoch
  kInvalidRegularExpression,   // INVALID_REGULAR_EXPRESSION (128): SubscribedTopicRegex does not compile
  kUnsupportedVersion,         // UNSUPPORTED_VERSION (35): a consumer-protocol member's OffsetCommit below v9
};

// "none", "illegal_generation", ...: for logs and test failure messages.
std::string_view group_error_name(GroupError error);

}  // namespace rokka::coordinator
