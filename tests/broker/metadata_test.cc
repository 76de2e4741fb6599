// Metadata over raw frames against the in-process broker: lookups by name and by topic
// id in one request (v10+), v13's top-level error code, and hostile topic arrays.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using protocol::MetadataRequest;
using protocol::MetadataResponse;
using protocol::Uuid;
using testutil::InProcessBroker;
using testutil::WireClient;

MetadataRequest by_name(std::vector<std::string_view> names) {
  MetadataRequest md;
  md.topics.emplace();
  for (std::string_view n : names) md.topics->push_back({Uuid{}, n});
  return md;
}

// Creates `name` (auto-creation) and returns its topic id as Metadata reports it.
Uuid create_topic(WireClient& c, std::string_view name, int32_t cid) {
  c.send(by_name({name}), 12, cid);
  auto r = c.receive<MetadataResponse>(12, cid);
  EXPECT_TRUE(r);
  if (!r) return {};
  EXPECT_EQ(r->topics.at(0).error_code, ErrorCode::kNone);
  EXPECT_NE(r->topics.at(0).topic_id, Uuid{});
  return r->topics.at(0).topic_id;
}

// librdkafka 2.x asks by id with a null name after CreateTopics; Kafka answers each
// entry on its own: a known id with its name and partitions, an unknown one with
// UNKNOWN_TOPIC_ID (100) and a null name, names as ever, in request order.
TEST(MetadataTest, ByNameAndByIdMixedInOneRequestAreAnsweredPerTopic) {
  InProcessBroker b;
  WireClient c(b.port());
  const Uuid alpha = create_topic(c, "alpha", 1);
  const Uuid beta = create_topic(c, "beta", 2);
  ASSERT_NE(alpha, beta);

  Uuid unknown{};
  unknown.fill(0x5a);
  for (int16_t v : {12, 13}) {
    SCOPED_TRACE("v" + std::to_string(v));
    MetadataRequest md;
    md.allow_auto_topic_creation = false;
    md.topics.emplace();
    md.topics->push_back({beta, std::nullopt});
    md.topics->push_back({Uuid{}, "alpha"});
    md.topics->push_back({unknown, std::nullopt});
    md.topics->push_back({Uuid{}, "no-such-topic"});
    c.send(md, v, 10 + v);
    auto r = c.receive<MetadataResponse>(v, 10 + v);
    ASSERT_TRUE(r) << "the connection must stay open and the answer decode";
    ASSERT_EQ(r->topics.size(), 4u);

    EXPECT_EQ(r->topics[0].error_code, ErrorCode::kNone);
    EXPECT_EQ(r->topics[0].name, "beta");
    EXPECT_EQ(r->topics[0].topic_id, beta);
    EXPECT_FALSE(r->topics[0].partitions.empty());

    EXPECT_EQ(r->topics[1].error_code, ErrorCode::kNone);
    EXPECT_EQ(r->topics[1].name, "alpha");
    EXPECT_EQ(r->topics[1].topic_id, alpha);

    EXPECT_EQ(r->topics[2].error_code, ErrorCode::kUnknownTopicId);
    EXPECT_EQ(r->topics[2].error_code, ErrorCode::kUnknownTopicId);
    EXPECT_EQ(r->topics[2].name, std::nullopt);
    EXPECT_EQ(r->topics[2].topic_id, unknown);
    EXPECT_TRUE(r->topics[2].partitions.empty());

    EXPECT_EQ(r->topics[3].error_code, ErrorCode::kUnknownTopicOrPartition);
    EXPECT_EQ(r->topics[3].name, "no-such-topic");
    EXPECT_EQ(r->topics[3].topic_id, Uuid{});
    if (v >= 13) {
      EXPECT_EQ(r->error_code, ErrorCode::kNone);
    }
  }
}

// v13 ends the body with the top-level error code: the raw answer to an all-topics
// request is v12's body plus two zero bytes before the tagged section.
TEST(MetadataTest, Version13AddsTheTopLevelErrorCodeAtTheEnd) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "gamma", 1);
  MetadataRequest all;  // null topics
  std::vector<std::byte> raw12, raw13;
  c.send(all, 12, 2);
  auto r12 = c.receive<MetadataResponse>(12, 2, &raw12);
  c.send(all, 13, 3);
  auto r13 = c.receive<MetadataResponse>(13, 3, &raw13);
  ASSERT_TRUE(r12 && r13);
  EXPECT_EQ(r13->error_code, ErrorCode::kNone);
  ASSERT_EQ(raw13.size(), raw12.size() + 2);
  // Header (correlation id, tags) differs only in the id; the tail is error code + empty tags.
  EXPECT_EQ(raw13[raw13.size() - 3], std::byte{0});
  EXPECT_EQ(raw13[raw13.size() - 2], std::byte{0});
  EXPECT_EQ(raw13.back(), std::byte{0});
}

// A topic array of 1,000,001 entries (each a uuid and a null name, all 18 MB of them
// present, so only the count's bound can refuse it) is malformed, as Kafka 4.4 rejects
// it: the connection closes and the broker serves the next client. (The limit itself,
// 1,000,000 accepted, is CodecTest's.)
TEST(MetadataTest, TopicArraysAboveAMillionEntriesCloseTheConnection) {
  InProcessBroker b;
  auto body = [](uint32_t n) {
    protocol::Writer w;
    w.write_uvarint(n + 1);
    for (uint32_t i = 0; i < n; ++i) {
      w.write_uuid(Uuid{});
      w.write_uvarint(0);  // null name
      w.write_uvarint(0);  // no tagged fields
    }
    w.write_bool(false);  // allow_auto_topic_creation
    w.write_bool(false);  // include_topic_authorized_operations
    w.write_uvarint(0);
    return std::move(w).take();
  };
  {
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 12, 1, body(1'000'001)));
    EXPECT_TRUE(c.closed_by_peer());
  }
  WireClient c(b.port());
  c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 12, 2, body(1)));
  auto r = c.receive<MetadataResponse>(12, 2);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 1u);
  EXPECT_EQ(r->topics[0].error_code, ErrorCode::kUnknownTopicId);
}

// A tagged-field section of 10,001 (empty) fields is malformed; 10,000 are skipped.
TEST(MetadataTest, TaggedSectionsAboveTenThousandFieldsCloseTheConnection) {
  InProcessBroker b;
  auto body = [](uint32_t fields) {
    protocol::Writer w;
    w.write_uvarint(1);   // no topics
    w.write_bool(false);  // allow_auto_topic_creation
    w.write_bool(false);  // include_topic_authorized_operations
    w.write_uvarint(fields);
    for (uint32_t i = 0; i < fields; ++i) {
      w.write_uvarint(1000 + i);  // tags no Metadata version defines
      w.write_uvarint(0);
    }
    return std::move(w).take();
  };
  {
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 13, 1, body(10'001)));
    EXPECT_TRUE(c.closed_by_peer());
  }
  WireClient c(b.port());
  c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 13, 2, body(10'000)));
  auto r = c.receive<MetadataResponse>(13, 2);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->topics.empty());
}

}  // namespace
}  // namespace rokka
