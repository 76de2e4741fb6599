// One handler per API, each in broker/handlers/<api>.cc.
#pragma once

#include "broker/net/request_context.h"

namespace rokka::protocol {
struct AddOffsetsToTxnRequest;
struct AddPartitionsToTxnRequest;
struct AlterClientQuotasRequest;
struct AlterConfigsRequest;
struct AlterPartitionReassignmentsRequest;
struct AlterUserScramCredentialsRequest;
struct ConsumerGroupDescribeRequest;
struct ConsumerGroupHeartbeatRequest;
struct CreateAclsRequest;
struct CreatePartitionsRequest;
struct CreateTopicsRequest;
struct DeleteAclsRequest;
struct DeleteGroupsRequest;
struct DeleteRecordsRequest;
struct DeleteTopicsRequest;
struct DescribeAclsRequest;
struct DescribeClientQuotasRequest;
struct DescribeClusterRequest;
struct DescribeConfigsRequest;
struct DescribeGroupsRequest;
struct DescribeLogDirsRequest;
struct DescribeProducersRequest;
struct DescribeTopicPartitionsRequest;
struct DescribeTransactionsRequest;
struct DescribeUserScramCredentialsRequest;
struct ElectLeadersRequest;
struct EndTxnRequest;
struct FetchRequest;
struct FindCoordinatorRequest;
struct HeartbeatRequest;
struct IncrementalAlterConfigsRequest;
struct InitProducerIdRequest;
struct JoinGroupRequest;
struct LeaveGroupRequest;
struct ListGroupsRequest;
struct ListOffsetsRequest;
struct ListPartitionReassignmentsRequest;
struct ListTransactionsRequest;
struct MetadataRequest;
struct OffsetCommitRequest;
struct OffsetDeleteRequest;
struct OffsetFetchRequest;
struct OffsetForLeaderEpochRequest;
struct ProduceRequest;
struct SaslAuthenticateRequest;
struct SaslHandshakeRequest;
struct SyncGroupRequest;
struct TxnOffsetCommitRequest;
struct WriteTxnMarkersRequest;
}  // namespace rokka::protocol

