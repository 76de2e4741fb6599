// The group admin APIs at the versions Kafka 3.9 / 4.x added, over the wire against the
// in-process broker: what each new version's fields do.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::eventually;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int16_t kLoadInProgress = protocol::to_int(ErrorCode::kCoordinatorLoadInProgress);

void create_topic_t(WireClient& c, int32_t& cid) {
  protocol::CreateTopicsRequest create;
  auto& t = create.topics.emplace_back();
  t.name = "t";
  t.num_partitions = 1;
  t.replication_factor = 1;
  c.send(create, 4, ++cid);
  auto created = c.receive<protocol::CreateTopicsResponse>(4, cid);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->topics.at(0).error_code, ErrorCode::kNone);
}

// Group `group` comes to exist (Empty) by committing an offset of t[0].
void make_group(WireClient& c, const std::string& group, int32_t& cid) {
  protocol::OffsetCommitRequest commit;
  commit.group_id = group;
  commit.topics.push_back({"t", {{0, 1, -1, -1, std::nullopt}}});
  int16_t err = -1;
  ASSERT_TRUE(eventually([&] {
    c.send(commit, 2, ++cid);
    auto resp = c.receive<protocol::OffsetCommitResponse>(2, cid);
    err = resp ? rokka::protocol::to_int(resp->topics.at(0).partitions.at(0).error_code) : int16_t{-1};
    return err != kLoadInProgress;
  }));
  ASSERT_EQ(err, 0);
}

std::vector<std::string> listed(WireClient& c, int16_t version, std::vector<std::string_view> types, int32_t& cid,
                                std::vector<std::string>* group_types = nullptr) {
  protocol::ListGroupsRequest req;
  req.types_filter = std::move(types);
  c.send(req, version, ++cid);
  auto resp = c.receive<protocol::ListGroupsResponse>(version, cid);
  EXPECT_TRUE(resp);
  std::vector<std::string> out;
  if (!resp) return out;
  EXPECT_EQ(resp->error_code, ErrorCode::kNone);
  for (const auto& g : resp->groups) {
    out.push_back(g.group_id);
    if (group_types) group_types->push_back(g.group_type);
  }
  return out;
}

// ListGroups v5 (KIP-848) adds a types filter and each group's type. Rokka's groups are
// all classic: a filter naming "classic" (in any case) lists them, one naming only other
// types ("consumer", "share", or a name no Kafka knows) lists none.
TEST(GroupVersionsTest, ListGroupsV5FiltersByTypeAndReportsClassic) {
  InProcessBroker b;
  WireClient c(b.port());
  int32_t cid = 0;
  create_topic_t(c, cid);
  make_group(c, "g1", cid);
  make_group(c, "g2", cid);

  std::vector<std::string> types;
  EXPECT_EQ(listed(c, 5, {}, cid, &types), (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(types, (std::vector<std::string>{"classic", "classic"}));
  EXPECT_EQ(listed(c, 5, {"classic"}, cid), (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(listed(c, 5, {"consumer", "CLASSIC"}, cid), (std::vector<std::string>{"g1", "g2"}));
  EXPECT_TRUE(listed(c, 5, {"consumer"}, cid).empty());
  EXPECT_TRUE(listed(c, 5, {"share", "no-such-type"}, cid).empty());
  // Before v5 there is no filter on the wire: every group is listed.
  EXPECT_EQ(listed(c, 4, {}, cid), (std::vector<std::string>{"g1", "g2"}));
}

// The types filter is a new array: a count far beyond the bytes present closes the
// connection before anything is allocated for it.
TEST(GroupVersionsTest, ListGroupsV5WithAHugeTypesFilterCountClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  // states filter: empty (0x01); types filter: uvarint 0xfffffff0 + 1 elements; tags.
  const std::vector<std::byte> body = {std::byte{0x01}, std::byte{0xf1}, std::byte{0xff}, std::byte{0xff},
                                       std::byte{0xff}, std::byte{0x0f}, std::byte{0x00}};
  c.send_raw(WireClient::frame(protocol::ApiKey::kListGroups, 5, 1, body));
  EXPECT_TRUE(c.closed_by_peer());
}

// OffsetFetch v9 (KIP-848) adds a member id and epoch per group. Classic groups, the only
// ones Rokka has, ignore them as Kafka's do: the committed offset comes back whatever
// member is named.
TEST(GroupVersionsTest, OffsetFetchV9AnswersAClassicGroupWhateverTheMember) {
  InProcessBroker b;
  WireClient c(b.port());
  int32_t cid = 0;
  create_topic_t(c, cid);
  make_group(c, "g", cid);
  for (std::optional<std::string_view> member : {std::optional<std::string_view>{}, std::optional<std::string_view>{"m-1"}}) {
    protocol::OffsetFetchRequest req;
    auto& g = req.groups.emplace_back();
    g.group_id = "g";
    g.member_id = member;
    g.member_epoch = member ? 7 : -1;
    g.topics.emplace();
    g.topics->push_back({"t", {0}});
    c.send(req, 9, ++cid);
    auto resp = c.receive<protocol::OffsetFetchResponse>(9, cid);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->groups.size(), 1u);
    EXPECT_EQ(resp->groups[0].error_code, ErrorCode::kNone);
    ASSERT_EQ(resp->groups[0].topics.size(), 1u);
    ASSERT_EQ(resp->groups[0].topics[0].partitions.size(), 1u);
    EXPECT_EQ(resp->groups[0].topics[0].partitions[0].committed_offset, 1);
  }
}

// DescribeGroups v6 (KIP-1043): a group that does not exist answers GROUP_ID_NOT_FOUND (69)
// with a message; before v6 it is described as Dead with no error, as Kafka does.
TEST(GroupVersionsTest, DescribeGroupsV6AnswersAnUnknownGroupWithGroupIdNotFound) {
  InProcessBroker b;
  WireClient c(b.port());
  int32_t cid = 0;
  create_topic_t(c, cid);
  make_group(c, "known", cid);
  for (int16_t v : {5, 6}) {
    SCOPED_TRACE("v" + std::to_string(v));
    protocol::DescribeGroupsRequest req;
    req.groups = {"known", "unknown"};
    c.send(req, v, ++cid);
    auto resp = c.receive<protocol::DescribeGroupsResponse>(v, cid);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->groups.size(), 2u);
    EXPECT_EQ(resp->groups[0].group_id, "known");
    EXPECT_EQ(resp->groups[0].error_code, ErrorCode::kNone);
    EXPECT_EQ(resp->groups[0].group_state, "Empty");
    EXPECT_EQ(resp->groups[0].error_message, std::nullopt);
    EXPECT_EQ(resp->groups[1].group_id, "unknown");
    if (v >= 6) {
      EXPECT_EQ(resp->groups[1].error_code, ErrorCode::kGroupIdNotFound);
      EXPECT_EQ(resp->groups[1].error_message, "Group unknown not found.");
    } else {
      EXPECT_EQ(resp->groups[1].error_code, ErrorCode::kNone);
      EXPECT_EQ(resp->groups[1].group_state, "Dead");
    }
  }
}

}  // namespace
}  // namespace rokka
