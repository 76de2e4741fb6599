// The codec table: every API protocol/ can decode and encode, and the versions it
// covers. tests/protocol/golden_test.cc proves each listed version against golden
// frames; the broker advertises (a sub-range of) these in ApiVersions.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/client_quotas.h"
#include "protocol/messages/consumer_group.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/messages/partition_reassignments.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/messages/sync_group.h"
#include "protocol/messages/txn_offset_commit.h"
#include "protocol/messages/write_txn_markers.h"

namespace rokka::protocol {

template <class Req, class Resp, int16_t Min, int16_t Max>
struct ApiCodec {
  static_assert(Req::kApiKey == Resp::kApiKey);
  static_assert(Min <= Max);
  using Request = Req;
  using Response = Resp;
  static constexpr ApiKey kKey = Req::kApiKey;
  static constexpr int16_t kMinVersion = Min;
  static constexpr int16_t kMaxVersion = Max;
  static constexpr bool supports(int16_t version) { return version >= Min && version <= Max; }
};

using ApiCodecs = std::tuple<
    ApiCodec<ProduceRequest, ProduceResponse, 0, 11>,
    ApiCodec<FetchRequest, FetchResponse, 4, 17>,
    ApiCodec<ListOffsetsRequest, ListOffsetsResponse, 0, 10>,
    ApiCodec<MetadataRequest, MetadataResponse, 0, 13>,
    ApiCodec<ApiVersionsRequest, ApiVersionsResponse, 0, 4>,
    ApiCodec<CreateTopicsRequest, CreateTopicsResponse, 0, 7>,
    ApiCodec<DeleteTopicsRequest, DeleteTopicsResponse, 0, 6>,
    ApiCodec<CreatePartitionsRequest, CreatePartitionsResponse, 0, 3>,
    ApiCodec<DeleteRecordsRequest, DeleteRecordsResponse, 0, 2>,
    ApiCodec<DescribeConfigsRequest, DescribeConfigsResponse, 0, 4>,
    ApiCodec<AlterConfigsRequest, AlterConfigsResponse, 0, 2>,
    ApiCodec<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 0, 1>,
    ApiCodec<InitProducerIdRequest, InitProducerIdResponse, 0, 5>,
    ApiCodec<DescribeClusterRequest, DescribeClusterResponse, 0, 2>,
    ApiCodec<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 0, 4>,
    ApiCodec<SaslHandshakeRequest, SaslHandshakeResponse, 0, 1>,
    ApiCodec<SaslAuthenticateRequest, SaslAuthenticateResponse, 0, 2>,
    ApiCodec<FindCoordinatorRequest, FindCoordinatorResponse, 0, 6>,
    ApiCodec<JoinGroupRequest, JoinGroupResponse, 0, 9>,
    ApiCodec<SyncGroupRequest, SyncGroupResponse, 0, 5>,
    ApiCodec<HeartbeatRequest, HeartbeatResponse, 0, 4>,
    ApiCodec<LeaveGroupRequest, LeaveGroupResponse, 0, 5>,
    ApiCodec<OffsetCommitRequest, OffsetCommitResponse, 0, 9>,
    ApiCodec<OffsetFetchRequest, OffsetFetchResponse, 0, 9>,
    ApiCodec<ListGroupsRequest, ListGroupsResponse, 0, 5>,
    ApiCodec<DescribeGroupsRequest, DescribeGroupsResponse, 0, 6>,
    ApiCodec<DeleteGroupsRequest, DeleteGroupsResponse, 0, 2>,
    ApiCodec<OffsetDeleteRequest, OffsetDeleteResponse, 0, 0>,
    ApiCodec<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, 0, 0>,
    ApiCodec<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, 0, 0>,
    ApiCodec<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 0, 3>,
    ApiCodec<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, 0, 3>,
    ApiCodec<EndTxnRequest, EndTxnResponse, 0, 3>,
    ApiCodec<TxnOffsetCommitRequest, TxnOffsetCommitResponse, 0, 3>,
    ApiCodec<WriteTxnMarkersRequest, WriteTxnMarkersResponse, 0, 1>,
    ApiCodec<DescribeProducersRequest, DescribeProducersResponse, 0, 0>,
    ApiCodec<DescribeTransactionsRequest, DescribeTransactionsResponse, 0, 0>,
    ApiCodec<ListTransactionsRequest, ListTransactionsResponse, 0, 2>,
    ApiCodec<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, 0>,
    ApiCodec<DescribeAclsRequest, DescribeAclsResponse, 0, 3>,
    ApiCodec<CreateAclsRequest, CreateAclsResponse, 0, 3>,
    ApiCodec<DeleteAclsRequest, DeleteAclsResponse, 0, 3>,
    ApiCodec<DescribeLogDirsRequest, DescribeLogDirsResponse, 0, 4>,
    ApiCodec<ElectLeadersRequest, ElectLeadersResponse, 0, 2>,
    ApiCodec<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, 0>,
    ApiCodec<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, 0>,
    ApiCodec<DescribeClientQuotasRequest, DescribeClientQuotasResponse, 0, 1>,
    ApiCodec<AlterClientQuotasRequest, AlterClientQuotasResponse, 0, 1>,
    ApiCodec<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 0, 1>,
    ApiCodec<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 0, 1>>;

// Calls f(codec) with a value of each ApiCodec type, in table order.
template <class F>
constexpr void for_each_api_codec(F&& f) {
  std::apply([&](auto... codec) { (f(codec), ...); }, ApiCodecs{});
}

// Calls f(codec) with the codec of `key`; false if protocol/ has none for it.
template <class F>
bool visit_api_codec(ApiKey key, F&& f) {
  bool found = false;
  for_each_api_codec([&](auto codec) {
    if (!found && decltype(codec)::kKey == key) {
      found = true;
      f(codec);
    }
  });
  return found;
}

struct VersionRange {
  int16_t min = 0;
  int16_t max = 0;
};

// The versions protocol/ can decode and encode for `key`; nullopt if none.
constexpr std::optional<VersionRange> codec_versions(ApiKey key) {
  std::optional<VersionRange> out;
  for_each_api_codec([&](auto codec) {
    using C = decltype(codec);
    if (C::kKey == key) out = VersionRange{C::kMinVersion, C::kMaxVersion};
  });
  return out;
}

}  // namespace rokka::protocol
