// DescribeCluster at v2 (KIP-1073), over the wire against the in-process broker.
#include <gtest/gtest.h>

#include "protocol/messages/describe_cluster.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

// v2 lets a client ask for fenced brokers too and flags each broker. The one broker is
// never fenced: with or without the flag, it is listed once, not fenced.
TEST(DescribeClusterTest, Version2ListsTheOneBrokerNotFencedWithOrWithoutFencedBrokers) {
  InProcessBroker b{InProcessBroker::Overrides{{"broker.id", "4"}}};
  WireClient c(b.port());
  int32_t cid = 0;
  for (bool fenced : {false, true}) {
    SCOPED_TRACE(fenced ? "include_fenced_brokers" : "without fenced brokers");
    protocol::DescribeClusterRequest req;
    req.include_fenced_brokers = fenced;
    c.send(req, 2, ++cid);
    auto resp = c.receive<protocol::DescribeClusterResponse>(2, cid);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, ErrorCode::kNone);
    EXPECT_EQ(resp->controller_id, 4);
    ASSERT_EQ(resp->brokers.size(), 1u);
    EXPECT_EQ(resp->brokers[0].broker_id, 4);
    EXPECT_EQ(resp->brokers[0].port, static_cast<int32_t>(b.port()));
    EXPECT_FALSE(resp->brokers[0].is_fenced);
  }
}

}  // namespace
}  // namespace rokka
