// Start-up of the group coordinator behind the wire: until committed offsets and groups
// are loaded, the group APIs answer COORDINATOR_LOAD_IN_PROGRESS (Heartbeat and
// SyncGroup excepted, by design), and clients that retry get in once loading is done.
// The in-process broker's MemoryStore holds the coordinator's scan to keep it loading.
#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/sync_group.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/group_consumer.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::MemoryStore;
using testutil::WireClient;

constexpr int16_t kLoadInProgress = static_cast<int16_t>(ErrorCode::kCoordinatorLoadInProgress);

// A broker whose coordinator stays loading until release().
class LoadingBroker {
 public:
  LoadingBroker()
      : broker_({{"group.initial.rebalance.delay.ms", "0"}}, [](MemoryStore& s) { s.hold_scans("g/"); }) {}
  ~LoadingBroker() { release(); }  // before ~InProcessBroker joins the loader
  void release() { broker_.store().release_scans(); }
  InProcessBroker& broker() { return broker_; }

 private:
  InProcessBroker broker_;
};

int16_t join_error(WireClient& c, int32_t correlation_id) {
  protocol::JoinGroupRequest req;
  req.group_id = "g";
  req.session_timeout_ms = 10000;
  req.rebalance_timeout_ms = 10000;
  req.protocol_type = "consumer";
  const std::vector<std::byte> metadata = {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
                                           std::byte{0}, std::byte{0}, std::byte{0xff}, std::byte{0xff},
                                           std::byte{0xff}, std::byte{0xff}};  // v0, no topics, null user data
  req.protocols.push_back({"range", metadata});
  c.send(req, 5, correlation_id);
  auto resp = c.receive<protocol::JoinGroupResponse>(5, correlation_id);
  return resp ? resp->error_code : int16_t{-1};
}

int16_t offset_fetch_error(WireClient& c, int32_t correlation_id) {
  protocol::OffsetFetchRequest req;
  req.group_id = "g";
  req.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"t", {0}}};
  c.send(req, 5, correlation_id);
  auto resp = c.receive<protocol::OffsetFetchResponse>(5, correlation_id);
  return resp ? resp->error_code : int16_t{-1};
}

TEST(GroupLoadTest, GroupApisAnswerLoadInProgressUntilTheCoordinatorIsLoaded) {
  LoadingBroker loading;
  WireClient c(loading.broker().port());
  int32_t cid = 1;
  EXPECT_EQ(join_error(c, cid++), kLoadInProgress);
  EXPECT_EQ(offset_fetch_error(c, cid++), kLoadInProgress);
  {
    protocol::ListGroupsRequest req;
    c.send(req, 4, cid);
    auto resp = c.receive<protocol::ListGroupsResponse>(4, cid++);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, kLoadInProgress);
  }
  {
    protocol::DescribeGroupsRequest req;
    req.groups = {"g"};
    c.send(req, 5, cid);
    auto resp = c.receive<protocol::DescribeGroupsResponse>(5, cid++);
    ASSERT_TRUE(resp && resp->groups.size() == 1);
    EXPECT_EQ(resp->groups[0].error_code, kLoadInProgress);
  }
  {
    // A member that was in a group before the restart keeps heartbeating: no error yet
    // (it learns of any change at its next call) ...
    protocol::HeartbeatRequest req;
    req.group_id = "g";
    req.generation_id = 3;
    req.member_id = "m";
    c.send(req, 4, cid);
    auto resp = c.receive<protocol::HeartbeatResponse>(4, cid++);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, 0);
  }
  {
    // ... and a SyncGroup in flight at the restart is sent back to JoinGroup.
    protocol::SyncGroupRequest req;
    req.group_id = "g";
    req.generation_id = 3;
    req.member_id = "m";
    c.send(req, 5, cid);
    auto resp = c.receive<protocol::SyncGroupResponse>(5, cid++);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, static_cast<int16_t>(ErrorCode::kRebalanceInProgress));
  }

  loading.release();
  int16_t joined = kLoadInProgress;
  for (int i = 0; i < 1000 && joined == kLoadInProgress; ++i) joined = join_error(c, cid++);
  EXPECT_EQ(joined, static_cast<int16_t>(ErrorCode::kMemberIdRequired));
  EXPECT_EQ(offset_fetch_error(c, cid++), 0);
}

// librdkafka retries on COORDINATOR_LOAD_IN_PROGRESS: a consumer started while the
// coordinator loads gets no partitions until then, and all of them after.
TEST(GroupLoadTest, ConsumerStartedDuringLoadingJoinsOnceLoaded) {
  LoadingBroker loading;
  const std::string bootstrap = loading.broker().bootstrap();
  {
    testutil::TestProducer p(bootstrap);
    ASSERT_EQ(p.produce("t", 0, std::nullopt, std::string("x")), RdKafka::ERR_NO_ERROR);
    ASSERT_EQ(p.flush().at(0).error, RdKafka::ERR_NO_ERROR);
  }
  testutil::GroupConsumer consumer(bootstrap, "g", "t");
  EXPECT_FALSE(testutil::poll_all_until({&consumer}, [&] { return !consumer.owned().empty(); },
                                        std::chrono::milliseconds(500)));
  loading.release();
  ASSERT_TRUE(testutil::poll_all_until({&consumer}, [&] { return !consumer.processed().empty(); }));
  EXPECT_EQ(consumer.owned(), std::set<int32_t>{0});
  EXPECT_EQ(consumer.processed()[0].value, "x");
}

}  // namespace
}  // namespace rokka
