#include "protocol/api_keys.h"

namespace rokka::protocol {

const char* api_name(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce: return "Produce";
    case ApiKey::kFetch: return "Fetch";
    case ApiKey::kListOffsets: return "ListOffsets";
    case ApiKey::kMetadata: return "Metadata";
    case ApiKey::kLeaderAndIsr: return "LeaderAndIsr";
    case ApiKey::kStopReplica: return "StopReplica";
    case ApiKey::kUpdateMetadata: return "UpdateMetadata";
    case ApiKey::kControlledShutdown: return "ControlledShutdown";
    case ApiKey::kOffsetCommit: return "OffsetCommit";
    case ApiKey::kOffsetFetch: return "OffsetFetch";
    case ApiKey::kFindCoordinator: return "FindCoordinator";
    case ApiKey::kJoinGroup: return "JoinGroup";
    case ApiKey::kHeartbeat: return "Heartbeat";
    case ApiKey::kLeaveGroup: return "LeaveGroup";
    case ApiKey::kSyncGroup: return "SyncGroup";
    case ApiKey::kDescribeGroups: return "DescribeGroups";
    case ApiKey::kListGroups: return "ListGroups";
    case ApiKey::kSaslHandshake: return "SaslHandshake";
    case ApiKey::kApiVersions: return "ApiVersions";
    case ApiKey::kCreateTopics: return "CreateTopics";
    case ApiKey::kDeleteTopics: return "DeleteTopics";
    case ApiKey::kDeleteRecords: return "DeleteRecords";
    case ApiKey::kInitProducerId: return "InitProducerId";
    case ApiKey::kOffsetForLeaderEpoch: return "OffsetForLeaderEpoch";
    case ApiKey::kAddPartitionsToTxn: return "AddPartitionsToTxn";
    case ApiKey::kAddOffsetsToTxn: return "AddOffsetsToTxn";
    case ApiKey::kEndTxn: return "EndTxn";
    case ApiKey::kWriteTxnMarkers: return "WriteTxnMarkers";
    case ApiKey::kTxnOffsetCommit: return "TxnOffsetCommit";
    case ApiKey::kDescribeAcls: return "DescribeAcls";
    case ApiKey::kCreateAcls: return "CreateAcls";
    case ApiKey::kDeleteAcls: return "DeleteAcls";
    case ApiKey::kDescribeConfigs: return "DescribeConfigs";
    case ApiKey::kAlterConfigs: return "AlterConfigs";
    case ApiKey::kAlterReplicaLogDirs: return "AlterReplicaLogDirs";
    case ApiKey::kDescribeLogDirs: return "DescribeLogDirs";
    case ApiKey::kSaslAuthenticate: return "SaslAuthenticate";
    case ApiKey::kCreatePartitions: return "CreatePartitions";
    case ApiKey::kCreateDelegationToken: return "CreateDelegationToken";
    case ApiKey::kRenewDelegationToken: return "RenewDelegationToken";
    case ApiKey::kExpireDelegationToken: return "ExpireDelegationToken";
    case ApiKey::kDescribeDelegationToken: return "DescribeDelegationToken";
    case ApiKey::kDeleteGroups: return "DeleteGroups";
    case ApiKey::kElectLeaders: return "ElectLeaders";
    case ApiKey::kIncrementalAlterConfigs: return "IncrementalAlterConfigs";
    case ApiKey::kAlterPartitionReassignments: return "AlterPartitionReassignments";
    case ApiKey::kListPartitionReassignments: return "ListPartitionReassignments";
    case ApiKey::kOffsetDelete: return "OffsetDelete";
    case ApiKey::kDescribeClientQuotas: return "DescribeClientQuotas";
    case ApiKey::kAlterClientQuotas: return "AlterClientQuotas";
    case ApiKey::kDescribeUserScramCredentials: return "DescribeUserScramCredentials";
    case ApiKey::kAlterUserScramCredentials: return "AlterUserScramCredentials";
    case ApiKey::kDescribeQuorum: return "DescribeQuorum";
    case ApiKey::kUpdateFeatures: return "UpdateFeatures";
    case ApiKey::kDescribeCluster: return "DescribeCluster";
    case ApiKey::kDescribeProducers: return "DescribeProducers";
    case ApiKey::kDescribeTransactions: return "DescribeTransactions";
    case ApiKey::kListTransactions: return "ListTransactions";
    case ApiKey::kConsumerGroupHeartbeat: return "ConsumerGroupHeartbeat";
    case ApiKey::kConsumerGroupDescribe: return "ConsumerGroupDescribe";
    case ApiKey::kGetTelemetrySubscriptions: return "GetTelemetrySubscriptions";
    case ApiKey::kPushTelemetry: return "PushTelemetry";
    case ApiKey::kDescribeTopicPartitions: return "DescribeTopicPartitions";
  }
  return "Unknown";
}

}  // namespace rokka::protocol
