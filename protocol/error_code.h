// Kafka protocol error codes (Kafka's numbers; names follow Kafka's Errors enum).
// tests/protocol/error_code_test.cc checks every number against librdkafka's
// rd_kafka_resp_err_t, an independent source; librdkafka 2.0 stops at 97, and
// 98-106 were checked against franz-go's kerr table (a second client's list).
#pragma once

#include <cstdint>
#include <iosfwd>

namespace rokka::protocol {

enum class ErrorCode : int16_t {
  kUnknownServerError = -1,  // unexpected server error
  kNone = 0,  // success
  kOffsetOutOfRange = 1,  // requested offset is outside the partition's range
  kCorruptMessage = 2,  // CRC or framing check failed
  kUnknownTopicOrPartition = 3,  // no such topic or partition on this broker
  kInvalidFetchSize = 4,  // fetch size is invalid
  kLeaderNotAvailable = 5,  // leader election in progress (topic being created)
  kNotLeaderOrFollower = 6,  // this broker does not lead the partition
  kRequestTimedOut = 7,  // the request timed out
  kBrokerNotAvailable = 8,  // broker not available
  kReplicaNotAvailable = 9,  // replica not available
  kMessageTooLarge = 10,  // batch larger than max.message.bytes
  kStaleControllerEpoch = 11,  // stale controller epoch
  kOffsetMetadataTooLarge = 12,  // commit metadata string too large
  kNetworkException = 13,  // server disconnected before a response
  kCoordinatorLoadInProgress = 14,  // coordinator is still loading offsets
  kCoordinatorNotAvailable = 15,  // coordinator not available
  kNotCoordinator = 16,  // this broker is not the coordinator
  kInvalidTopicException = 17,  // topic name is invalid or internal
  kRecordListTooLarge = 18,  // request's record set too large
  kNotEnoughReplicas = 19,  // fewer in-sync replicas than required
  kNotEnoughReplicasAfterAppend = 20,  // written to fewer replicas than required
  kInvalidRequiredAcks = 21,  // acks is not -1, 0 or 1
  kIllegalGeneration = 22,  // stale or unknown generation id
  kInconsistentGroupProtocol = 23,  // no protocol every member supports
  kInvalidGroupId = 24,  // group id empty or invalid
  kUnknownMemberId = 25,  // member id not in the group
  kInvalidSessionTimeout = 26,  // session timeout out of the broker's range
  kRebalanceInProgress = 27,  // the group is rebalancing
  kInvalidCommitOffsetSize = 28,  // commit offset size invalid
  kTopicAuthorizationFailed = 29,  // not authorized for the topic
  kGroupAuthorizationFailed = 30,  // not authorized for the group
  kClusterAuthorizationFailed = 31,  // not authorized for the cluster
  kInvalidTimestamp = 32,  // timestamp out of the acceptable range
  kUnsupportedSaslMechanism = 33,  // SASL mechanism not supported
  kIllegalSaslState = 34,  // request not valid in this SASL state
  kUnsupportedVersion = 35,  // API version not supported
  kTopicAlreadyExists = 36,  // topic already exists
  kInvalidPartitions = 37,  // partition count invalid
  kInvalidReplicationFactor = 38,  // replication factor invalid
  kInvalidReplicaAssignment = 39,  // replica assignment invalid
  kInvalidConfig = 40,  // configuration invalid
  kNotController = 41,  // this broker is not the controller
  kInvalidRequest = 42,  // request malformed or not valid here
  kUnsupportedForMessageFormat = 43,  // not supported by the message format
  kPolicyViolation = 44,  // request breaks a policy
  kOutOfOrderSequenceNumber = 45,  // producer sequence skipped
  kDuplicateSequenceNumber = 46,  // producer sequence already stored
  kInvalidProducerEpoch = 47,  // producer epoch fenced or stale
  kInvalidTxnState = 48,  // transactional state invalid
  kInvalidProducerIdMapping = 49,  // producer id unknown for the transactional id
  kInvalidTransactionTimeout = 50,  // transaction timeout too large
  kConcurrentTransactions = 51,  // another transaction operation in progress
  kTransactionCoordinatorFenced = 52,  // transaction coordinator fenced
  kTransactionalIdAuthorizationFailed = 53,  // not authorized for the transactional id
  kSecurityDisabled = 54,  // security features disabled
  kOperationNotAttempted = 55,  // not attempted because another operation failed
  kKafkaStorageError = 56,  // disk error; the data was not stored
  kLogDirNotFound = 57,  // log directory not found
  kSaslAuthenticationFailed = 58,  // SASL authentication failed
  kUnknownProducerId = 59,  // producer id not known to the broker
  kReassignmentInProgress = 60,  // partition reassignment in progress
  kDelegationTokenAuthDisabled = 61,  // delegation tokens disabled
  kDelegationTokenNotFound = 62,  // delegation token not found
  kDelegationTokenOwnerMismatch = 63,  // delegation token owner mismatch
  kDelegationTokenRequestNotAllowed = 64,  // delegation token request not allowed
  kDelegationTokenAuthorizationFailed = 65,  // delegation token authorization failed
  kDelegationTokenExpired = 66,  // delegation token expired
  kInvalidPrincipalType = 67,  // principal type not supported
  kNonEmptyGroup = 68,  // group is not empty
  kGroupIdNotFound = 69,  // group id does not exist
  kFetchSessionIdNotFound = 70,  // fetch session not found
  kInvalidFetchSessionEpoch = 71,  // fetch session epoch invalid
  kListenerNotFound = 72,  // no listener of that name on the leader
  kTopicDeletionDisabled = 73,  // topic deletion disabled
  kFencedLeaderEpoch = 74,  // leader epoch older than the broker's
  kUnknownLeaderEpoch = 75,  // leader epoch newer than the broker's
  kUnsupportedCompressionType = 76,  // compression not supported by this request version
  kStaleBrokerEpoch = 77,  // stale broker epoch
  kOffsetNotAvailable = 78,  // offset not yet available
  kMemberIdRequired = 79,  // rejoin with the member id the coordinator assigned
  kPreferredLeaderNotAvailable = 80,  // preferred leader not available
  kGroupMaxSizeReached = 81,  // group is full
  kFencedInstanceId = 82,  // static member fenced by a newer instance
  kEligibleLeadersNotAvailable = 83,  // no eligible leaders
  kElectionNotNeeded = 84,  // leader election not needed
  kNoReassignmentInProgress = 85,  // no reassignment in progress
  kGroupSubscribedToTopic = 86,  // group still subscribed to the topic
  kInvalidRecord = 87,  // record failed validation
  kUnstableOffsetCommit = 88,  // pending transactional offsets
  kThrottlingQuotaExceeded = 89,  // throttling quota exceeded
  kProducerFenced = 90,  // producer fenced by a newer epoch
  kResourceNotFound = 91,  // resource not found
  kDuplicateResource = 92,  // duplicate resource in the request
  kUnacceptableCredential = 93,  // credential rejected
  kInconsistentVoterSet = 94,  // inconsistent voter set
  kInvalidUpdateVersion = 95,  // invalid update version
  kFeatureUpdateFailed = 96,  // feature update failed
  kPrincipalDeserializationFailure = 97,  // principal could not be deserialized
  kSnapshotNotFound = 98,  // snapshot not found
  kPositionOutOfRange = 99,  // position out of range
  kUnknownTopicId = 100,  // topic id unknown to this broker
  kDuplicateBrokerRegistration = 101,  // duplicate broker registration
  kBrokerIdNotRegistered = 102,  // broker id not registered
  kInconsistentTopicId = 103,  // topic id does not match the topic name
  kInconsistentClusterId = 104,  // cluster id mismatch
  kTransactionalIdNotFound = 105,  // transactional id not found
  kFetchSessionTopicIdError = 106,  // fetch session topic id error
  kFencedMemberEpoch = 110,  // the member epoch is not the coordinator's (KIP-848): rejoin
  kUnreleasedInstanceId = 111,  // the instance id is still held by another member (KIP-848)
  kUnsupportedAssignor = 112,  // the server-side assignor asked for is not offered
  kStaleMemberEpoch = 113,  // an offset commit or fetch with an older member epoch
  kInvalidRegularExpression = 128,  // a regular expression in the request does not compile
};

inline constexpr int16_t to_int(ErrorCode e) { return static_cast<int16_t>(e); }

// Kafka's name for the code ("UNKNOWN_TOPIC_OR_PARTITION"); "UNKNOWN" if not listed.
const char* error_name(ErrorCode e);

// "UNKNOWN_TOPIC_OR_PARTITION (3)": what test failures and logs print.
std::ostream& operator<<(std::ostream& out, ErrorCode e);

}  // namespace rokka::protocol
