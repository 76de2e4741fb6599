// Produce: every Kafka error code a bad request earns, sent as raw bytes.
#include <gtest/gtest.h>
#include <zlib.h>

#include "protocol/error_code.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "storage/format.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/record_batch_builder.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;
namespace fb = storage::format::batch;

int16_t metadata_error(WireClient& c, std::string_view topic, int32_t cid) {
  protocol::MetadataRequest md;
  md.topics.emplace();
  md.topics->push_back({protocol::Uuid{}, topic});
  c.send(md, 9, cid);
  auto r = c.receive<protocol::MetadataResponse>(9, cid);
  EXPECT_TRUE(r);
  return r ? rokka::protocol::to_int(r->topics.at(0).error_code) : -999;
}

protocol::ProduceRequest one_batch(std::string_view topic, const std::vector<std::byte>& batch, int16_t acks = -1) {
  protocol::ProduceRequest req;
  req.acks = acks;
  req.timeout_ms = 5000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  auto& p = t.partition_data.emplace_back();
  p.index = 0;
  p.records.data = protocol::Bytes(batch);
  return req;
}

struct Answer {
  int16_t error = -999;
  int64_t base_offset = -2;
};

Answer produce(WireClient& c, const protocol::ProduceRequest& req, int16_t v, int32_t cid) {
  c.send(req, v, cid);
  auto r = c.receive<protocol::ProduceResponse>(v, cid);
  if (!r) return {};
  const auto& p = r->responses.at(0).partition_responses.at(0);
  return {rokka::protocol::to_int(p.error_code), p.base_offset};
}

class ProduceErrors : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(metadata_error(c_, "p", 1), 0); }
  InProcessBroker b_{InProcessBroker::Overrides{{"message.max.bytes", "10000"}}};
  WireClient c_{b_.port()};
};

TEST_F(ProduceErrors, ValidBatchesGetDenseOffsets) {
  auto batch = testutil::make_batch({.records = 3});
  EXPECT_EQ(produce(c_, one_batch("p", batch), 9, 2).base_offset, 0);
  EXPECT_EQ(produce(c_, one_batch("p", batch), 3, 3).base_offset, 3);
  EXPECT_EQ(produce(c_, one_batch("p", batch), 7, 4).base_offset, 6);
}

// Produce v10 (KIP-951: a new leader's endpoints, only ever sent with NOT_LEADER_OR_FOLLOWER,
// which a single broker never answers) and v11 (KIP-890: TRANSACTION_ABORTABLE allowed) keep
// v9's bytes: batches get dense offsets at every version.
TEST_F(ProduceErrors, Versions10And11AppendLikeVersion9) {
  auto batch = testutil::make_batch({.records = 2});
  EXPECT_EQ(produce(c_, one_batch("p", batch), 9, 2).base_offset, 0);
  EXPECT_EQ(produce(c_, one_batch("p", batch), 10, 3).base_offset, 2);
  EXPECT_EQ(produce(c_, one_batch("p", batch), 11, 4).base_offset, 4);
  // A partition error reads the same at v11 as at v9.
  const int16_t at_v9 = produce(c_, one_batch("no-such-topic", batch), 9, 5).error;
  EXPECT_NE(at_v9, 0);
  EXPECT_EQ(produce(c_, one_batch("no-such-topic", batch), 11, 6).error, at_v9);
}

// One magic 0 message-set entry (Produce v0-v2): Offset, MessageSize, Crc, Magic,
// Attributes, Key (null), Value.
std::vector<std::byte> legacy_entry(std::string_view value) {
  std::vector<std::byte> body{std::byte{0}, std::byte{0}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff},
                              std::byte{0xff}};
  auto put32 = [](std::vector<std::byte>& out, uint32_t v) {
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  };
  put32(body, static_cast<uint32_t>(value.size()));
  for (char ch : value) body.push_back(static_cast<std::byte>(ch));
  std::vector<std::byte> out(8, std::byte{0});
  put32(out, static_cast<uint32_t>(body.size() + 4));
  put32(out, static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), body.size())));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

