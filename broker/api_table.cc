#include "broker/api_table.h"

#include "broker/handlers/handlers.h"

namespace rokka::broker {
namespace {

using protocol::ApiKey;

// Ordered by api key. Version ranges are what we serve end to end (codec and
// semantics); ApiVersions is built from this table alone.
constexpr ApiEntry kApis[] = {
    {ApiKey::kProduce, 0, 11, &handle_produce, Dispatch::kByHandler},
    {ApiKey::kFetch, 4, 17, &handle_fetch, Dispatch::kImmediately},
    {ApiKey::kListOffsets, 0, 10, &handle_list_offsets},
    {ApiKey::kMetadata, 0, 13, &handle_metadata},
    {ApiKey::kOffsetCommit, 0, 9, &handle_offset_commit},
    {ApiKey::kOffsetFetch, 0, 9, &handle_offset_fetch},
    {ApiKey::kFindCoordinator, 0, 6, &handle_find_coordinator},
    {ApiKey::kJoinGroup, 0, 9, &handle_join_group, Dispatch::kImmediately},
    {ApiKey::kHeartbeat, 0, 4, &handle_heartbeat},
    {ApiKey::kLeaveGroup, 0, 5, &handle_leave_group},
    {ApiKey::kSyncGroup, 0, 5, &handle_sync_group, Dispatch::kImmediately},
    {ApiKey::kDescribeGroups, 0, 6, &handle_describe_groups},
    {ApiKey::kListGroups, 0, 5, &handle_list_groups},
    // v0 is listed, as Kafka does (librdkafka will not authenticate otherwise), but its
    // exchange of raw tokens is not served: a v0 handshake gets UNSUPPORTED_SASL_MECHANISM.
    {ApiKey::kSaslHandshake, 0, 1, &handle_sasl_handshake},
    {ApiKey::kApiVersions, 0, 4, &handle_api_versions},
    {ApiKey::kCreateTopics, 0, 7, &handle_create_topics},
    {ApiKey::kDeleteTopics, 0, 6, &handle_delete_topics},
    {ApiKey::kDeleteRecords, 0, 2, &handle_delete_records},
    {ApiKey::kInitProducerId, 0, 5, &handle_init_producer_id},
    {ApiKey::kOffsetForLeaderEpoch, 0, 4, &handle_offset_for_leader_epoch},
    {ApiKey::kAddPartitionsToTxn, 0, 3, &handle_add_partitions_to_txn},
    {ApiKey::kAddOffsetsToTxn, 0, 3, &handle_add_offsets_to_txn},
    {ApiKey::kEndTxn, 0, 3, &handle_end_txn},
    {ApiKey::kWriteTxnMarkers, 0, 1, &handle_write_txn_markers},  // broker to broker (cluster mode)
    {ApiKey::kTxnOffsetCommit, 0, 3, &handle_txn_offset_commit},
    {ApiKey::kDescribeAcls, 0, 3, &handle_describe_acls},
    {ApiKey::kCreateAcls, 0, 3, &handle_create_acls},
    {ApiKey::kDeleteAcls, 0, 3, &handle_delete_acls},
    {ApiKey::kDescribeConfigs, 0, 4, &handle_describe_configs},
    {ApiKey::kSaslAuthenticate, 0, 2, &handle_sasl_authenticate},
    {ApiKey::kAlterConfigs, 0, 2, &handle_alter_configs},
    {ApiKey::kDescribeLogDirs, 0, 4, &handle_describe_log_dirs},
    {ApiKey::kCreatePartitions, 0, 3, &handle_create_partitions},
    {ApiKey::kIncrementalAlterConfigs, 0, 1, &handle_incremental_alter_configs},
    {ApiKey::kDeleteGroups, 0, 2, &handle_delete_groups},
    {ApiKey::kElectLeaders, 0, 2, &handle_elect_leaders},
    {ApiKey::kAlterPartitionReassignments, 0, 0, &handle_alter_partition_reassignments},
    {ApiKey::kListPartitionReassignments, 0, 0, &handle_list_partition_reassignments},
    {ApiKey::kOffsetDelete, 0, 0, &handle_offset_delete},
    {ApiKey::kDescribeUserScramCredentials, 0, 0, &handle_describe_user_scram_credentials},
    {ApiKey::kAlterUserScramCredentials, 0, 0, &handle_alter_user_scram_credentials},
    {ApiKey::kDescribeClientQuotas, 0, 1, &handle_describe_client_quotas},
    {ApiKey::kAlterClientQuotas, 0, 1, &handle_alter_client_quotas},
    {ApiKey::kDescribeCluster, 0, 2, &handle_describe_cluster},
    {ApiKey::kDescribeProducers, 0, 0, &handle_describe_producers},
    {ApiKey::kDescribeTransactions, 0, 0, &handle_describe_transactions},
    {ApiKey::kListTransactions, 0, 2, &handle_list_transactions},
    {ApiKey::kConsumerGroupHeartbeat, 0, 1, &handle_consumer_group_heartbeat},
    {ApiKey::kConsumerGroupDescribe, 0, 1, &handle_consumer_group_describe},
    {ApiKey::kDescribeTopicPartitions, 0, 0, &handle_describe_topic_partitions},
};

}  // namespace

std::span<const ApiEntry> api_table() { return kApis; }

const ApiEntry* find_api(int16_t api_key) {
  for (const ApiEntry& e : kApis)
    if (static_cast<int16_t>(e.key) == api_key) return &e;
  return nullptr;
}

}  // namespace rokka::broker
