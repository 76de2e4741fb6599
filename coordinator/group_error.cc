#include "coordinator/group_error.h"

namespace rokka::coordinator {

std::string_view group_error_name(GroupError error) {
  switch (error) {
    case GroupError::kNone: return "none";
    case GroupError::kCoordinatorLoadInProgress: return "coordinator_load_in_progress";
    case GroupError::kCoordinatorNotAvailable: return "coordinator_not_available";
    case GroupError::kStorageError: return "storage_error";
    case GroupError::kOffsetMetadataTooLarge: return "offset_metadata_too_large";
    case GroupError::kIllegalGeneration: return "illegal_generation";
    case GroupError::kInconsistentGroupProtocol: return "inconsistent_group_protocol";
    case GroupError::kInvalidGroupId: return "invalid_group_id";
    case GroupError::kUnknownMemberId: return "unknown_member_id";
    case GroupError::kInvalidSessionTimeout: return "invalid_session_timeout";
    case GroupError::kRebalanceInProgress: return "rebalance_in_progress";
    case GroupError::kNonEmptyGroup: return "non_empty_group";
    case GroupError::kGroupIdNotFound: return "group_id_not_found";
    case GroupError::kMemberIdRequired: return "member_id_required";
    case GroupError::kGroupMaxSizeReached: return "group_max_size_reached";
    case GroupError::kFencedInstanceId: return "fenced_instance_id";
    case GroupError::kGroupSubscribedToTopic: return "group_subscribed_to_topic";
    case GroupError::kUnstableOffsetCommit: return "unstable_offset_commit";
    case GroupError::kInvalidRequest: return "invalid_request";
    case GroupError::kFencedMemberEpoch: return "fenced_member_epoch";
    case GroupError::kUnreleasedInstanceId: return "unreleased_instance_id";
    case GroupError::kUnsupportedAssignor: return "unsupported_assignor";
    case GroupError::kStaleMemberEpoch: return "stale_member_epoch";
    case GroupError::kInvalidRegularExpression: return "invalid_regular_expression";
    case GroupError::kUnsupportedVersion: return "unsupported_version";
  }
  return "unknown";
}

}  // namespace rokka::coordinator
