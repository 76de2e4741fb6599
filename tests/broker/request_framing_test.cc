// Requests as real clients frame them: Kafka reads a request's fields in order and ignores
// the bytes after the last one, and clients depend on it.
#include <gtest/gtest.h>

#include <algorithm>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

void create_topic(WireClient& c, std::string_view name, int32_t partitions) {
  protocol::CreateTopicsRequest create;
  auto& t = create.topics.emplace_back();
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  c.send(create, 4, 1);
  auto created = c.receive<protocol::CreateTopicsResponse>(4, 1);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->topics.at(0).error_code, ErrorCode::kNone);
}

// librdkafka 2.14.2 (its issue #5049) asks for all topics with Metadata v12 writing the null
// compact array as four zero bytes: 00 00 00 00 01 00 00. Kafka reads topics = null (all
// topics), allow_auto_topic_creation = false, include_topic_authorized_operations = false,
// no tagged fields, and leaves three bytes unread. Rokka used to close the connection here,
// which failed 53 of the 2.14.2 suite's tests.
TEST(RequestFramingTest, AllTopicsMetadataV12FromLibrdkafka2_14IsAnsweredWithEveryTopic) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "first", 2);
  create_topic(c, "second", 3);
  c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 12, 9, bytes({0, 0, 0, 0, 1, 0, 0}), "rdkafka"));
  auto resp = c.receive<protocol::MetadataResponse>(12, 9);
  ASSERT_TRUE(resp) << "the broker closed the connection";
  ASSERT_EQ(resp->brokers.size(), 1u);
  std::vector<std::pair<std::string, size_t>> topics;
  for (const auto& t : resp->topics) {
    EXPECT_EQ(t.error_code, ErrorCode::kNone);
    topics.emplace_back(t.name.value_or(""), t.partitions.size());
  }
  std::sort(topics.begin(), topics.end());
  EXPECT_EQ(topics, (std::vector<std::pair<std::string, size_t>>{{"first", 2}, {"second", 3}}));
}

// The same bytes after a well-formed by-name request change nothing either.
TEST(RequestFramingTest, BytesAfterAByNameMetadataRequestAreIgnored) {
  InProcessBroker b;
  WireClient c(b.port());
  create_topic(c, "t", 1);
  // topics: one (0x02), zero topic id, name "t", no tags; allow_auto 0; authorized_ops 0; tags; junk.
  std::vector<std::byte> body = bytes({0x02});
  body.insert(body.end(), 16, std::byte{0});
  const auto rest = bytes({0x02, 't', 0x00, 0x00, 0x00, 0x00, 0xff, 0xff});
  body.insert(body.end(), rest.begin(), rest.end());
  c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 12, 3, body, "client"));
  auto resp = c.receive<protocol::MetadataResponse>(12, 3);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->topics.size(), 1u);
  EXPECT_EQ(resp->topics[0].name, "t");
  EXPECT_EQ(resp->topics[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(resp->topics[0].partitions.size(), 1u);
}

// A field that does not decode still closes the connection: the topics array announces two
// topics and the frame holds one.
TEST(RequestFramingTest, MetadataWhoseFieldsRunPastTheFrameClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  std::vector<std::byte> body = bytes({0x03});
  body.insert(body.end(), 16, std::byte{0});
  const auto rest = bytes({0x02, 't', 0x00});
  body.insert(body.end(), rest.begin(), rest.end());
  c.send_raw(WireClient::frame(protocol::ApiKey::kMetadata, 12, 3, body, "client"));
  EXPECT_TRUE(c.closed_by_peer());
}

}  // namespace
}  // namespace rokka
