// Fetch v13+ names topics by id (KIP-516): over raw frames against the in-process broker.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using protocol::FetchRequest;
using protocol::FetchResponse;
using protocol::Uuid;
using testutil::InProcessBroker;
using testutil::WireClient;

class FetchByTopicIdTest : public ::testing::Test {
 protected:
  // Creates `name` (auto-creation) and returns its id.
  Uuid create(std::string_view name) {
    protocol::MetadataRequest md;
    md.topics.emplace();
    md.topics->push_back({Uuid{}, name});
    c_.send(md, 12, ++cid_);
    auto r = c_.receive<protocol::MetadataResponse>(12, cid_);
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->topics.at(0).error_code, ErrorCode::kNone);
    return r->topics.at(0).topic_id;
  }
  void produce(std::string_view name, const std::vector<std::byte>& batch) {
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 5000;
    auto& t = req.topic_data.emplace_back();
    t.name = name;
    auto& p = t.partition_data.emplace_back();
    p.index = 0;
    p.records.data = protocol::Bytes(batch);
    c_.send(req, 9, ++cid_);
    auto r = c_.receive<protocol::ProduceResponse>(9, cid_);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);
  }
  std::optional<FetchResponse> fetch(int16_t v, const std::vector<Uuid>& ids) {
    FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 1;
    req.max_bytes = 1 << 20;
    for (const Uuid& id : ids) {
      auto& t = req.topics.emplace_back();
      t.topic_id = id;
      auto& p = t.partitions.emplace_back();
      p.partition = 0;
      p.fetch_offset = 0;
      p.partition_max_bytes = 1 << 20;
    }
    c_.send(req, v, ++cid_);
    return c_.receive<FetchResponse>(v, cid_);
  }

  InProcessBroker b_;
  WireClient c_{b_.port()};
  int32_t cid_ = 0;
};

// A consumer of Kafka >= 3.5 fetches by topic id: it gets the bytes it produced, with the
// id echoed, at every version from 13 to 17.
TEST_F(FetchByTopicIdTest, RecordsComeBackByIdAtEveryVersionFrom13To17) {
  const Uuid id = create("by-id");
  const auto batch = testutil::make_batch({.records = 3});
  produce("by-id", batch);
  for (int16_t v = 13; v <= 17; ++v) {
    SCOPED_TRACE("v" + std::to_string(v));
    auto r = fetch(v, {id});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->responses.size(), 1u);
    EXPECT_EQ(r->responses[0].topic_id, id);
    const auto& p = r->responses[0].partitions.at(0);
    EXPECT_EQ(p.error_code, ErrorCode::kNone);
    EXPECT_EQ(p.high_watermark, 3);
    ASSERT_TRUE(p.records.data.has_value());
    ASSERT_EQ(p.records.data->size(), batch.size());
    // Identical bytes but the base offset (0 either way) and the leader epoch the broker stamps.
    EXPECT_TRUE(std::equal(batch.begin() + 16, batch.end(), p.records.data->begin() + 16));
  }
}

// An id the broker does not know is UNKNOWN_TOPIC_ID (100) in its partitions, beside a
// known one answered as usual; a topic deleted and created again has a new id, and the
// old one is unknown from then on.
TEST_F(FetchByTopicIdTest, UnknownAndStaleIdsAreUnknownTopicIdPerPartition) {
  const Uuid old_id = create("again");
  produce("again", testutil::make_batch({.records = 2}));
  Uuid unknown{};
  unknown.fill(0x42);
  auto r = fetch(13, {unknown, old_id});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.size(), 2u);
  EXPECT_EQ(r->responses[0].topic_id, unknown);
  EXPECT_EQ(r->responses[0].partitions.at(0).error_code, ErrorCode::kUnknownTopicId);
  EXPECT_EQ(r->responses[0].partitions.at(0).error_code, ErrorCode::kUnknownTopicId);
  EXPECT_TRUE(r->responses[0].partitions.at(0).records.data.has_value());
  EXPECT_EQ(r->responses[1].partitions.at(0).error_code, ErrorCode::kNone);
  EXPECT_EQ(r->responses[1].partitions.at(0).high_watermark, 2);

  protocol::DeleteTopicsRequest del;
  del.topics.push_back({std::string_view("again"), Uuid{}});
  del.timeout_ms = 5000;
  c_.send(del, 6, ++cid_);
  auto deleted = c_.receive<protocol::DeleteTopicsResponse>(6, cid_);
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->responses.at(0).error_code, ErrorCode::kNone);
  const Uuid new_id = create("again");
  ASSERT_NE(new_id, old_id);

  auto after = fetch(17, {old_id, new_id});
  ASSERT_TRUE(after);
  ASSERT_EQ(after->responses.size(), 2u);
  EXPECT_EQ(after->responses[0].partitions.at(0).error_code, ErrorCode::kUnknownTopicId);
  EXPECT_EQ(after->responses[1].partitions.at(0).error_code, ErrorCode::kNone);
  EXPECT_EQ(after->responses[1].partitions.at(0).high_watermark, 0);
}

