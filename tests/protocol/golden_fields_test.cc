// Named spot checks on golden frames: the field a handler reads by name holds the
// value gen.py put at that path. (golden_test.cc already checks every value in wire
// order; these catch a field decoded into the wrong member.)
#include <gtest/gtest.h>

#include <concepts>

#include "protocol/api_codecs.h"
#include "tests/protocol/golden_support.h"

namespace rokka::protocol {
namespace {

using testutil::to_hex;

// gen.py's token for a value.
template <std::integral T>
std::string tok(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else {
    return std::to_string(v);
  }
}
std::string tok(ErrorCode v) { return std::to_string(to_int(v)); }
std::string tok(std::string_view v) { return "s:" + std::string(v); }
template <class T>
std::string tok(const std::optional<T>& v) {
  return v ? tok(*v) : "null";
}
std::string tok(const Records& v) { return v.is_null() ? "null" : "r:" + to_hex(*v.data); }
std::string tok(Bytes v) { return "b:" + to_hex(v); }
std::string tok(const std::vector<std::byte>& v) { return tok(Bytes(v)); }
std::string tok(const Uuid& v) { return "u:" + to_hex(std::as_bytes(std::span(v))); }

// Decodes the `full` golden frame of M at `version`.
template <class M>
struct Golden {
  Golden(bool is_request, int16_t version) {
    const std::string name = std::string(api_name(M::kApiKey)) + (is_request ? "Request" : "Response");
    file = GoldenFile::load(name);
    g = file.find(version, "full");
    if (!g) throw std::runtime_error("no golden " + name);
    decoded = decode_frame<M>(g->frame, is_request, version);
    if (!decoded.ok) throw std::runtime_error("golden " + name + " does not decode");
  }
  const M& m() const { return decoded.message; }
  const std::string& at(const std::string& path) const { return g->at(path); }