TEST_F(ProduceErrors, OldMessageFormatIsStoredAndItsBrokenFormsAreRefused) {
  const auto good = legacy_entry("hello");
  EXPECT_EQ(produce(c_, one_batch("p", good), 1, 2).base_offset, 0);
  EXPECT_EQ(produce(c_, one_batch("p", good), 2, 3).base_offset, 1);

  auto flipped = good;
  flipped.back() ^= std::byte{0x01};
  EXPECT_EQ(produce(c_, one_batch("p", flipped), 1, 4).error, protocol::to_int(ErrorCode::kCorruptMessage));

  const std::vector<std::byte> truncated(good.begin(), good.end() - 3);
  EXPECT_EQ(produce(c_, one_batch("p", truncated), 1, 5).error, protocol::to_int(ErrorCode::kCorruptMessage));

  auto negative = good;  // MessageSize -1
  std::fill(negative.begin() + 8, negative.begin() + 12, std::byte{0xff});
  EXPECT_EQ(produce(c_, one_batch("p", negative), 1, 6).error, protocol::to_int(ErrorCode::kCorruptMessage));

  auto oversized = good;  // MessageSize 2^31-1 over a few bytes
  oversized[8] = std::byte{0x7f};
  EXPECT_EQ(produce(c_, one_batch("p", oversized), 1, 7).error, protocol::to_int(ErrorCode::kCorruptMessage));

  // A v2 batch needs Produce v3+.
  EXPECT_EQ(produce(c_, one_batch("p", testutil::make_batch({})), 2, 8).error,
            protocol::to_int(ErrorCode::kInvalidRecord));
  // Nothing refused was stored: the next good message continues the offsets.
  EXPECT_EQ(produce(c_, one_batch("p", good), 1, 9).base_offset, 2);
}

TEST_F(ProduceErrors, CrcMismatchIsCorruptMessage) {
  auto batch = testutil::make_batch({.records = 2});
  batch.back() ^= std::byte{0x01};
  EXPECT_EQ(produce(c_, one_batch("p", batch), 9, 2).error, protocol::to_int(ErrorCode::kCorruptMessage));
}

TEST_F(ProduceErrors, TruncatedBatchIsCorruptMessage) {
  auto batch = testutil::make_batch({.records = 2});
  batch.resize(batch.size() - 5);
  EXPECT_EQ(produce(c_, one_batch("p", batch), 9, 2).error, protocol::to_int(ErrorCode::kCorruptMessage));
  std::vector<std::byte> tiny(30);
  EXPECT_EQ(produce(c_, one_batch("p", tiny), 9, 3).error, protocol::to_int(ErrorCode::kCorruptMessage));
}

TEST_F(ProduceErrors, BatchAboveMaxMessageBytesIsMessageTooLarge) {
  auto batch = testutil::make_batch({.records = 1, .value_bytes = 20000});
  EXPECT_EQ(produce(c_, one_batch("p", batch), 9, 2).error, protocol::to_int(ErrorCode::kMessageTooLarge));
}

TEST_F(ProduceErrors, BadAcksIsInvalidRequiredAcks) {
  auto batch = testutil::make_batch({});
  EXPECT_EQ(produce(c_, one_batch("p", batch, 2), 9, 2).error, protocol::to_int(ErrorCode::kInvalidRequiredAcks));
  EXPECT_EQ(produce(c_, one_batch("p", batch, -2), 9, 3).error, protocol::to_int(ErrorCode::kInvalidRequiredAcks));
}

TEST_F(ProduceErrors, TwoBatchesInOnePartitionAreInvalidRecord) {
  auto batch = testutil::make_batch({});
  auto two = batch;
  two.insert(two.end(), batch.begin(), batch.end());
  EXPECT_EQ(produce(c_, one_batch("p", two), 9, 2).error, protocol::to_int(ErrorCode::kInvalidRecord));
}

