// Internal errors -> Kafka error codes. Exhaustive switches with no default, so
// -Wswitch flags any new internal code that lacks a mapping.
#pragma once

#include "coordinator/group_error.h"
#include "coordinator/txn_types.h"
#include "protocol/error_code.h"
#include "storage/status.h"

namespace rokka::broker {

constexpr protocol::ErrorCode to_kafka(storage::StatusCode code) {
  using protocol::ErrorCode;
  using storage::StatusCode;
  switch (code) {
    case StatusCode::kOk: return ErrorCode::kNone;
    case StatusCode::kNotFound: return ErrorCode::kUnknownTopicOrPartition;
    case StatusCode::kOutOfRange: return ErrorCode::kOffsetOutOfRange;
    case StatusCode::kCorruption: return ErrorCode::kCorruptMessage;
    case StatusCode::kIoError: return ErrorCode::kKafkaStorageError;
    case StatusCode::kReadOnly: return ErrorCode::kKafkaStorageError;
    case StatusCode::kInvalidArgument: return ErrorCode::kInvalidRecord;
    case StatusCode::kTooLarge: return ErrorCode::kMessageTooLarge;
    case StatusCode::kShutdown: return ErrorCode::kKafkaStorageError;
    case StatusCode::kDuplicateSequence: return ErrorCode::kDuplicateSequenceNumber;
    case StatusCode::kOutOfOrderSequence: return ErrorCode::kOutOfOrderSequenceNumber;
    case StatusCode::kInvalidProducerEpoch: return ErrorCode::kInvalidProducerEpoch;
    case StatusCode::kUnknownProducerId: return ErrorCode::kUnknownProducerId;
    case StatusCode::kMalformed: return ErrorCode::kCorruptMessage;
    case StatusCode::kConflict: return ErrorCode::kUnknownServerError;  // internal (log cleaner) only
    case StatusCode::kNotLeader: return ErrorCode::kNotLeaderOrFollower;  // a follower or fenced store (replication)
  }
  return ErrorCode::kUnknownServerError;
}

inline protocol::ErrorCode to_kafka(const storage::Status& s) { return to_kafka(s.code()); }

constexpr protocol::ErrorCode to_kafka(coordinator::GroupError e) {
  using coordinator::GroupError;
  using protocol::ErrorCode;
  switch (e) {
    case GroupError::kNone: return ErrorCode::kNone;
    case GroupError::kCoordinatorLoadInProgress: return ErrorCode::kCoordinatorLoadInProgress;
    case GroupError::kCoordinatorNotAvailable: return ErrorCode::kCoordinatorNotAvailable;
    // A commit that could not be made durable: Kafka answers a failed log append so,
    // and the client retries after looking the coordinator up again.
    case GroupError::kStorageError: return ErrorCode::kNotCoordinator;
    case GroupError::kOffsetMetadataTooLarge: return ErrorCode::kOffsetMetadataTooLarge;
    case GroupError::kIllegalGeneration: return ErrorCode::kIllegalGeneration;
    case GroupError::kInconsistentGroupProtocol: return ErrorCode::kInconsistentGroupProtocol;
    case GroupError::kInvalidGroupId: return ErrorCode::kInvalidGroupId;
    case GroupError::kUnknownMemberId: return ErrorCode::kUnknownMemberId;
    case GroupError::kInvalidSessionTimeout: return ErrorCode::kInvalidSessionTimeout;
    case GroupError::kRebalanceInProgress: return ErrorCode::kRebalanceInProgress;
    case GroupError::kNonEmptyGroup: return ErrorCode::kNonEmptyGroup;
    case GroupError::kGroupIdNotFound: return ErrorCode::kGroupIdNotFound;
    case GroupError::kMemberIdRequired: return ErrorCode::kMemberIdRequired;
    case GroupError::kGroupMaxSizeReached: return ErrorCode::kGroupMaxSizeReached;
    case GroupError::kFencedInstanceId: return ErrorCode::kFencedInstanceId;
    case GroupError::kGroupSubscribedToTopic: return ErrorCode::kGroupSubscribedToTopic;
    case GroupError::kUnstableOffsetCommit: return ErrorCode::kUnstableOffsetCommit;
    case GroupError::kInvalidRequest: return ErrorCode::kInvalidRequest;
    case GroupError::kFencedMemberEpoch: return ErrorCode::kFencedMemberEpoch;
    case GroupError::kUnreleasedInstanceId: return ErrorCode::kUnreleasedInstanceId;
    case GroupError::kUnsupportedAssignor: return ErrorCode::kUnsupportedAssignor;
    case GroupError::kStaleMemberEpoch: return ErrorCode::kStaleMemberEpoch;
    case GroupError::kInvalidRegularExpression: return ErrorCode::kInvalidRegularExpression;
    case GroupError::kUnsupportedVersion: return ErrorCode::kUnsupportedVersion;
  }
  return ErrorCode::kUnknownServerError;
}

// `fenced_supported`: the API version knows PRODUCER_FENCED (KIP-588: InitProducerId v4+,
// AddPartitionsToTxn, AddOffsetsToTxn and EndTxn v2+); older ones get INVALID_PRODUCER_EPOCH.
constexpr protocol::ErrorCode to_kafka(coordinator::TxnError e, bool fenced_supported) {
  using coordinator::TxnError;
  using protocol::ErrorCode;
  switch (e) {
    case TxnError::kNone: return ErrorCode::kNone;
    case TxnError::kCoordinatorLoadInProgress: return ErrorCode::kCoordinatorLoadInProgress;
    case TxnError::kCoordinatorNotAvailable: return ErrorCode::kCoordinatorNotAvailable;
    case TxnError::kStorageError: return ErrorCode::kNotCoordinator;  // as Kafka maps a failed log append
    case TxnError::kInvalidRequest: return ErrorCode::kInvalidRequest;
    case TxnError::kInvalidTransactionTimeout: return ErrorCode::kInvalidTransactionTimeout;
    case TxnError::kConcurrentTransactions: return ErrorCode::kConcurrentTransactions;
    case TxnError::kProducerFenced:
      return fenced_supported ? ErrorCode::kProducerFenced : ErrorCode::kInvalidProducerEpoch;
    case TxnError::kInvalidProducerIdMapping: return ErrorCode::kInvalidProducerIdMapping;
    case TxnError::kInvalidTxnState: return ErrorCode::kInvalidTxnState;
    case TxnError::kTransactionalIdNotFound: return ErrorCode::kTransactionalIdNotFound;
  }
  return ErrorCode::kUnknownServerError;
}

}  // namespace rokka::broker
