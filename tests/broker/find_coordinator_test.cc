// FindCoordinator at the versions Kafka 3.9 / 4.x added (v5, v6), over the wire against
// the in-process broker.
#include <gtest/gtest.h>

#include <string>

#include "protocol/error_code.h"
#include "protocol/messages/find_coordinator.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

// FindCoordinator v6 (KIP-932) adds share-group keys (key type 2), which Rokka does not
// serve: each such key gets INVALID_REQUEST; groups and transactional ids are answered
// with this broker at v5 and v6 as before.
TEST(FindCoordinatorTest, Version6AnswersGroupsAndRefusesShareGroupKeys) {
  InProcessBroker b{InProcessBroker::Overrides{{"broker.id", "3"}}};
  WireClient c(b.port());
  int32_t cid = 0;
  for (int16_t v : {5, 6}) {
    for (int8_t type : {0, 1, 2}) {
      SCOPED_TRACE("v" + std::to_string(v) + " key type " + std::to_string(type));
      protocol::FindCoordinatorRequest req;
      req.key_type = type;
      req.coordinator_keys = {"k1", "k2"};
      c.send(req, v, ++cid);
      auto resp = c.receive<protocol::FindCoordinatorResponse>(v, cid);
      ASSERT_TRUE(resp);
      ASSERT_EQ(resp->coordinators.size(), 2u);
      for (const auto& k : resp->coordinators) {
        if (type == 2) {
          EXPECT_EQ(k.error_code, ErrorCode::kInvalidRequest);
          EXPECT_EQ(k.node_id, -1);
        } else {
          EXPECT_EQ(k.error_code, ErrorCode::kNone);
          EXPECT_EQ(k.node_id, 3);
        }
      }
    }
  }
}

}  // namespace
}  // namespace rokka
