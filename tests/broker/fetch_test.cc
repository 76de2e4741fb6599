// Fetch edge cases over raw frames against the in-process broker.
#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "protocol/record_batch.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

void create_topic(WireClient& c, std::string_view name) {
  protocol::MetadataRequest md;
  md.topics.emplace();
  md.topics->push_back({protocol::Uuid{}, name});
  c.send(md, 9, 1);
  auto r = c.receive<protocol::MetadataResponse>(9, 1);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.at(0).error_code, ErrorCode::kNone);
}

protocol::FetchRequest fetch_one(std::string_view topic, int64_t offset) {
  protocol::FetchRequest req;
  req.max_wait_ms = 0;
  req.min_bytes = 1;
  req.max_bytes = 1 << 20;
  auto& t = req.topics.emplace_back();
  t.topic = topic;
  auto& p = t.partitions.emplace_back();
  p.partition = 0;
  p.fetch_offset = offset;
  p.partition_max_bytes = 1 << 20;
  return req;
}

// An out-of-range offset gets OFFSET_OUT_OF_RANGE with an empty (not null) record
// set: librdkafka treats a null one as a protocol parse failure.
TEST(FetchTest, OffsetOutOfRangeAnswersWithEmptyRecords) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "f");
  for (int16_t v : {4, 11, 12}) {
    c.send(fetch_one("f", 105), v, 2);
    auto r = c.receive<protocol::FetchResponse>(v, 2);
    ASSERT_TRUE(r) << "v" << v;
    const auto& p = r->responses.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, ErrorCode::kOffsetOutOfRange);
    ASSERT_TRUE(p.records.data.has_value()) << "v" << v << ": null record set";
    EXPECT_EQ(p.records.data->size(), 0u);
    EXPECT_EQ(p.high_watermark, 0);
  }
}

TEST(FetchTest, UnknownTopicAndCaughtUpPartitionAnswerWithEmptyRecords) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "g");
  c.send(fetch_one("nope", 0), 11, 3);
  auto r = c.receive<protocol::FetchResponse>(11, 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->responses.at(0).partitions.at(0).error_code, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_TRUE(r->responses.at(0).partitions.at(0).records.data.has_value());
  c.send(fetch_one("g", 0), 11, 4);
  auto caught_up = c.receive<protocol::FetchResponse>(11, 4);
  ASSERT_TRUE(caught_up);
  EXPECT_EQ(caught_up->responses.at(0).partitions.at(0).error_code, ErrorCode::kNone);
  EXPECT_TRUE(caught_up->responses.at(0).partitions.at(0).records.data.has_value());
}

// The broker's fetch.max.bytes caps a response below what the client asks for
// (KIP-74 still holds: a first batch larger than the cap comes back whole), and a
// min_bytes above the cap does not make the request wait for max_wait_ms.
TEST(FetchTest, BrokerFetchMaxBytesCapsTheResponse) {
  InProcessBroker b{InProcessBroker::Overrides{{"fetch.max.bytes", "2500"}}};
  WireClient c(b.port());
  create_topic(c, "cap");
  std::vector<size_t> sizes;
  for (int32_t value_bytes : {3000, 900, 900, 900}) {
    const auto batch = testutil::make_batch({.records = 1, .value_bytes = value_bytes});
    sizes.push_back(batch.size());
    protocol::ProduceRequest req;
    req.acks = 1;
    req.timeout_ms = 5000;
    auto& p = req.topic_data.emplace_back();
    p.name = "cap";
    p.partition_data.emplace_back().records.data = protocol::Bytes(batch);
    c.send(req, 8, 10 + static_cast<int32_t>(sizes.size()));
    auto r = c.receive<protocol::ProduceResponse>(8, 10 + static_cast<int32_t>(sizes.size()));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);
  }

  auto req = fetch_one("cap", 0);
  req.max_wait_ms = 60000;        // longer than WireClient's 10 s receive timeout
  req.min_bytes = 50 << 20;       // far above the cap
  c.send(req, 11, 20);
  auto first = c.receive<protocol::FetchResponse>(11, 20);
  ASSERT_TRUE(first) << "the request waited for min_bytes above the broker's cap";
  const auto& p0 = first->responses.at(0).partitions.at(0);
  ASSERT_EQ(p0.error_code, ErrorCode::kNone);
  EXPECT_EQ(p0.records.data->size(), sizes[0]);  // the 3000-byte batch alone, whole

  c.send(fetch_one("cap", 1), 11, 21);
  auto rest = c.receive<protocol::FetchResponse>(11, 21);
  ASSERT_TRUE(rest);
  const auto& p1 = rest->responses.at(0).partitions.at(0);
  ASSERT_EQ(p1.error_code, ErrorCode::kNone);
  EXPECT_EQ(p1.records.data->size(), sizes[1] + sizes[2]);  // a third 900-byte batch would pass 2500
  EXPECT_EQ(p1.high_watermark, 4);
}

void produce_one_record_batches(WireClient& c, std::string_view topic, int batches) {
  for (int i = 0; i < batches; ++i) {
    const auto batch = testutil::make_batch({.records = 1});
    protocol::ProduceRequest req;
    req.acks = 1;
    req.timeout_ms = 5000;
    auto& t = req.topic_data.emplace_back();
    t.name = topic;
    t.partition_data.emplace_back().records.data = protocol::Bytes(batch);
    c.send(req, 8, 100 + i);
    auto r = c.receive<protocol::ProduceResponse>(8, 100 + i);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kNone);
  }
}

protocol::FetchRequest::FetchPartition wanted(int64_t offset, int32_t max_bytes = 1 << 20) {
  protocol::FetchRequest::FetchPartition p;
  p.partition = 0;
  p.fetch_offset = offset;
  p.partition_max_bytes = max_bytes;
  return p;
}

