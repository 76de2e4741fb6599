// InitProducerId at the versions Kafka 3.9 / 4.x added, over the wire against the
// in-process broker.
#include <gtest/gtest.h>

#include "protocol/error_code.h"
#include "protocol/messages/init_producer_id.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

// v5 (KIP-890) only lets the broker answer TRANSACTION_ABORTABLE, which Rokka never
// does: an idempotent producer gets its id at v5 as at v4, each a new one.
TEST(InitProducerIdTest, Version5HandsOutProducerIdsAsVersion4) {
  InProcessBroker b;
  WireClient c(b.port());
  int64_t previous = -1;
  for (int16_t v : {4, 5}) {
    SCOPED_TRACE("v" + std::to_string(v));
    protocol::InitProducerIdRequest req;
    req.transaction_timeout_ms = 60000;
    c.send(req, v, v);
    auto resp = c.receive<protocol::InitProducerIdResponse>(v, v);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, ErrorCode::kNone);
    EXPECT_GE(resp->producer_id, 0);
    EXPECT_NE(resp->producer_id, previous);
    EXPECT_EQ(resp->producer_epoch, 0);
    previous = resp->producer_id;
  }
}

}  // namespace
}  // namespace rokka
