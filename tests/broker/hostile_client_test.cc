// Clients that try to exhaust the broker: size prefixes with no bodies, trickled
// frames, too many connections from one address. The broker must bound its memory,
// close the offenders and keep serving everyone else.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "broker/services.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/compression_bombs.h"
#include "tests/testutil/hex.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/process_memory.h"
#include "tests/testutil/raw_records.h"
#include "tests/testutil/record_batch_builder.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using protocol::ApiKey;
using protocol::ApiVersionsRequest;
using protocol::ApiVersionsResponse;
using testutil::InProcessBroker;
using testutil::WireClient;
using testutil::eventually;

std::vector<std::byte> size_prefix(uint32_t size) {
  return {std::byte(size >> 24), std::byte(size >> 16), std::byte(size >> 8), std::byte(size)};
}

// 20 connections that each announce a 100 MiB frame and send only 1,000 bytes of it.
std::vector<std::unique_ptr<WireClient>> send_size_prefix_bombs(uint16_t port) {
  std::vector<std::unique_ptr<WireClient>> bombs;
  for (int i = 0; i < 20; ++i) {
    bombs.push_back(std::make_unique<WireClient>(port));
    auto bytes = size_prefix(100 << 20);
    bytes.resize(bytes.size() + 1000, std::byte{0x42});
    bombs.back()->send_raw(bytes);
  }
  return bombs;
}

bool api_versions_answered(WireClient& c, int32_t correlation_id) {
  c.send(ApiVersionsRequest{"rokka-test", "1"}, 3, correlation_id);
  return c.receive<ApiVersionsResponse>(3, correlation_id).has_value();
}

TEST(HostileClientTest, SizePrefixesWithoutBodiesDoNotAllocateTheAnnouncedBytes) {
  // Unlimited request memory: only the reader's own allocation policy is tested.
  InProcessBroker b(InProcessBroker::Overrides{{"queued.max.request.bytes", "-1"}});
  const int64_t before = testutil::rss_bytes();
  const auto held = send_size_prefix_bombs(b.port());  // 2 GiB if allocated up front
  WireClient good(b.port());  // the broker still serves a well-behaved client...
  ASSERT_TRUE(api_versions_answered(good, 1));
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(api_versions_answered(good, 2 + i));  // ...after all 20 were read
  EXPECT_LT(testutil::rss_bytes() - before, 64 << 20);
}

TEST(HostileClientTest, SizePrefixesWithoutBodiesDoNotSpendTheRequestMemory) {
  // 1 MiB of request memory; 20 clients announce 100 MiB each and send 1,000 bytes.
  InProcessBroker b(InProcessBroker::Overrides{{"queued.max.request.bytes", "1048576"}});
  const auto held = send_size_prefix_bombs(b.port());
  WireClient good(b.port());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(api_versions_answered(good, 1 + i));
  EXPECT_LT(b.broker().services().request_memory.used(), 1 << 20);
}

TEST(HostileClientTest, SpentRequestMemoryMakesReadersWaitUntilAFrameCompletes) {
  // A budget of one byte: one frame at a time is admitted.
  InProcessBroker b(InProcessBroker::Overrides{{"queued.max.request.bytes", "1"}});
  WireClient slow(b.port());
  const auto frame = WireClient::frame(ApiKey::kApiVersions, 3, 7, protocol::encode_to_bytes(ApiVersionsRequest{"a", "b"}, 3));
  slow.send_raw(std::vector<std::byte>(frame.begin(), frame.end() - 1));  // all but the last byte
  auto& memory = b.broker().services().request_memory;
  ASSERT_TRUE(eventually([&] { return memory.used() > 0; }));  // the slow frame holds the budget

  WireClient other(b.port());
  other.send(ApiVersionsRequest{"rokka-test", "1"}, 3, 8);
  // Not answered while the slow frame holds the memory (an answer now is the bug).
  EXPECT_FALSE(other.read_frame(std::chrono::milliseconds(500)).has_value());
  slow.send_raw({frame.back()});
  EXPECT_TRUE(slow.receive<ApiVersionsResponse>(3, 7));
  EXPECT_TRUE(other.receive<ApiVersionsResponse>(3, 8));  // admitted once the first was handled
  EXPECT_TRUE(eventually([&] { return memory.used() == 0; })) << memory.used();
}

