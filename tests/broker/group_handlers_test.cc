// Group handlers on the wire, for what librdkafka tests cannot pin down: exact bytes
// of known client quirks.
#include <gtest/gtest.h>

#include "protocol/messages/list_groups.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

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
  for (int32_t cid = 0; cid < 1000 && (!resp || resp->error_code == 14); ++cid) {  // 14: still loading
    c.send_raw(WireClient::frame(protocol::ApiKey::kListGroups, 4, cid, bytes({0x01, 0x00, 0x00}), "rdkafka"));
    resp = c.receive<protocol::ListGroupsResponse>(4, cid);
    ASSERT_TRUE(resp);
  }
  EXPECT_EQ(resp->error_code, 0);
  EXPECT_TRUE(resp->groups.empty());
}

TEST(GroupHandlersTest, ListGroupsWithOtherTrailingBytesClosesTheConnection) {
  for (const auto& body : {bytes({0x01, 0x00, 0x00, 0x00}), bytes({0x01, 0x00, 0x05})}) {
    InProcessBroker b;
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kListGroups, 4, 7, body, "rdkafka"));
    EXPECT_TRUE(c.closed_by_peer());
  }
}

}  // namespace
}  // namespace rokka
