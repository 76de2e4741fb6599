// Kafka API keys and the first flexible (KIP-482) version of each request.
// Wire facts; tests/protocol/api_keys_test.cc cross-checks them against Kafka's
// JSON message schemas when it is given them (ROKKA_KAFKA_SCHEMA_DIR).
#pragma once

#include <cstdint>

namespace rokka::protocol {

enum class ApiKey : int16_t {
  kProduce = 0,
  kFetch = 1,
  kListOffsets = 2,
  kMetadata = 3,
  kLeaderAndIsr = 4,
  kStopReplica = 5,
  kUpdateMetadata = 6,
  kControlledShutdown = 7,
  kOffsetCommit = 8,
  kOffsetFetch = 9,
  kFindCoordinator = 10,
  kJoinGroup = 11,
  kHeartbeat = 12,
  kLeaveGroup = 13,
  kSyncGroup = 14,
  kDescribeGroups = 15,
  kListGroups = 16,
  kSaslHandshake = 17,
  kApiVersions = 18,
  kCreateTopics = 19,
  kDeleteTopics = 20,
  kDeleteRecords = 21,
  kInitProducerId = 22,
  kOffsetForLeaderEpoch = 23,
  kAddPartitionsToTxn = 24,
  kAddOffsetsToTxn = 25,
  kEndTxn = 26,
  kWriteTxnMarkers = 27,
  kTxnOffsetCommit = 28,
  kDescribeAcls = 29,
  kCreateAcls = 30,
  kDeleteAcls = 31,
  kDescribeConfigs = 32,
  kAlterConfigs = 33,
  kAlterReplicaLogDirs = 34,
  kDescribeLogDirs = 35,
  kSaslAuthenticate = 36,
  kCreatePartitions = 37,
  kCreateDelegationToken = 38,
  kRenewDelegationToken = 39,
  kExpireDelegationToken = 40,
  kDescribeDelegationToken = 41,
  kDeleteGroups = 42,
  kElectLeaders = 43,
  kIncrementalAlterConfigs = 44,
  kAlterPartitionReassignments = 45,
  kListPartitionReassignments = 46,
  kOffsetDelete = 47,
  kDescribeClientQuotas = 48,
  kAlterClientQuotas = 49,
  kDescribeUserScramCredentials = 50,
  kAlterUserScramCredentials = 51,
  kDescribeQuorum = 55,
  kUpdateFeatures = 57,
  kDescribeCluster = 60,
  kDescribeProducers = 61,
  kDescribeTransactions = 65,
  kListTransactions = 66,
  kConsumerGroupHeartbeat = 68,
  kConsumerGroupDescribe = 69,
  kGetTelemetrySubscriptions = 71,
  kPushTelemetry = 72,
  kDescribeTopicPartitions = 75,
};

inline constexpr int16_t kMaxApiKey = 87;
inline constexpr int16_t kNeverFlexible = 0x7fff;

// First version of `key` that uses the flexible encoding (compact strings,
// tagged fields, request header v2 / response header v1); kNeverFlexible if none.
constexpr int16_t flexible_since(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce: return 9;
    case ApiKey::kFetch: return 12;
    case ApiKey::kListOffsets: return 6;
    case ApiKey::kMetadata: return 9;
    case ApiKey::kLeaderAndIsr: return 4;
    case ApiKey::kStopReplica: return 2;
    case ApiKey::kUpdateMetadata: return 6;
    case ApiKey::kControlledShutdown: return 3;
    case ApiKey::kOffsetCommit: return 8;
    case ApiKey::kOffsetFetch: return 6;
    case ApiKey::kFindCoordinator: return 3;
    case ApiKey::kJoinGroup: return 6;
    case ApiKey::kHeartbeat: return 4;
    case ApiKey::kLeaveGroup: return 4;
    case ApiKey::kSyncGroup: return 4;
    case ApiKey::kDescribeGroups: return 5;
    case ApiKey::kListGroups: return 3;
    case ApiKey::kSaslHandshake: return kNeverFlexible;
    case ApiKey::kApiVersions: return 3;
    case ApiKey::kCreateTopics: return 5;
    case ApiKey::kDeleteTopics: return 4;
    case ApiKey::kDeleteRecords: return 2;
    case ApiKey::kInitProducerId: return 2;
    case ApiKey::kOffsetForLeaderEpoch: return 4;
    case ApiKey::kAddPartitionsToTxn: return 3;
    case ApiKey::kAddOffsetsToTxn: return 3;
    case ApiKey::kEndTxn: return 3;
    case ApiKey::kWriteTxnMarkers: return 1;
    case ApiKey::kTxnOffsetCommit: return 3;
    case ApiKey::kDescribeAcls: return 2;
    case ApiKey::kCreateAcls: return 2;
    case ApiKey::kDeleteAcls: return 2;
    case ApiKey::kDescribeConfigs: return 4;
    case ApiKey::kAlterConfigs: return 2;
    case ApiKey::kAlterReplicaLogDirs: return 2;
    case ApiKey::kDescribeLogDirs: return 2;
    case ApiKey::kSaslAuthenticate: return 2;
    case ApiKey::kCreatePartitions: return 2;
    case ApiKey::kCreateDelegationToken: return 2;
    case ApiKey::kRenewDelegationToken: return 2;
    case ApiKey::kExpireDelegationToken: return 2;
    case ApiKey::kDescribeDelegationToken: return 2;
    case ApiKey::kDeleteGroups: return 2;
    case ApiKey::kElectLeaders: return 2;
    case ApiKey::kIncrementalAlterConfigs: return 1;
    case ApiKey::kAlterPartitionReassignments: return 0;
    case ApiKey::kListPartitionReassignments: return 0;
    case ApiKey::kOffsetDelete: return kNeverFlexible;
    case ApiKey::kDescribeClientQuotas: return 1;
    case ApiKey::kAlterClientQuotas: return 1;
    case ApiKey::kDescribeUserScramCredentials: return 0;
    case ApiKey::kAlterUserScramCredentials: return 0;
    case ApiKey::kDescribeQuorum: return 0;
    case ApiKey::kUpdateFeatures: return 0;
    case ApiKey::kDescribeCluster: return 0;
    case ApiKey::kDescribeProducers: return 0;
    case ApiKey::kDescribeTransactions: return 0;
    case ApiKey::kListTransactions: return 0;
    case ApiKey::kConsumerGroupHeartbeat: return 0;
    case ApiKey::kConsumerGroupDescribe: return 0;
    case ApiKey::kGetTelemetrySubscriptions: return 0;
    case ApiKey::kPushTelemetry: return 0;
    case ApiKey::kDescribeTopicPartitions: return 0;
  }
  return kNeverFlexible;
}