TEST(HostileClientTest, TricklingClientIsClosedAtTheReadTimeoutAndFreesItsMemory) {
  InProcessBroker b(InProcessBroker::Overrides{{"rokka.request.read.timeout.ms", "500"},
                                               {"queued.max.request.bytes", "1"}});
  WireClient trickler(b.port());
  auto bytes = size_prefix(1000);
  bytes.push_back(std::byte{0});
  trickler.send_raw(bytes);
  // It holds the whole budget until it is closed; then others are served again.
  EXPECT_TRUE(trickler.closed_by_peer(std::chrono::seconds(10)));
  WireClient good(b.port());
  EXPECT_TRUE(api_versions_answered(good, 1));
}

TEST(HostileClientTest, ThousandsOfIdleConnectionsLeaveTheBrokerServingAndSmall) {
  InProcessBroker b;
  const int64_t before = testutil::rss_bytes();
  std::vector<std::unique_ptr<WireClient>> idle;
  for (int i = 0; i < 2000; ++i) idle.push_back(std::make_unique<WireClient>(b.port()));
  WireClient good(b.port());
  ASSERT_TRUE(api_versions_answered(good, 1));
  // The last idle connection made was accepted and served like any other.
  ASSERT_TRUE(api_versions_answered(*idle.back(), 2));
  // Both ends live in this process: 4,000 sockets and 2,001 client io_contexts.
  EXPECT_LT(testutil::rss_bytes() - before, 256 << 20);
}

TEST(HostileClientTest, ConnectionsPerAddressAreLimited) {
  InProcessBroker b(InProcessBroker::Overrides{{"max.connections.per.ip", "3"}});
  std::vector<std::unique_ptr<WireClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<WireClient>(b.port()));
    ASSERT_TRUE(api_versions_answered(*clients.back(), i));
  }
  WireClient fourth(b.port());
  EXPECT_TRUE(fourth.closed_by_peer());
  clients.pop_back();  // a slot frees up once one closes (the broker notices asynchronously)
  EXPECT_TRUE(eventually(
      [&] {
        WireClient again(b.port());
        return api_versions_answered(again, 99);
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100)))
      << "a freed slot was never reused";
}

// Issue 25: a 960 KiB zstd batch inflating to 30 GiB, sent to a compacted topic,
// took the broker from ~400 to ~790 MB. Now every produced batch is walked as a
// stream: a bomb of each codec, to a compacted topic and to a plain one, costs the
// broker (this process) a bounded amount of memory and is refused.
TEST(HostileClientTest, ACompressionBombOfEachCodecCostsBoundedMemory) {
  InProcessBroker b(InProcessBroker::Overrides{{"message.max.bytes", "4194304"}});
  testutil::KafkaAdmin admin(b.bootstrap());
  ASSERT_EQ(admin.create_topic("bombed-compacted", 1, {{"cleanup.policy", "compact"}}), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(admin.create_topic("bombed-plain", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  const auto prefix = testutil::long_record_prefix(INT32_MAX - 64);
  constexpr uint64_t kZeros = uint64_t{300} << 20;  // beyond the 256 MiB the walk allows
  std::vector<std::pair<protocol::Compression, std::vector<std::byte>>> bombs;
  bombs.emplace_back(protocol::Compression::kZstd, testutil::zstd_rle_bomb(prefix, uint64_t{30} << 30));
  bombs.emplace_back(protocol::Compression::kGzip, testutil::gzip_bomb(prefix, kZeros));
  bombs.emplace_back(protocol::Compression::kLz4, testutil::lz4_bomb(prefix, kZeros));
  std::vector<std::vector<std::byte>> batches;
  for (auto& [codec, section] : bombs)
    batches.push_back(
        testutil::RecordBatchBuilder().compression(codec).uncompressed_section().raw_records(section, 1).build());

  WireClient c(b.port());
  int32_t cid = 1;
  const int64_t growth = testutil::peak_growth_bytes([&] {
    for (const char* topic : {"bombed-compacted", "bombed-plain"}) {
      for (const auto& batch : batches) {
        c.send(testutil::produce_request(topic, batch), 9, ++cid);
        auto r = c.receive<protocol::ProduceResponse>(9, cid);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->responses.at(0).partition_responses.at(0).error_code, ErrorCode::kMessageTooLarge)
            << topic;
      }
    }
  });
  RecordProperty("peak_growth_mib", static_cast<int>(growth >> 20));
  // The request frames (up to ~1.2 MB each) and one decompressor per network thread
  // (zstd's 8 MiB window, lz4's 4 MiB blocks); inflating any bomb whole would be 256 MiB.
  EXPECT_LT(growth, int64_t{64} << 20) << "the broker's peak RSS grew by " << (growth >> 20) << " MiB";
}

}  // namespace
}  // namespace rokka
