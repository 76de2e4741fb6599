// Group handlers on the wire, for what librdkafka tests cannot pin down: exact bytes
// of known client quirks.
#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;
using testutil::eventually;

constexpr int16_t kLoadInProgress = static_cast<int16_t>(protocol::ErrorCode::kCoordinatorLoadInProgress);

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// librdkafka 2.0.2 (Debian 12's) sends ListGroups v4 as: empty states filter (0x01), empty
// tagged fields (0x00), and empty tagged fields again (0x00). Kafka answers it.
TEST(GroupHandlersTest, ListGroupsWithTaggedFieldsWrittenTwiceIsAnswered) {
  InProcessBroker b;
  WireClient c(b.port());
  std::optional<protocol::ListGroupsResponse> resp;
  int32_t cid = 0;
  // Asked again while the coordinator is still loading (start-up runs it on its own thread).
  ASSERT_TRUE(eventually([&] {
    c.send_raw(WireClient::frame(protocol::ApiKey::kListGroups, 4, ++cid, bytes({0x01, 0x00, 0x00}), "rdkafka"));
    resp = c.receive<protocol::ListGroupsResponse>(4, cid);
    return !resp || rokka::protocol::to_int(resp->error_code) != kLoadInProgress;
  }));
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, ErrorCode::kNone);
  EXPECT_TRUE(resp->groups.empty());
}

// Kafka reads a request's fields and ignores what follows them; so does Rokka. A field
// that does not decode (here a tagged field longer than the frame) still closes.
TEST(GroupHandlersTest, ListGroupsWithBytesAfterItsLastFieldIsAnswered) {
  for (const auto& body : {bytes({0x01, 0x00, 0x00, 0x00}), bytes({0x01, 0x00, 0x05})}) {
    InProcessBroker b;
    WireClient c(b.port());
    std::optional<protocol::ListGroupsResponse> resp;
    int32_t cid = 0;
    ASSERT_TRUE(eventually([&] {
      c.send_raw(WireClient::frame(protocol::ApiKey::kListGroups, 4, ++cid, body, "rdkafka"));
      resp = c.receive<protocol::ListGroupsResponse>(4, cid);
      return !resp || rokka::protocol::to_int(resp->error_code) != kLoadInProgress;
    }));
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, ErrorCode::kNone);
  }
}

TEST(GroupHandlersTest, ListGroupsWhoseTaggedFieldRunsPastTheFrameClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  c.send_raw(WireClient::frame(protocol::ApiKey::kListGroups, 4, 7, bytes({0x01, 0x01, 0x00, 0x05}), "rdkafka"));
  EXPECT_TRUE(c.closed_by_peer());
}

// Commits offset 42 of t[0] for group "g" (creating t), retrying while the coordinator loads.
void commit_42(WireClient& c) {
  protocol::CreateTopicsRequest create;
  auto& t = create.topics.emplace_back();
  t.name = "t";
  t.num_partitions = 1;
  t.replication_factor = 1;
  c.send(create, 4, 1);
  auto created = c.receive<protocol::CreateTopicsResponse>(4, 1);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->topics.at(0).error_code, ErrorCode::kNone);
  protocol::OffsetCommitRequest commit;
  commit.group_id = "g";
  commit.topics.push_back({"t", {{0, 42, -1, -1, std::nullopt}}});
  int16_t err = -1;
  int32_t cid = 1;
  ASSERT_TRUE(eventually([&] {
    c.send(commit, 2, ++cid);
    auto resp = c.receive<protocol::OffsetCommitResponse>(2, cid);
    err = resp ? rokka::protocol::to_int(resp->topics.at(0).partitions.at(0).error_code) : int16_t{-1};
    return err != kLoadInProgress;
  }));
  ASSERT_EQ(err, 0);
}

// librdkafka 2.0.2 asks a group's offsets of all topics at OffsetFetch v7 with a 4-byte
// zero where the compact topics array belongs (group "g", 00 00 00 00, require_stable 01,
// tags 00). Kafka reads a null array and answers with every committed offset.
TEST(GroupHandlersTest, OffsetFetchForAllTopicsWithAFourByteCountIsAnswered) {
  InProcessBroker b;
  WireClient c(b.port());
  commit_42(c);
  c.send_raw(WireClient::frame(protocol::ApiKey::kOffsetFetch, 7, 5000,
                               bytes({0x02, 'g', 0x00, 0x00, 0x00, 0x00, 0x01, 0x00}), "rdkafka"));
  auto resp = c.receive<protocol::OffsetFetchResponse>(7, 5000);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, ErrorCode::kNone);
  ASSERT_EQ(resp->topics.size(), 1u);
  EXPECT_EQ(resp->topics[0].name, "t");
  ASSERT_EQ(resp->topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp->topics[0].partitions[0].committed_offset, 42);
}

// A real topic array, then a stray byte: answered as Kafka answers it (the stray byte unread).
TEST(GroupHandlersTest, OffsetFetchWithAByteAfterItsLastFieldIsAnswered) {
  InProcessBroker b;
  WireClient c(b.port());
  commit_42(c);
  c.send_raw(WireClient::frame(protocol::ApiKey::kOffsetFetch, 7, 5000,
                               bytes({0x02, 'g', 0x02, 0x02, 't', 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}),
                               "rdkafka"));
  auto resp = c.receive<protocol::OffsetFetchResponse>(7, 5000);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, ErrorCode::kNone);
  ASSERT_EQ(resp->topics.size(), 1u);
  ASSERT_EQ(resp->topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp->topics[0].partitions[0].partition_index, 0);
  EXPECT_EQ(resp->topics[0].partitions[0].committed_offset, 42);
}

TEST(GroupHandlersTest, OffsetFetchWhoseFieldsDoNotDecodeClosesTheConnection) {
  const std::vector<std::vector<std::byte>> bodies = {
      bytes({0x10, 'g'}),                                      // group id longer than the frame
      bytes({0x02, 'g', 0x03, 0x02, 't', 0x01, 0x00}),            // two topics announced, one sent
  };
  for (const auto& body : bodies) {
    InProcessBroker b;
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kOffsetFetch, 7, 7, body, "rdkafka"));
    EXPECT_TRUE(c.closed_by_peer());
  }
}

}  // namespace
}  // namespace rokka