constexpr bool is_flexible(ApiKey key, int16_t version) { return version >= flexible_since(key); }

// Request header version for a request: v2 when flexible, else v1.
// (v0, with no client id, is only used by ControlledShutdown v0, which we do not serve.)
constexpr int16_t request_header_version(ApiKey key, int16_t version) { return is_flexible(key, version) ? 2 : 1; }

// Response header version: v1 when flexible, else v0. ApiVersions always uses v0,
// so that a client can read the error whatever version it sent.
constexpr int16_t response_header_version(ApiKey key, int16_t version) {
  if (key == ApiKey::kApiVersions) return 0;
  return is_flexible(key, version) ? 1 : 0;
}

// Whether a client of this version throttles itself on a response's throttle_time_ms
// (KIP-219: the broker sends the response at once and mutes the connection), rather than
// the broker holding the response back. The first such version per API, as in Kafka's
// responses; an API not listed never does.
constexpr bool client_throttles(ApiKey key, int16_t version) {
  switch (key) {
    case ApiKey::kProduce: return version >= 6;
    case ApiKey::kFetch: return version >= 8;
    case ApiKey::kListOffsets: return version >= 3;
    case ApiKey::kMetadata: return version >= 6;
    case ApiKey::kOffsetCommit: return version >= 4;
    case ApiKey::kOffsetFetch: return version >= 4;
    case ApiKey::kFindCoordinator: return version >= 2;
    case ApiKey::kJoinGroup: return version >= 3;
    case ApiKey::kHeartbeat: return version >= 2;
    case ApiKey::kLeaveGroup: return version >= 2;
    case ApiKey::kSyncGroup: return version >= 2;
    case ApiKey::kDescribeGroups: return version >= 2;
    case ApiKey::kListGroups: return version >= 2;
    case ApiKey::kApiVersions: return version >= 2;
    case ApiKey::kCreateTopics: return version >= 3;
    case ApiKey::kDeleteTopics: return version >= 2;
    case ApiKey::kDeleteRecords: return version >= 1;
    case ApiKey::kInitProducerId: return version >= 1;
    case ApiKey::kAddPartitionsToTxn: return version >= 1;
    case ApiKey::kAddOffsetsToTxn: return version >= 1;
    case ApiKey::kEndTxn: return version >= 1;
    case ApiKey::kTxnOffsetCommit: return version >= 1;
    case ApiKey::kDescribeAcls: return version >= 1;
    case ApiKey::kCreateAcls: return version >= 1;
    case ApiKey::kDeleteAcls: return version >= 1;
    case ApiKey::kDescribeConfigs: return version >= 2;
    case ApiKey::kAlterConfigs: return version >= 1;
    case ApiKey::kDescribeLogDirs: return version >= 1;
    case ApiKey::kCreatePartitions: return version >= 1;
    case ApiKey::kDeleteGroups: return version >= 1;
    case ApiKey::kIncrementalAlterConfigs: return true;
    case ApiKey::kOffsetDelete: return true;
    default: return false;
  }
}

const char* api_name(ApiKey key);

}  // namespace rokka::protocol
