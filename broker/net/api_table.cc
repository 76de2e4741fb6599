#include "broker/net/api_table.h"

#include "broker/handlers/handlers.h"
#include "protocol/api_codecs.h"

namespace rokka::broker {
namespace {

using protocol::ApiKey;

// An API served over all the versions its codec covers (a compile error if it has none).
constexpr ApiEntry served(ApiKey key, Handler handle, Dispatch dispatch = Dispatch::kOnCompletion) {
  const std::optional<protocol::VersionRange> v = protocol::codec_versions(key);
  if (!v) throw "no codec for this API in protocol/api_codecs.h";  // not a constant: does not compile
  return {key, v->min, v->max, handle, dispatch};
}
// An API served over fewer versions than its codec covers (checked at compile time).
[[maybe_unused]] constexpr ApiEntry served_narrower(ApiKey key, int16_t min, int16_t max, Handler handle,
                                                   Dispatch dispatch = Dispatch::kOnCompletion) {
  const std::optional<protocol::VersionRange> v = protocol::codec_versions(key);
  if (!v || min < v->min || max > v->max || min > max) throw "outside the codec's versions";
  return {key, min, max, handle, dispatch};
}

// Ordered by api key. Each API is served over the versions protocol/'s codec covers
// (protocol/api_codecs.h), end to end; an API without a codec does not compile, and a
// narrower range would be stated here with served_narrower(). ApiVersions is built from
// this table alone.
constexpr ApiEntry kApis[] = {
    served(ApiKey::kProduce, &handle_produce, Dispatch::kByHandler),
    served(ApiKey::kFetch, &handle_fetch, Dispatch::kImmediately),
    served(ApiKey::kListOffsets, &handle_list_offsets),
    served(ApiKey::kMetadata, &handle_metadata),
    served(ApiKey::kOffsetCommit, &handle_offset_commit),
    served(ApiKey::kOffsetFetch, &handle_offset_fetch),
    served(ApiKey::kFindCoordinator, &handle_find_coordinator),
    served(ApiKey::kJoinGroup, &handle_join_group, Dispatch::kImmediately),
    served(ApiKey::kHeartbeat, &handle_heartbeat),
    served(ApiKey::kLeaveGroup, &handle_leave_group),
    served(ApiKey::kSyncGroup, &handle_sync_group, Dispatch::kImmediately),
    served(ApiKey::kDescribeGroups, &handle_describe_groups),
    served(ApiKey::kListGroups, &handle_list_groups),
    // v0 is listed, as Kafka does (librdkafka will not authenticate otherwise), but its
    // exchange of raw tokens is not served: a v0 handshake gets UNSUPPORTED_SASL_MECHANISM.
    served(ApiKey::kSaslHandshake, &handle_sasl_handshake),
    served(ApiKey::kApiVersions, &handle_api_versions),
    served(ApiKey::kCreateTopics, &handle_create_topics),
    served(ApiKey::kDeleteTopics, &handle_delete_topics),
    served(ApiKey::kDeleteRecords, &handle_delete_records),
    served(ApiKey::kInitProducerId, &handle_init_producer_id),
    served(ApiKey::kOffsetForLeaderEpoch, &handle_offset_for_leader_epoch),
    served(ApiKey::kAddPartitionsToTxn, &handle_add_partitions_to_txn),
    served(ApiKey::kAddOffsetsToTxn, &handle_add_offsets_to_txn),
    served(ApiKey::kEndTxn, &handle_end_txn),
    served(ApiKey::kWriteTxnMarkers, &handle_write_txn_markers),  // broker to broker (cluster mode)
    served(ApiKey::kTxnOffsetCommit, &handle_txn_offset_commit),
    served(ApiKey::kDescribeAcls, &handle_describe_acls),
    served(ApiKey::kCreateAcls, &handle_create_acls),
    served(ApiKey::kDeleteAcls, &handle_delete_acls),
    served(ApiKey::kDescribeConfigs, &handle_describe_configs),
    served(ApiKey::kSaslAuthenticate, &handle_sasl_authenticate),
    served(ApiKey::kAlterConfigs, &handle_alter_configs),
    served(ApiKey::kDescribeLogDirs, &handle_describe_log_dirs),
    served(ApiKey::kCreatePartitions, &handle_create_partitions),
    served(ApiKey::kIncrementalAlterConfigs, &handle_incremental_alter_configs),
    served(ApiKey::kDeleteGroups, &handle_delete_groups),
    served(ApiKey::kElectLeaders, &handle_elect_leaders),
    served(ApiKey::kAlterPartitionReassignments, &handle_alter_partition_reassignments),
    served(ApiKey::kListPartitionReassignments, &handle_list_partition_reassignments),
    served(ApiKey::kOffsetDelete, &handle_offset_delete),
    served(ApiKey::kDescribeUserScramCredentials, &handle_describe_user_scram_credentials),
    served(ApiKey::kAlterUserScramCredentials, &handle_alter_user_scram_credentials),
    served(ApiKey::kDescribeClientQuotas, &handle_describe_client_quotas),
    served(ApiKey::kAlterClientQuotas, &handle_alter_client_quotas),
    served(ApiKey::kDescribeCluster, &handle_describe_cluster),
    served(ApiKey::kDescribeProducers, &handle_describe_producers),
    served(ApiKey::kDescribeTransactions, &handle_describe_transactions),
    served(ApiKey::kListTransactions, &handle_list_transactions),
    served(ApiKey::kConsumerGroupHeartbeat, &handle_consumer_group_heartbeat),
    served(ApiKey::kConsumerGroupDescribe, &handle_consumer_group_describe),
    served(ApiKey::kDescribeTopicPartitions, &handle_describe_topic_partitions),
};

}  // namespace

std::span<const ApiEntry> api_table() { return kApis; }

const ApiEntry* find_api(int16_t api_key) {
  for (const ApiEntry& e : kApis)
    if (static_cast<int16_t>(e.key) == api_key) return &e;
  return nullptr;
}

}  // namespace rokka::broker