TEST_F(ProduceErrors, OldMagicAndControlBatchesAreInvalidRecord) {
  auto magic1 = testutil::make_batch({});
  magic1[fb::kMagic] = std::byte{1};
  EXPECT_EQ(produce(c_, one_batch("p", magic1), 9, 2).error, protocol::to_int(ErrorCode::kInvalidRecord));
  auto control = testutil::make_batch({});
  storage::format::put_be(control.data() + fb::kAttributes, 0x20, 2);
  storage::seal_batch_crc(control);
  EXPECT_EQ(produce(c_, one_batch("p", control), 9, 3).error, protocol::to_int(ErrorCode::kInvalidRecord));
}

TEST_F(ProduceErrors, ZstdBeforeVersion7IsUnsupportedCompressionType) {
  const auto zstd = testutil::RecordBatchBuilder().compression(protocol::Compression::kZstd).add("k", "v").build();
  EXPECT_EQ(produce(c_, one_batch("p", zstd), 6, 2).error, protocol::to_int(ErrorCode::kUnsupportedCompressionType));
  EXPECT_EQ(produce(c_, one_batch("p", zstd), 7, 3).error, 0);  // stored as sent (never recompressed)
  // The zstd attribute on records that are not zstd: the records are walked, and refused.
  auto not_zstd = testutil::make_batch({});
  storage::format::put_be(not_zstd.data() + fb::kAttributes, 4, 2);
  storage::seal_batch_crc(not_zstd);
  EXPECT_EQ(produce(c_, one_batch("p", not_zstd), 7, 4).error, protocol::to_int(ErrorCode::kInvalidRecord));
}

TEST_F(ProduceErrors, UnknownTopicOrPartitionIsNotCreatedByProduce) {
  auto batch = testutil::make_batch({});
  EXPECT_EQ(produce(c_, one_batch("nosuch", batch), 9, 2).error,
            protocol::to_int(ErrorCode::kUnknownTopicOrPartition));
  auto req = one_batch("p", batch);
  req.topic_data[0].partition_data[0].index = 7;
  EXPECT_EQ(produce(c_, req, 9, 3).error, protocol::to_int(ErrorCode::kUnknownTopicOrPartition));
}

TEST_F(ProduceErrors, OneBadPartitionDoesNotFailTheOthers) {
  auto good = testutil::make_batch({.records = 2});
  auto bad = good;
  bad.back() ^= std::byte{1};
  protocol::ProduceRequest req = one_batch("p", good);
  auto& t = req.topic_data.emplace_back();
  t.name = "nosuch";
  t.partition_data.push_back({0, {}});
  t.partition_data[0].records.data = protocol::Bytes(bad);
  c_.send(req, 9, 2);
  auto r = c_.receive<protocol::ProduceResponse>(9, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->responses[0].partition_responses[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->responses[0].partition_responses[0].base_offset, 0);
  EXPECT_EQ(r->responses[1].partition_responses[0].error_code, ErrorCode::kUnknownTopicOrPartition);
}

// Kafka's broker keys a request's partitions by topic-partition (a map in
// KafkaApis.handleProduceRequest): a partition named twice gets the batch of its last
// mention appended, once, and one answer; a topic named twice one response entry.
TEST_F(ProduceErrors, PartitionNamedTwiceAppendsItsLastBatchOnceAndAnswersOnce) {
  auto two = testutil::make_batch({.records = 2});
  auto three = testutil::make_batch({.records = 3});
  protocol::ProduceRequest req = one_batch("p", two);
  req.topic_data[0].partition_data.push_back({0, {}});
  req.topic_data[0].partition_data[1].records.data = protocol::Bytes(three);
  c_.send(req, 9, 2);
  auto r = c_.receive<protocol::ProduceResponse>(9, 2);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.size(), 1u);
  ASSERT_EQ(r->responses[0].partition_responses.size(), 1u);
  EXPECT_EQ(r->responses[0].partition_responses[0].index, 0);
  EXPECT_EQ(r->responses[0].partition_responses[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->responses[0].partition_responses[0].base_offset, 0);
  // Only the three-record batch was stored: the next batch starts at offset 3.
  EXPECT_EQ(produce(c_, one_batch("p", two), 9, 3).base_offset, 3);

  // The same topic twice, naming the partition in each entry: one entry, one answer.
  protocol::ProduceRequest twice = one_batch("p", three);
  twice.topic_data.push_back(twice.topic_data[0]);
  twice.topic_data[1].partition_data[0].records.data = protocol::Bytes(two);
  c_.send(twice, 9, 4);
  r = c_.receive<protocol::ProduceResponse>(9, 4);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.size(), 1u);
  ASSERT_EQ(r->responses[0].partition_responses.size(), 1u);
  EXPECT_EQ(r->responses[0].partition_responses[0].base_offset, 5);
  EXPECT_EQ(produce(c_, one_batch("p", two), 9, 5).base_offset, 7);  // the two-record batch, once
}