// Kafka keys a fetch by partition: one named 10,000 times is answered once, in the
// place it was first named, from the position its last entry gives.
TEST(FetchTest, APartitionNamedManyTimesIsAnsweredOnce) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "dup");
  create_topic(c, "other");
  produce_one_record_batches(c, "dup", 3);
  protocol::FetchRequest req = fetch_one("dup", 0);
  for (int i = 0; i < 9999; ++i) req.topics[0].partitions.push_back(wanted(0));
  req.topics.push_back({"other", {wanted(0)}});
  req.topics.push_back({"dup", {wanted(2)}});  // named again later: its offset wins
  c.send(req, 11, 2);
  std::vector<std::byte> frame;
  auto r = c.receive<protocol::FetchResponse>(11, 2, &frame);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.size(), 2u);
  EXPECT_EQ(r->responses[0].topic, "dup");
  ASSERT_EQ(r->responses[0].partitions.size(), 1u);
  EXPECT_EQ(r->responses[1].topic, "other");
  ASSERT_EQ(r->responses[1].partitions.size(), 1u);
  const auto& dup = r->responses[0].partitions[0];
  ASSERT_EQ(dup.error_code, ErrorCode::kNone);
  ASSERT_TRUE(dup.records.data.has_value());
  protocol::RecordBatchView first;
  ASSERT_EQ(protocol::RecordBatchView::parse(*dup.records.data, &first), protocol::BatchCheck::kOk);
  EXPECT_EQ(first.base_offset(), 2);
  EXPECT_EQ(dup.records.data->size(), first.size());  // offset 2 only
}

// Kafka's log read refuses a negative size: a partition with records to return fails
// with UNKNOWN_SERVER_ERROR; one with nothing to return is answered empty.
TEST(FetchTest, NegativePartitionMaxBytesFailsAPartitionWithRecordsToReturn) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "neg");
  create_topic(c, "neg-empty");
  produce_one_record_batches(c, "neg", 2);
  protocol::FetchRequest req = fetch_one("neg", 0);
  req.topics[0].partitions[0].partition_max_bytes = -1;
  req.topics.push_back({"neg-empty", {wanted(0, -1)}});
  c.send(req, 11, 2);
  auto r = c.receive<protocol::FetchResponse>(11, 2);
  ASSERT_TRUE(r);
  const auto& with_data = r->responses.at(0).partitions.at(0);
  EXPECT_EQ(with_data.error_code, ErrorCode::kUnknownServerError);
  EXPECT_EQ(with_data.high_watermark, -1);
  ASSERT_TRUE(with_data.records.data.has_value());
  EXPECT_EQ(with_data.records.data->size(), 0u);
  const auto& empty = r->responses.at(1).partitions.at(0);
  EXPECT_EQ(empty.error_code, ErrorCode::kNone);
  EXPECT_EQ(empty.high_watermark, 0);
  // At the end of the log the same limit reads nothing, without an error.
  c.send(fetch_one("neg", 2), 11, 3);
  req = fetch_one("neg", 2);
  req.topics[0].partitions[0].partition_max_bytes = -1;
  c.send(req, 11, 4);
  (void)c.receive<protocol::FetchResponse>(11, 3);
  auto at_end = c.receive<protocol::FetchResponse>(11, 4);
  ASSERT_TRUE(at_end);
  EXPECT_EQ(at_end->responses.at(0).partitions.at(0).error_code, ErrorCode::kNone);
  EXPECT_EQ(at_end->responses.at(0).partitions.at(0).high_watermark, 2);
}

// Kafka reads the isolation level (0 or 1) once it has a partition to read; another
// value throws there, and the request is answered with that error
// (UNKNOWN_SERVER_ERROR) at the top (v7+) and in every partition named.
TEST(FetchTest, AnUnknownIsolationLevelFailsTheWholeRequest) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "iso");
  produce_one_record_batches(c, "iso", 1);
  int32_t cid = 10;
  for (int8_t level : {int8_t{5}, int8_t{-1}, int8_t{2}}) {
    for (int16_t v : {4, 11}) {
      protocol::FetchRequest req = fetch_one("iso", 0);
      req.isolation_level = level;
      req.topics[0].partitions.push_back(wanted(0));  // named twice: both answered
      req.topics.push_back({"nope", {wanted(0)}});
      c.send(req, v, ++cid);
      auto r = c.receive<protocol::FetchResponse>(v, cid);
      ASSERT_TRUE(r) << "level " << int{level} << " v" << v;
      if (v >= 7) {
        EXPECT_EQ(r->error_code, ErrorCode::kUnknownServerError);
      }
      ASSERT_EQ(r->responses.size(), 2u);
      ASSERT_EQ(r->responses[0].partitions.size(), 2u);
      for (const auto& t : r->responses) {
        for (const auto& p : t.partitions) {
          EXPECT_EQ(p.error_code, ErrorCode::kUnknownServerError);
          EXPECT_EQ(p.high_watermark, -1);
          EXPECT_TRUE(p.records.data.has_value());
        }
      }
    }
  }
  // With nothing it may read, Kafka never looks at the level.
  protocol::FetchRequest unknown_only = fetch_one("nope", 0);
  unknown_only.isolation_level = 5;
  c.send(unknown_only, 11, 99);
  auto r = c.receive<protocol::FetchResponse>(11, 99);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_code, ErrorCode::kNone);
  EXPECT_EQ(r->responses.at(0).partitions.at(0).error_code, ErrorCode::kUnknownTopicOrPartition);
}

}  // namespace
}  // namespace rokka