// DeleteTopics v6 names a topic by its name or by its id: by id the answer carries the
// name; both, neither, or the same topic twice are INVALID_REQUEST and delete nothing.
TEST_F(FetchByTopicIdTest, DeleteTopicsByIdAndKafkasRefusals) {
  const Uuid gone = create("by-id");
  const Uuid kept = create("kept");
  Uuid unknown;
  unknown.fill(0x17);
  protocol::DeleteTopicsRequest del;
  del.timeout_ms = 5000;
  del.topics.push_back({std::nullopt, gone});
  del.topics.push_back({std::nullopt, unknown});
  del.topics.push_back({std::string_view("kept"), kept});  // both
  del.topics.push_back({std::nullopt, Uuid{}});             // neither
  del.topics.push_back({std::string_view("twice"), Uuid{}});
  del.topics.push_back({std::string_view("twice"), Uuid{}});
  create("twice");
  c_.send(del, 6, ++cid_);
  auto r = c_.receive<protocol::DeleteTopicsResponse>(6, cid_);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.size(), 5u);  // "twice" answered once
  EXPECT_EQ(r->responses[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->responses[0].name, std::optional<std::string>("by-id"));
  EXPECT_EQ(r->responses[0].topic_id, gone);
  EXPECT_EQ(r->responses[1].error_code, ErrorCode::kUnknownTopicId);
  EXPECT_EQ(r->responses[2].error_code, ErrorCode::kInvalidRequest);
  EXPECT_TRUE(r->responses[2].error_message.has_value());
  EXPECT_EQ(r->responses[3].error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(r->responses[4].name, std::optional<std::string>("twice"));
  EXPECT_EQ(r->responses[4].error_code, ErrorCode::kInvalidRequest);

  // "by-id" is gone; "kept" and "twice" were not deleted.
  auto after = fetch(13, {gone, kept, create("twice")});
  ASSERT_TRUE(after);
  ASSERT_EQ(after->responses.size(), 3u);
  EXPECT_EQ(after->responses[0].partitions.at(0).error_code, ErrorCode::kUnknownTopicId);
  EXPECT_EQ(after->responses[1].partitions.at(0).error_code, ErrorCode::kNone);
  EXPECT_EQ(after->responses[2].partitions.at(0).error_code, ErrorCode::kNone);
}

// Before v13 a topic is named; v12 is answered as before.
TEST_F(FetchByTopicIdTest, Version12StillNamesTopics) {
  create("named");
  FetchRequest req;
  req.max_bytes = 1 << 20;
  auto& t = req.topics.emplace_back();
  t.topic = "named";
  t.partitions.push_back({0, -1, 0, -1, -1, 1 << 20});
  c_.send(req, 12, ++cid_);
  auto r = c_.receive<FetchResponse>(12, cid_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->responses.at(0).topic, "named");
  EXPECT_EQ(r->responses.at(0).partitions.at(0).error_code, ErrorCode::kNone);
}

// A v13 topic entry cut inside its 16-byte id, or a topic count beyond the bytes
// present, is malformed: the connection closes before anything is allocated for it.
TEST(FetchByTopicIdRawTest, TruncatedIdsAndHugeTopicCountsCloseTheConnection) {
  InProcessBroker b;
  auto body = [](uint32_t topics_plus_one, size_t id_bytes) {
    protocol::Writer w;
    w.write_int32(-1);       // replica_id (v13-14)
    w.write_int32(0);        // max_wait_ms
    w.write_int32(1);        // min_bytes
    w.write_int32(1 << 20);  // max_bytes
    w.write_int8(0);         // isolation_level
    w.write_int32(0);        // session_id
    w.write_int32(-1);       // session_epoch
    w.write_uvarint(topics_plus_one);
    for (size_t i = 0; i < id_bytes; ++i) w.write_int8(0x11);
    return std::move(w).take();
  };
  for (const auto& frame : {body(2, 10), body(0xfffffff0u, 16)}) {
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kFetch, 13, 1, frame));
    EXPECT_TRUE(c.closed_by_peer());
  }
}

}  // namespace
}  // namespace rokka