namespace rokka::broker {

using HandlerCoroutine = boost::asio::awaitable<HandlerResult>;

// A handler takes its request decoded; the API table wraps it into a Handler that
// decodes the body first (broker/net/api_table.cc, `decoded`). ApiVersions alone
// takes the raw context: it must answer versions it cannot decode.
template <typename Req>
using TypedHandler = HandlerCoroutine (*)(RequestContext& ctx, Req& req);

// OffsetFetch reads one malformed shape the way Kafka does (offset_fetch.cc); the
// other requests are decoded by their codec alone (handler_util.h).
bool decode_request(const RequestContext& ctx, protocol::OffsetFetchRequest& req);

HandlerCoroutine handle_api_versions(RequestContext ctx);
HandlerCoroutine handle_metadata(RequestContext& ctx, protocol::MetadataRequest& req);
HandlerCoroutine handle_describe_topic_partitions(RequestContext& ctx, protocol::DescribeTopicPartitionsRequest& req);
HandlerCoroutine handle_produce(RequestContext& ctx, protocol::ProduceRequest& req);
HandlerCoroutine handle_fetch(RequestContext& ctx, protocol::FetchRequest& req);
HandlerCoroutine handle_list_offsets(RequestContext& ctx, protocol::ListOffsetsRequest& req);
HandlerCoroutine handle_offset_for_leader_epoch(RequestContext& ctx, protocol::OffsetForLeaderEpochRequest& req);
HandlerCoroutine handle_create_topics(RequestContext& ctx, protocol::CreateTopicsRequest& req);
HandlerCoroutine handle_delete_topics(RequestContext& ctx, protocol::DeleteTopicsRequest& req);
HandlerCoroutine handle_create_partitions(RequestContext& ctx, protocol::CreatePartitionsRequest& req);
HandlerCoroutine handle_delete_records(RequestContext& ctx, protocol::DeleteRecordsRequest& req);
HandlerCoroutine handle_describe_configs(RequestContext& ctx, protocol::DescribeConfigsRequest& req);
HandlerCoroutine handle_alter_configs(RequestContext& ctx, protocol::AlterConfigsRequest& req);
HandlerCoroutine handle_incremental_alter_configs(RequestContext& ctx, protocol::IncrementalAlterConfigsRequest& req);
HandlerCoroutine handle_init_producer_id(RequestContext& ctx, protocol::InitProducerIdRequest& req);
HandlerCoroutine handle_describe_cluster(RequestContext& ctx, protocol::DescribeClusterRequest& req);
HandlerCoroutine handle_find_coordinator(RequestContext& ctx, protocol::FindCoordinatorRequest& req);
HandlerCoroutine handle_join_group(RequestContext& ctx, protocol::JoinGroupRequest& req);
HandlerCoroutine handle_sync_group(RequestContext& ctx, protocol::SyncGroupRequest& req);
HandlerCoroutine handle_heartbeat(RequestContext& ctx, protocol::HeartbeatRequest& req);
HandlerCoroutine handle_leave_group(RequestContext& ctx, protocol::LeaveGroupRequest& req);
HandlerCoroutine handle_offset_commit(RequestContext& ctx, protocol::OffsetCommitRequest& req);
HandlerCoroutine handle_offset_fetch(RequestContext& ctx, protocol::OffsetFetchRequest& req);
HandlerCoroutine handle_list_groups(RequestContext& ctx, protocol::ListGroupsRequest& req);
HandlerCoroutine handle_sasl_handshake(RequestContext& ctx, protocol::SaslHandshakeRequest& req);
HandlerCoroutine handle_sasl_authenticate(RequestContext& ctx, protocol::SaslAuthenticateRequest& req);
HandlerCoroutine handle_describe_groups(RequestContext& ctx, protocol::DescribeGroupsRequest& req);
HandlerCoroutine handle_consumer_group_heartbeat(RequestContext& ctx, protocol::ConsumerGroupHeartbeatRequest& req);
HandlerCoroutine handle_consumer_group_describe(RequestContext& ctx, protocol::ConsumerGroupDescribeRequest& req);
HandlerCoroutine handle_delete_groups(RequestContext& ctx, protocol::DeleteGroupsRequest& req);
HandlerCoroutine handle_offset_delete(RequestContext& ctx, protocol::OffsetDeleteRequest& req);
HandlerCoroutine handle_add_partitions_to_txn(RequestContext& ctx, protocol::AddPartitionsToTxnRequest& req);
HandlerCoroutine handle_add_offsets_to_txn(RequestContext& ctx, protocol::AddOffsetsToTxnRequest& req);
HandlerCoroutine handle_end_txn(RequestContext& ctx, protocol::EndTxnRequest& req);
HandlerCoroutine handle_write_txn_markers(RequestContext& ctx, protocol::WriteTxnMarkersRequest& req);
HandlerCoroutine handle_describe_transactions(RequestContext& ctx, protocol::DescribeTransactionsRequest& req);
HandlerCoroutine handle_list_transactions(RequestContext& ctx, protocol::ListTransactionsRequest& req);
HandlerCoroutine handle_describe_producers(RequestContext& ctx, protocol::DescribeProducersRequest& req);
HandlerCoroutine handle_describe_log_dirs(RequestContext& ctx, protocol::DescribeLogDirsRequest& req);
HandlerCoroutine handle_elect_leaders(RequestContext& ctx, protocol::ElectLeadersRequest& req);
HandlerCoroutine handle_alter_partition_reassignments(RequestContext& ctx, protocol::AlterPartitionReassignmentsRequest& req);
HandlerCoroutine handle_list_partition_reassignments(RequestContext& ctx, protocol::ListPartitionReassignmentsRequest& req);
HandlerCoroutine handle_txn_offset_commit(RequestContext& ctx, protocol::TxnOffsetCommitRequest& req);
HandlerCoroutine handle_describe_acls(RequestContext& ctx, protocol::DescribeAclsRequest& req);
HandlerCoroutine handle_create_acls(RequestContext& ctx, protocol::CreateAclsRequest& req);
HandlerCoroutine handle_delete_acls(RequestContext& ctx, protocol::DeleteAclsRequest& req);
HandlerCoroutine handle_describe_user_scram_credentials(RequestContext& ctx, protocol::DescribeUserScramCredentialsRequest& req);
HandlerCoroutine handle_alter_user_scram_credentials(RequestContext& ctx, protocol::AlterUserScramCredentialsRequest& req);
HandlerCoroutine handle_describe_client_quotas(RequestContext& ctx, protocol::DescribeClientQuotasRequest& req);
HandlerCoroutine handle_alter_client_quotas(RequestContext& ctx, protocol::AlterClientQuotasRequest& req);

}  // namespace rokka::broker
