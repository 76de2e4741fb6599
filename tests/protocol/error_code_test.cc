// Our Kafka error numbers against librdkafka's rd_kafka_resp_err_t, an independent
// source: only its header is included, nothing is linked. (Codes 98-106, which
// librdkafka 2.0 does not list yet, were checked by hand against franz-go's kerr
// table.)
#include "protocol/error_code.h"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <set>
#include <string>

namespace rokka::protocol {
namespace {

struct Pair {
  rd_kafka_resp_err_t librdkafka;
  const char* librdkafka_name;  // without the RD_KAFKA_RESP_ERR_ prefix
  ErrorCode ours;
};

// Every broker error code librdkafka lists (it numbers its own errors below -1).
constexpr Pair kPairs[] = {
    {RD_KAFKA_RESP_ERR_UNKNOWN, "UNKNOWN", ErrorCode::kUnknownServerError},
    {RD_KAFKA_RESP_ERR_NO_ERROR, "NO_ERROR", ErrorCode::kNone},
    {RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE, "OFFSET_OUT_OF_RANGE", ErrorCode::kOffsetOutOfRange},
    {RD_KAFKA_RESP_ERR_INVALID_MSG, "INVALID_MSG", ErrorCode::kCorruptMessage},
    {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "UNKNOWN_TOPIC_OR_PART", ErrorCode::kUnknownTopicOrPartition},
    {RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE, "INVALID_MSG_SIZE", ErrorCode::kInvalidFetchSize},
    {RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, "LEADER_NOT_AVAILABLE", ErrorCode::kLeaderNotAvailable},
    {RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, "NOT_LEADER_FOR_PARTITION", ErrorCode::kNotLeaderOrFollower},
    {RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, "REQUEST_TIMED_OUT", ErrorCode::kRequestTimedOut},
    {RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE, "BROKER_NOT_AVAILABLE", ErrorCode::kBrokerNotAvailable},
    {RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE, "REPLICA_NOT_AVAILABLE", ErrorCode::kReplicaNotAvailable},
    {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, "MSG_SIZE_TOO_LARGE", ErrorCode::kMessageTooLarge},
    {RD_KAFKA_RESP_ERR_STALE_CTRL_EPOCH, "STALE_CTRL_EPOCH", ErrorCode::kStaleControllerEpoch},
    {RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE, "OFFSET_METADATA_TOO_LARGE", ErrorCode::kOffsetMetadataTooLarge},
    {RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, "NETWORK_EXCEPTION", ErrorCode::kNetworkException},
    {RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS, "COORDINATOR_LOAD_IN_PROGRESS", ErrorCode::kCoordinatorLoadInProgress},
    {RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE, "COORDINATOR_NOT_AVAILABLE", ErrorCode::kCoordinatorNotAvailable},
    {RD_KAFKA_RESP_ERR_NOT_COORDINATOR, "NOT_COORDINATOR", ErrorCode::kNotCoordinator},
    {RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION, "TOPIC_EXCEPTION", ErrorCode::kInvalidTopicException},
    {RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE, "RECORD_LIST_TOO_LARGE", ErrorCode::kRecordListTooLarge},
    {RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, "NOT_ENOUGH_REPLICAS", ErrorCode::kNotEnoughReplicas},
    {RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", ErrorCode::kNotEnoughReplicasAfterAppend},
    {RD_KAFKA_RESP_ERR_INVALID_REQUIRED_ACKS, "INVALID_REQUIRED_ACKS", ErrorCode::kInvalidRequiredAcks},
    {RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, "ILLEGAL_GENERATION", ErrorCode::kIllegalGeneration},
    {RD_KAFKA_RESP_ERR_INCONSISTENT_GROUP_PROTOCOL, "INCONSISTENT_GROUP_PROTOCOL", ErrorCode::kInconsistentGroupProtocol},
    {RD_KAFKA_RESP_ERR_INVALID_GROUP_ID, "INVALID_GROUP_ID", ErrorCode::kInvalidGroupId},
    {RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID, "UNKNOWN_MEMBER_ID", ErrorCode::kUnknownMemberId},
    {RD_KAFKA_RESP_ERR_INVALID_SESSION_TIMEOUT, "INVALID_SESSION_TIMEOUT", ErrorCode::kInvalidSessionTimeout},
    {RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, "REBALANCE_IN_PROGRESS", ErrorCode::kRebalanceInProgress},
    {RD_KAFKA_RESP_ERR_INVALID_COMMIT_OFFSET_SIZE, "INVALID_COMMIT_OFFSET_SIZE", ErrorCode::kInvalidCommitOffsetSize},
    {RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, "TOPIC_AUTHORIZATION_FAILED", ErrorCode::kTopicAuthorizationFailed},
    {RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED, "GROUP_AUTHORIZATION_FAILED", ErrorCode::kGroupAuthorizationFailed},
    {RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, "CLUSTER_AUTHORIZATION_FAILED", ErrorCode::kClusterAuthorizationFailed},
    {RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP, "INVALID_TIMESTAMP", ErrorCode::kInvalidTimestamp},
    {RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM, "UNSUPPORTED_SASL_MECHANISM", ErrorCode::kUnsupportedSaslMechanism},
    {RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE, "ILLEGAL_SASL_STATE", ErrorCode::kIllegalSaslState},
    {RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION, "UNSUPPORTED_VERSION", ErrorCode::kUnsupportedVersion},
    {RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS, "TOPIC_ALREADY_EXISTS", ErrorCode::kTopicAlreadyExists},
    {RD_KAFKA_RESP_ERR_INVALID_PARTITIONS, "INVALID_PARTITIONS", ErrorCode::kInvalidPartitions},
    {RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR, "INVALID_REPLICATION_FACTOR", ErrorCode::kInvalidReplicationFactor},
    {RD_KAFKA_RESP_ERR_INVALID_REPLICA_ASSIGNMENT, "INVALID_REPLICA_ASSIGNMENT", ErrorCode::kInvalidReplicaAssignment},
    {RD_KAFKA_RESP_ERR_INVALID_CONFIG, "INVALID_CONFIG", ErrorCode::kInvalidConfig},
    {RD_KAFKA_RESP_ERR_NOT_CONTROLLER, "NOT_CONTROLLER", ErrorCode::kNotController},
    {RD_KAFKA_RESP_ERR_INVALID_REQUEST, "INVALID_REQUEST", ErrorCode::kInvalidRequest},
    {RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT, "UNSUPPORTED_FOR_MESSAGE_FORMAT", ErrorCode::kUnsupportedForMessageFormat},
    {RD_KAFKA_RESP_ERR_POLICY_VIOLATION, "POLICY_VIOLATION", ErrorCode::kPolicyViolation},
    {RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, "OUT_OF_ORDER_SEQUENCE_NUMBER", ErrorCode::kOutOfOrderSequenceNumber},
    {RD_KAFKA_RESP_ERR_DUPLICATE_SEQUENCE_NUMBER, "DUPLICATE_SEQUENCE_NUMBER", ErrorCode::kDuplicateSequenceNumber},
    {RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH, "INVALID_PRODUCER_EPOCH", ErrorCode::kInvalidProducerEpoch},
    {RD_KAFKA_RESP_ERR_INVALID_TXN_STATE, "INVALID_TXN_STATE", ErrorCode::kInvalidTxnState},
    {RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING, "INVALID_PRODUCER_ID_MAPPING", ErrorCode::kInvalidProducerIdMapping},
    {RD_KAFKA_RESP_ERR_INVALID_TRANSACTION_TIMEOUT, "INVALID_TRANSACTION_TIMEOUT", ErrorCode::kInvalidTransactionTimeout},
    {RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS, "CONCURRENT_TRANSACTIONS", ErrorCode::kConcurrentTransactions},
    {RD_KAFKA_RESP_ERR_TRANSACTION_COORDINATOR_FENCED, "TRANSACTION_COORDINATOR_FENCED", ErrorCode::kTransactionCoordinatorFenced},
    {RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", ErrorCode::kTransactionalIdAuthorizationFailed},
    {RD_KAFKA_RESP_ERR_SECURITY_DISABLED, "SECURITY_DISABLED", ErrorCode::kSecurityDisabled},
    {RD_KAFKA_RESP_ERR_OPERATION_NOT_ATTEMPTED, "OPERATION_NOT_ATTEMPTED", ErrorCode::kOperationNotAttempted},
    {RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR, "KAFKA_STORAGE_ERROR", ErrorCode::kKafkaStorageError},
    {RD_KAFKA_RESP_ERR_LOG_DIR_NOT_FOUND, "LOG_DIR_NOT_FOUND", ErrorCode::kLogDirNotFound},
    {RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, "SASL_AUTHENTICATION_FAILED", ErrorCode::kSaslAuthenticationFailed},
    {RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID, "UNKNOWN_PRODUCER_ID", ErrorCode::kUnknownProducerId},
    {RD_KAFKA_RESP_ERR_REASSIGNMENT_IN_PROGRESS, "REASSIGNMENT_IN_PROGRESS", ErrorCode::kReassignmentInProgress},
    {RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTH_DISABLED, "DELEGATION_TOKEN_AUTH_DISABLED", ErrorCode::kDelegationTokenAuthDisabled},
    {RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_NOT_FOUND, "DELEGATION_TOKEN_NOT_FOUND", ErrorCode::kDelegationTokenNotFound},
    {RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_OWNER_MISMATCH, "DELEGATION_TOKEN_OWNER_MISMATCH", ErrorCode::kDelegationTokenOwnerMismatch},
    {RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", ErrorCode::kDelegationTokenRequestNotAllowed},
    {RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTHORIZATION_FAILED, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", ErrorCode::kDelegationTokenAuthorizationFailed},
    {RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_EXPIRED, "DELEGATION_TOKEN_EXPIRED", ErrorCode::kDelegationTokenExpired},
    {RD_KAFKA_RESP_ERR_INVALID_PRINCIPAL_TYPE, "INVALID_PRINCIPAL_TYPE", ErrorCode::kInvalidPrincipalType},
    {RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP, "NON_EMPTY_GROUP", ErrorCode::kNonEmptyGroup},
    {RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND, "GROUP_ID_NOT_FOUND", ErrorCode::kGroupIdNotFound},
    {RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND, "FETCH_SESSION_ID_NOT_FOUND", ErrorCode::kFetchSessionIdNotFound},
    {RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH, "INVALID_FETCH_SESSION_EPOCH", ErrorCode::kInvalidFetchSessionEpoch},
    {RD_KAFKA_RESP_ERR_LISTENER_NOT_FOUND, "LISTENER_NOT_FOUND", ErrorCode::kListenerNotFound},
    {RD_KAFKA_RESP_ERR_TOPIC_DELETION_DISABLED, "TOPIC_DELETION_DISABLED", ErrorCode::kTopicDeletionDisabled},
    {RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH, "FENCED_LEADER_EPOCH", ErrorCode::kFencedLeaderEpoch},
    {RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH, "UNKNOWN_LEADER_EPOCH", ErrorCode::kUnknownLeaderEpoch},
    {RD_KAFKA_RESP_ERR_UNSUPPORTED_COMPRESSION_TYPE, "UNSUPPORTED_COMPRESSION_TYPE", ErrorCode::kUnsupportedCompressionType},
    {RD_KAFKA_RESP_ERR_STALE_BROKER_EPOCH, "STALE_BROKER_EPOCH", ErrorCode::kStaleBrokerEpoch},
    {RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE, "OFFSET_NOT_AVAILABLE", ErrorCode::kOffsetNotAvailable},
    {RD_KAFKA_RESP_ERR_MEMBER_ID_REQUIRED, "MEMBER_ID_REQUIRED", ErrorCode::kMemberIdRequired},
    {RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE, "PREFERRED_LEADER_NOT_AVAILABLE", ErrorCode::kPreferredLeaderNotAvailable},
    {RD_KAFKA_RESP_ERR_GROUP_MAX_SIZE_REACHED, "GROUP_MAX_SIZE_REACHED", ErrorCode::kGroupMaxSizeReached},
    {RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID, "FENCED_INSTANCE_ID", ErrorCode::kFencedInstanceId},
    {RD_KAFKA_RESP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE, "ELIGIBLE_LEADERS_NOT_AVAILABLE", ErrorCode::kEligibleLeadersNotAvailable},
    {RD_KAFKA_RESP_ERR_ELECTION_NOT_NEEDED, "ELECTION_NOT_NEEDED", ErrorCode::kElectionNotNeeded},
    {RD_KAFKA_RESP_ERR_NO_REASSIGNMENT_IN_PROGRESS, "NO_REASSIGNMENT_IN_PROGRESS", ErrorCode::kNoReassignmentInProgress},
    {RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC, "GROUP_SUBSCRIBED_TO_TOPIC", ErrorCode::kGroupSubscribedToTopic},
    {RD_KAFKA_RESP_ERR_INVALID_RECORD, "INVALID_RECORD", ErrorCode::kInvalidRecord},
    {RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT, "UNSTABLE_OFFSET_COMMIT", ErrorCode::kUnstableOffsetCommit},
    {RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED, "THROTTLING_QUOTA_EXCEEDED", ErrorCode::kThrottlingQuotaExceeded},
    {RD_KAFKA_RESP_ERR_PRODUCER_FENCED, "PRODUCER_FENCED", ErrorCode::kProducerFenced},
    {RD_KAFKA_RESP_ERR_RESOURCE_NOT_FOUND, "RESOURCE_NOT_FOUND", ErrorCode::kResourceNotFound},
    {RD_KAFKA_RESP_ERR_DUPLICATE_RESOURCE, "DUPLICATE_RESOURCE", ErrorCode::kDuplicateResource},
    {RD_KAFKA_RESP_ERR_UNACCEPTABLE_CREDENTIAL, "UNACCEPTABLE_CREDENTIAL", ErrorCode::kUnacceptableCredential},
    {RD_KAFKA_RESP_ERR_INCONSISTENT_VOTER_SET, "INCONSISTENT_VOTER_SET", ErrorCode::kInconsistentVoterSet},
    {RD_KAFKA_RESP_ERR_INVALID_UPDATE_VERSION, "INVALID_UPDATE_VERSION", ErrorCode::kInvalidUpdateVersion},
    {RD_KAFKA_RESP_ERR_FEATURE_UPDATE_FAILED, "FEATURE_UPDATE_FAILED", ErrorCode::kFeatureUpdateFailed},
    {RD_KAFKA_RESP_ERR_PRINCIPAL_DESERIALIZATION_FAILURE, "PRINCIPAL_DESERIALIZATION_FAILURE", ErrorCode::kPrincipalDeserializationFailure},
};

TEST(ErrorCodeTest, EveryLibrdkafkaBrokerCodeHasOurNumber) {
  for (const Pair& p : kPairs) {
    EXPECT_EQ(static_cast<int>(p.librdkafka), to_int(p.ours)) << p.librdkafka_name;
  }
}

TEST(ErrorCodeTest, TheTableCoversEveryCodeLibrdkafkaDefines) {
  std::set<int> seen;
  for (const Pair& p : kPairs) seen.insert(p.librdkafka);
  for (int code = -1; code < RD_KAFKA_RESP_ERR_END_ALL; ++code) {
    EXPECT_TRUE(seen.count(code)) << "librdkafka defines code " << code << "; add it to kPairs";
  }
}

TEST(ErrorCodeTest, NamesMatchKafkasExceptWhereLibrdkafkaKeptAnOldAlias) {
  // librdkafka's older spellings of Kafka's names.
  const std::set<std::string> aliases = {"UNKNOWN", "NO_ERROR", "INVALID_MSG", "UNKNOWN_TOPIC_OR_PART",
                                         "INVALID_MSG_SIZE", "NOT_LEADER_FOR_PARTITION", "MSG_SIZE_TOO_LARGE",
                                         "STALE_CTRL_EPOCH", "TOPIC_EXCEPTION"};
  for (const Pair& p : kPairs) {
    if (aliases.count(p.librdkafka_name)) continue;
    EXPECT_STREQ(error_name(p.ours), p.librdkafka_name);
  }
}

TEST(ErrorCodeTest, CodesAfterLibrdkafkasListAreNamed) {
  EXPECT_STREQ(error_name(ErrorCode::kSnapshotNotFound), "SNAPSHOT_NOT_FOUND");
  EXPECT_EQ(to_int(ErrorCode::kSnapshotNotFound), 98);
  EXPECT_EQ(to_int(ErrorCode::kUnknownTopicId), 100);
  EXPECT_EQ(to_int(ErrorCode::kInconsistentTopicId), 103);
  EXPECT_EQ(to_int(ErrorCode::kFetchSessionTopicIdError), 106);
  EXPECT_STREQ(error_name(ErrorCode::kInvalidRegularExpression), "INVALID_REGULAR_EXPRESSION");
  EXPECT_EQ(to_int(ErrorCode::kInvalidRegularExpression), 128);  // franz-go's kerr.InvalidRegularExpression
  EXPECT_STREQ(error_name(static_cast<ErrorCode>(999)), "UNKNOWN");
}

}  // namespace
}  // namespace rokka::protocol