  GoldenFile file;
  const GoldenCase* g = nullptr;
  Decoded<M> decoded;
};

TEST(GoldenFieldsTest, Produce) {
  Golden<ProduceRequest> req(true, 9);
  EXPECT_EQ(tok(req.m().transactional_id), req.at("TransactionalId"));
  EXPECT_EQ(tok(req.m().acks), req.at("Acks"));
  EXPECT_EQ(tok(req.m().timeout_ms), req.at("TimeoutMs"));
  EXPECT_EQ(tok(req.m().topic_data[1].name), req.at("TopicData.1.Name"));
  EXPECT_EQ(tok(req.m().topic_data[1].partition_data[0].index), req.at("TopicData.1.PartitionData.0.Index"));
  EXPECT_EQ(tok(req.m().topic_data[0].partition_data[1].records), req.at("TopicData.0.PartitionData.1.Records"));

  Golden<ProduceResponse> resp(false, 9);
  const auto& p = resp.m().responses[1].partition_responses[0];
  EXPECT_EQ(tok(p.base_offset), resp.at("Responses.1.PartitionResponses.0.BaseOffset"));
  EXPECT_EQ(tok(p.log_start_offset), resp.at("Responses.1.PartitionResponses.0.LogStartOffset"));
  EXPECT_EQ(tok(p.log_append_time_ms), resp.at("Responses.1.PartitionResponses.0.LogAppendTimeMs"));
  EXPECT_EQ(tok(p.record_errors[1].batch_index),
            resp.at("Responses.1.PartitionResponses.0.RecordErrors.1.BatchIndex"));
  EXPECT_EQ(tok(resp.m().throttle_time_ms), resp.at("ThrottleTimeMs"));
}

TEST(GoldenFieldsTest, Fetch) {
  Golden<FetchRequest> req(true, 12);
  EXPECT_EQ(tok(req.m().max_wait_ms), req.at("MaxWaitMs"));
  EXPECT_EQ(tok(req.m().min_bytes), req.at("MinBytes"));
  EXPECT_EQ(tok(req.m().max_bytes), req.at("MaxBytes"));
  EXPECT_EQ(tok(req.m().isolation_level), req.at("IsolationLevel"));
  EXPECT_EQ(tok(req.m().session_epoch), req.at("SessionEpoch"));
  const auto& part = req.m().topics[1].partitions[0];
  EXPECT_EQ(tok(req.m().topics[1].topic), req.at("Topics.1.Topic"));
  EXPECT_EQ(tok(part.fetch_offset), req.at("Topics.1.Partitions.0.FetchOffset"));
  EXPECT_EQ(tok(part.partition_max_bytes), req.at("Topics.1.Partitions.0.PartitionMaxBytes"));
  EXPECT_EQ(tok(part.current_leader_epoch), req.at("Topics.1.Partitions.0.CurrentLeaderEpoch"));
  EXPECT_EQ(tok(req.m().rack_id), req.at("RackId"));

  Golden<FetchResponse> resp(false, 12);
  const auto& p = resp.m().responses[0].partitions[1];
  EXPECT_EQ(tok(p.high_watermark), resp.at("Responses.0.Partitions.1.HighWatermark"));
  EXPECT_EQ(tok(p.last_stable_offset), resp.at("Responses.0.Partitions.1.LastStableOffset"));
  EXPECT_EQ(tok(p.log_start_offset), resp.at("Responses.0.Partitions.1.LogStartOffset"));
  EXPECT_EQ(tok((*p.aborted_transactions)[1].first_offset),
            resp.at("Responses.0.Partitions.1.AbortedTransactions.1.FirstOffset"));
  EXPECT_EQ(tok(p.records), resp.at("Responses.0.Partitions.1.Records"));
  EXPECT_EQ(tok(resp.m().session_id), resp.at("SessionId"));
}

TEST(GoldenFieldsTest, ListOffsetsAndMetadata) {
  Golden<ListOffsetsRequest> lo(true, 7);
  EXPECT_EQ(tok(lo.m().replica_id), lo.at("ReplicaId"));
  EXPECT_EQ(tok(lo.m().topics[0].partitions[1].timestamp), lo.at("Topics.0.Partitions.1.Timestamp"));
  Golden<ListOffsetsResponse> lor(false, 7);
  EXPECT_EQ(tok(lor.m().topics[1].partitions[0].offset), lor.at("Topics.1.Partitions.0.Offset"));
  EXPECT_EQ(tok(lor.m().topics[1].partitions[0].leader_epoch), lor.at("Topics.1.Partitions.0.LeaderEpoch"));

  Golden<MetadataRequest> md(true, 12);
  EXPECT_EQ(tok((*md.m().topics)[1].name), md.at("Topics.1.Name"));
  EXPECT_EQ(tok((*md.m().topics)[1].topic_id), md.at("Topics.1.TopicId"));
  EXPECT_EQ(tok(md.m().allow_auto_topic_creation), md.at("AllowAutoTopicCreation"));
  Golden<MetadataResponse> mdr(false, 12);
  EXPECT_EQ(tok(mdr.m().brokers[1].host), mdr.at("Brokers.1.Host"));
  EXPECT_EQ(tok(mdr.m().brokers[1].port), mdr.at("Brokers.1.Port"));
  EXPECT_EQ(tok(mdr.m().cluster_id), mdr.at("ClusterId"));
  EXPECT_EQ(tok(mdr.m().controller_id), mdr.at("ControllerId"));
  const auto& p = mdr.m().topics[0].partitions[1];
  EXPECT_EQ(tok(p.leader_id), mdr.at("Topics.0.Partitions.1.LeaderId"));
  EXPECT_EQ(tok(p.isr_nodes[1]), mdr.at("Topics.0.Partitions.1.IsrNodes.1"));
  EXPECT_EQ(tok(mdr.m().topics[1].topic_id), mdr.at("Topics.1.TopicId"));
}

TEST(GoldenFieldsTest, JoinAndSyncGroup) {
  Golden<JoinGroupRequest> join(true, 9);
  EXPECT_EQ(tok(join.m().group_id), join.at("GroupId"));
  EXPECT_EQ(tok(join.m().session_timeout_ms), join.at("SessionTimeoutMs"));
  EXPECT_EQ(tok(join.m().rebalance_timeout_ms), join.at("RebalanceTimeoutMs"));
  EXPECT_EQ(tok(join.m().member_id), join.at("MemberId"));
  EXPECT_EQ(tok(join.m().group_instance_id), join.at("GroupInstanceId"));
  EXPECT_EQ(tok(join.m().protocols[1].name), join.at("Protocols.1.Name"));
  EXPECT_EQ(tok(join.m().protocols[1].metadata), join.at("Protocols.1.Metadata"));
  EXPECT_EQ(tok(join.m().reason), join.at("Reason"));
  Golden<JoinGroupResponse> joined(false, 9);
  EXPECT_EQ(tok(joined.m().generation_id), joined.at("GenerationId"));
  EXPECT_EQ(tok(joined.m().leader), joined.at("Leader"));
  EXPECT_EQ(tok(joined.m().member_id), joined.at("MemberId"));
  EXPECT_EQ(tok(joined.m().skip_assignment), joined.at("SkipAssignment"));
  EXPECT_EQ(tok(joined.m().members[1].metadata), joined.at("Members.1.Metadata"));

  Golden<SyncGroupRequest> sync(true, 5);
  EXPECT_EQ(tok(sync.m().generation_id), sync.at("GenerationId"));
  EXPECT_EQ(tok(sync.m().protocol_name), sync.at("ProtocolName"));
  EXPECT_EQ(tok(sync.m().assignments[1].member_id), sync.at("Assignments.1.MemberId"));
  EXPECT_EQ(tok(sync.m().assignments[1].assignment), sync.at("Assignments.1.Assignment"));
  Golden<SyncGroupResponse> synced(false, 5);
  EXPECT_EQ(tok(synced.m().assignment), synced.at("Assignment"));
  EXPECT_EQ(tok(synced.m().error_code), synced.at("ErrorCode"));
}

TEST(GoldenFieldsTest, HeartbeatLeaveAndDescribeGroups) {
  Golden<HeartbeatRequest> hb(true, 4);
  EXPECT_EQ(tok(hb.m().generation_id), hb.at("GenerationId"));
  EXPECT_EQ(tok(hb.m().member_id), hb.at("MemberId"));
  Golden<LeaveGroupRequest> leave(true, 5);
  EXPECT_EQ(tok(leave.m().members[1].member_id), leave.at("Members.1.MemberId"));
  EXPECT_EQ(tok(leave.m().members[1].group_instance_id), leave.at("Members.1.GroupInstanceId"));
  Golden<DescribeGroupsResponse> dg(false, 5);
  const auto& g = dg.m().groups[1];
  EXPECT_EQ(tok(g.group_state), dg.at("Groups.1.GroupState"));
  EXPECT_EQ(tok(g.protocol_data), dg.at("Groups.1.ProtocolData"));
  EXPECT_EQ(tok(g.members[0].client_host), dg.at("Groups.1.Members.0.ClientHost"));
  EXPECT_EQ(tok(g.members[0].member_assignment), dg.at("Groups.1.Members.0.MemberAssignment"));
  Golden<ListGroupsRequest> lg(true, 4);
  EXPECT_EQ(tok(lg.m().states_filter[1]), lg.at("StatesFilter.1"));
}

TEST(GoldenFieldsTest, OffsetCommitAndFetch) {
  Golden<OffsetCommitRequest> commit(true, 9);
  EXPECT_EQ(tok(commit.m().generation_id_or_member_epoch), commit.at("GenerationIdOrMemberEpoch"));
  const auto& p = commit.m().topics[1].partitions[0];
  EXPECT_EQ(tok(p.committed_offset), commit.at("Topics.1.Partitions.0.CommittedOffset"));
  EXPECT_EQ(tok(p.committed_leader_epoch), commit.at("Topics.1.Partitions.0.CommittedLeaderEpoch"));
  EXPECT_EQ(tok(p.committed_metadata), commit.at("Topics.1.Partitions.0.CommittedMetadata"));
  Golden<OffsetCommitRequest> commit_v1(true, 1);
  EXPECT_EQ(tok(commit_v1.m().topics[0].partitions[1].commit_timestamp),
            commit_v1.at("Topics.0.Partitions.1.CommitTimestamp"));

  Golden<OffsetFetchRequest> fetch8(true, 8);
  EXPECT_EQ(tok(fetch8.m().groups[1].group_id), fetch8.at("Groups.1.GroupId"));
  EXPECT_EQ(tok((*fetch8.m().groups[1].topics)[0].partition_indexes[1]),
            fetch8.at("Groups.1.Topics.0.PartitionIndexes.1"));
  EXPECT_EQ(tok(fetch8.m().require_stable), fetch8.at("RequireStable"));
  Golden<OffsetFetchResponse> fetched8(false, 8);
  const auto& q = fetched8.m().groups[0].topics[1].partitions[1];
  EXPECT_EQ(tok(q.committed_offset), fetched8.at("Groups.0.Topics.1.Partitions.1.CommittedOffset"));
  EXPECT_EQ(tok(q.metadata), fetched8.at("Groups.0.Topics.1.Partitions.1.Metadata"));
  EXPECT_EQ(tok(fetched8.m().groups[0].error_code), fetched8.at("Groups.0.ErrorCode"));
  Golden<OffsetFetchResponse> fetched7(false, 7);
  EXPECT_EQ(tok(fetched7.m().topics[1].partitions[0].committed_leader_epoch),
            fetched7.at("Topics.1.Partitions.0.CommittedLeaderEpoch"));
  EXPECT_EQ(tok(fetched7.m().error_code), fetched7.at("ErrorCode"));
}

TEST(GoldenFieldsTest, FindCoordinatorInitProducerIdAndCreateTopics) {
  Golden<FindCoordinatorRequest> fc(true, 4);
  EXPECT_EQ(tok(fc.m().key_type), fc.at("KeyType"));
  EXPECT_EQ(tok(fc.m().coordinator_keys[1]), fc.at("CoordinatorKeys.1"));
  Golden<FindCoordinatorResponse> fcr(false, 4);
  EXPECT_EQ(tok(fcr.m().coordinators[1].host), fcr.at("Coordinators.1.Host"));
  EXPECT_EQ(tok(fcr.m().coordinators[1].node_id), fcr.at("Coordinators.1.NodeId"));
  Golden<FindCoordinatorResponse> fcr3(false, 3);
  EXPECT_EQ(tok(fcr3.m().port), fcr3.at("Port"));

  Golden<InitProducerIdRequest> ipi(true, 4);
  EXPECT_EQ(tok(ipi.m().transactional_id), ipi.at("TransactionalId"));
  EXPECT_EQ(tok(ipi.m().producer_epoch), ipi.at("ProducerEpoch"));
  Golden<InitProducerIdResponse> ipr(false, 4);
  EXPECT_EQ(tok(ipr.m().producer_id), ipr.at("ProducerId"));

  Golden<CreateTopicsRequest> ct(true, 7);
  EXPECT_EQ(tok(ct.m().topics[1].num_partitions), ct.at("Topics.1.NumPartitions"));
  EXPECT_EQ(tok(ct.m().topics[1].configs[0].value), ct.at("Topics.1.Configs.0.Value"));
  EXPECT_EQ(tok(ct.m().validate_only), ct.at("validateOnly"));
  Golden<CreateTopicsResponse> ctr(false, 7);
  EXPECT_EQ(tok(ctr.m().topics[0].topic_id), ctr.at("Topics.0.TopicId"));
  EXPECT_EQ(tok(ctr.m().topics[0].error_message), ctr.at("Topics.0.ErrorMessage"));
}

}  // namespace
}  // namespace rokka::protocol