// Entries answer in the order of each topic's first mention, a topic named again later in
// the request (not next to its first entry) folded into that entry.
TEST_F(ProduceErrors, TopicNamedAgainLaterAnswersInItsFirstEntry) {
  ASSERT_EQ(metadata_error(c_, "q", 2), 0);
  auto two = testutil::make_batch({.records = 2});
  auto three = testutil::make_batch({.records = 3});
  protocol::ProduceRequest req = one_batch("q", two);
  req.topic_data.push_back(one_batch("p", three).topic_data[0]);
  req.topic_data.push_back(one_batch("q", three).topic_data[0]);
  c_.send(req, 9, 3);
  auto r = c_.receive<protocol::ProduceResponse>(9, 3);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->responses.size(), 2u);
  EXPECT_EQ(r->responses[0].name, "q");
  EXPECT_EQ(r->responses[1].name, "p");
  ASSERT_EQ(r->responses[0].partition_responses.size(), 1u);
  ASSERT_EQ(r->responses[1].partition_responses.size(), 1u);
  EXPECT_EQ(r->responses[0].partition_responses[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->responses[1].partition_responses[0].base_offset, 0);
  EXPECT_EQ(produce(c_, one_batch("q", two), 9, 4).base_offset, 3);  // q stored its last mention only
  EXPECT_EQ(produce(c_, one_batch("p", two), 9, 5).base_offset, 3);
}

TEST_F(ProduceErrors, AcksZeroSendsNothingAndClosesOnError) {
  auto batch = testutil::make_batch({});
  c_.send(one_batch("p", batch, 0), 9, 2);
  EXPECT_FALSE(c_.read_frame(std::chrono::milliseconds(300)).has_value()) << "acks=0 must not be answered";
  auto bad = batch;
  bad.back() ^= std::byte{1};
  c_.send(one_batch("p", bad, 0), 9, 3);
  EXPECT_TRUE(c_.closed_by_peer());
}

TEST(ProduceTopicRules, InvalidTopicNameAndAutoCreateOff) {
  InProcessBroker b(InProcessBroker::Overrides{{"auto.create.topics.enable", "false"}});
  WireClient c(b.port());
  EXPECT_EQ(metadata_error(c, "bad name!", 1), protocol::to_int(ErrorCode::kInvalidTopicException));
  EXPECT_EQ(metadata_error(c, std::string(250, 'a'), 2), protocol::to_int(ErrorCode::kInvalidTopicException));
  EXPECT_EQ(metadata_error(c, "..", 3), protocol::to_int(ErrorCode::kInvalidTopicException));
  EXPECT_EQ(metadata_error(c, "fine", 4), protocol::to_int(ErrorCode::kUnknownTopicOrPartition));
}

}  // namespace
}  // namespace rokka
