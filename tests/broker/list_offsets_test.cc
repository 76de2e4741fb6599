// ListOffsets at the versions Kafka 3.9 / 4.x added (v8-v10), over the wire against the
// in-process broker.
#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

struct Found {
  int16_t error = -999;
  int64_t timestamp = -999;
  int64_t offset = -999;
  int32_t leader_epoch = -999;
};

class ListOffsetsVersionsTest : public ::testing::Test {
 protected:
  // Topic "lo": 5 records at offsets 0-4, then records below 2 deleted (log start 2).
  void SetUp() override {
    protocol::MetadataRequest md;
    md.topics.emplace();
    md.topics->push_back({protocol::Uuid{}, "lo"});
    c_.send(md, 9, ++cid_);
    auto created = c_.receive<protocol::MetadataResponse>(9, cid_);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics.at(0).error_code, ErrorCode::kNone);

    const auto batch = testutil::make_batch({.records = 5});
    protocol::ProduceRequest produce;
    produce.acks = -1;
    produce.timeout_ms = 5000;
    auto& t = produce.topic_data.emplace_back();
    t.name = "lo";
    auto& p = t.partition_data.emplace_back();
    p.index = 0;
    p.records.data = protocol::Bytes(batch);
    c_.send(produce, 9, ++cid_);
    auto produced = c_.receive<protocol::ProduceResponse>(9, cid_);
    ASSERT_TRUE(produced);
    ASSERT_EQ(produced->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);

    protocol::DeleteRecordsRequest del;
    del.topics.push_back({"lo", {{0, 2}}});
    del.timeout_ms = 5000;
    c_.send(del, 2, ++cid_);
    auto deleted = c_.receive<protocol::DeleteRecordsResponse>(2, cid_);
    ASSERT_TRUE(deleted);
    ASSERT_EQ(deleted->topics.at(0).partitions.at(0).error_code, ErrorCode::kNone);
  }

  Found list(int16_t v, int64_t timestamp, int32_t timeout_ms = 0) {
    protocol::ListOffsetsRequest req;
    req.replica_id = -1;
    req.timeout_ms = timeout_ms;
    auto& t = req.topics.emplace_back();
    t.name = "lo";
    t.partitions.push_back({0, -1, timestamp, 1});
    c_.send(req, v, ++cid_);
    auto resp = c_.receive<protocol::ListOffsetsResponse>(v, cid_);
    if (!resp) return {};
    const auto& p = resp->topics.at(0).partitions.at(0);
    return {rokka::protocol::to_int(p.error_code), p.timestamp, p.offset, p.leader_epoch};
  }

  InProcessBroker b_;
  WireClient c_{b_.port()};
  int32_t cid_ = 0;
};

// -4, EARLIEST_LOCAL_TIMESTAMP (v8+, KIP-405): with nothing tiered, the local log starts
// where the log does, so the answer is the log start offset, as for -2.
TEST_F(ListOffsetsVersionsTest, EarliestLocalIsTheLogStartFromVersion8) {
  for (int16_t v : {8, 9, 10}) {
    SCOPED_TRACE("v" + std::to_string(v));
    const Found f = list(v, -4);
    EXPECT_EQ(f.error, 0);
    EXPECT_EQ(f.offset, 2);
    EXPECT_EQ(f.timestamp, -1);
    EXPECT_EQ(f.offset, list(v, -2).offset);
  }
  EXPECT_EQ(list(7, -4).error, protocol::to_int(ErrorCode::kInvalidRequest));  // not defined before v8
}

// -5, LATEST_TIERED_TIMESTAMP (v9+, KIP-1005): no remote storage, so Kafka's answer:
// offset -1, timestamp -1, leader epoch -1, no error.
TEST_F(ListOffsetsVersionsTest, LatestTieredIsMinusOneFromVersion9) {
  for (int16_t v : {9, 10}) {
    SCOPED_TRACE("v" + std::to_string(v));
    const Found f = list(v, -5);
    EXPECT_EQ(f.error, 0);
    EXPECT_EQ(f.offset, -1);
    EXPECT_EQ(f.timestamp, -1);
    EXPECT_EQ(f.leader_epoch, -1);
  }
  EXPECT_EQ(list(8, -5).error, protocol::to_int(ErrorCode::kInvalidRequest));  // not defined before v9
}

// v10 adds timeout_ms (KIP-1075, for remote-storage lookups): the answers are those of v9.
TEST_F(ListOffsetsVersionsTest, Version10WithATimeoutAnswersAsVersion9) {
  EXPECT_EQ(list(10, -1, 30000).offset, 5);
  EXPECT_EQ(list(10, -2, 30000).offset, 2);
  EXPECT_EQ(list(10, -3, 30000).offset, 4);
  EXPECT_EQ(list(10, 1003, 1).offset, 3);  // the record with timestamp 1003
}

}  // namespace
}  // namespace rokka
