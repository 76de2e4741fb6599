// The server's framing, ordering and hostile-input behaviour, over raw TCP.
#include <gtest/gtest.h>

#include <chrono>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/api_versions.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/hex.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ApiKey;
using protocol::ApiVersionsRequest;
using protocol::ApiVersionsResponse;
using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

const ApiVersionsResponse::ApiVersion* find_key(const ApiVersionsResponse& r, ApiKey key) {
  for (const auto& k : r.api_keys)
    if (k.api_key == static_cast<int16_t>(key)) return &k;
  return nullptr;
}

TEST(ServerTest, ApiVersionsAnswersEveryVersionWeAdvertise) {
  InProcessBroker b;
  for (int16_t v = 0; v <= 4; ++v) {
    WireClient c(b.port());
    ApiVersionsRequest req;
    req.client_software_name = "rokka-test";
    req.client_software_version = "1.0";
    c.send(req, v, 100 + v);
    auto resp = c.receive<ApiVersionsResponse>(v, 100 + v);
    ASSERT_TRUE(resp) << "version " << v;
    EXPECT_EQ(resp->error_code, ErrorCode::kNone);
    const auto* self = find_key(*resp, ApiKey::kApiVersions);
    ASSERT_NE(self, nullptr);
    EXPECT_EQ(self->min_version, 0);
    EXPECT_EQ(self->max_version, 4);
  }
}

// v3+ reports the feature levels as Kafka 3.9 / 4.x brokers do, in tagged fields:
// metadata.version 3.9-IV0 (21) and group.version 1 (KIP-848's consumer protocol)
// supported and finalized; kraft.version and transaction.version at level 0 (static
// quorum, transactions before KIP-890 part 2), listed as supported only from v4
// (KAFKA-17011) and never finalized, so no 4.x client turns on a protocol Rokka does
// not serve.
TEST(ServerTest, ApiVersionsReportsTheFeatureLevelsRokkaSupports) {
  InProcessBroker b;
  using Supported = std::vector<std::tuple<std::string, int16_t, int16_t>>;
  auto supported = [](const ApiVersionsResponse& r) {
    Supported out;
    for (const auto& f : r.supported_features) out.emplace_back(f.name, f.min_version, f.max_version);
    return out;
  };
  for (int16_t v : {2, 3, 4}) {
    SCOPED_TRACE("v" + std::to_string(v));
    WireClient c(b.port());
    ApiVersionsRequest req;
    req.client_software_name = "rokka-test";
    req.client_software_version = "1.0";
    c.send(req, v, 7);
    auto resp = c.receive<ApiVersionsResponse>(v, 7);
    ASSERT_TRUE(resp);
    if (v < 3) {  // no tagged fields to carry them
      EXPECT_TRUE(resp->supported_features.empty());
      EXPECT_EQ(resp->finalized_features_epoch, -1);
      continue;
    }
    if (v == 3) {
      EXPECT_EQ(supported(*resp), (Supported{{"metadata.version", 21, 21}, {"group.version", 1, 1}}));
    } else {
      EXPECT_EQ(supported(*resp), (Supported{{"metadata.version", 21, 21},
                                             {"kraft.version", 0, 0},
                                             {"group.version", 1, 1},
                                             {"transaction.version", 0, 0}}));
    }
    EXPECT_GE(resp->finalized_features_epoch, 0);
    ASSERT_EQ(resp->finalized_features.size(), 2u);
    EXPECT_EQ(resp->finalized_features[0].name, "metadata.version");
    EXPECT_EQ(resp->finalized_features[0].min_version_level, 21);
    EXPECT_EQ(resp->finalized_features[0].max_version_level, 21);
    EXPECT_EQ(resp->finalized_features[1].name, "group.version");
    EXPECT_EQ(resp->finalized_features[1].min_version_level, 1);
    EXPECT_EQ(resp->finalized_features[1].max_version_level, 1);
  }
}

TEST(ServerTest, UnknownApiVersionsVersionGetsUnsupportedWithV0Body) {
  InProcessBroker b;
  WireClient c(b.port());
  // A future version with a body we cannot know: the reply must be a v0 body.
  c.send_raw(WireClient::frame(ApiKey::kApiVersions, 77, 5, testutil::from_hex("00 00 00")));
  auto resp = c.receive<ApiVersionsResponse>(0, 5);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, ErrorCode::kUnsupportedVersion);
  EXPECT_NE(find_key(*resp, ApiKey::kApiVersions), nullptr);
}

TEST(ServerTest, InvalidClientSoftwareNameIsInvalidRequest) {
  InProcessBroker b;
  WireClient c(b.port());
  ApiVersionsRequest req;
  req.client_software_name = "-bad name";
  req.client_software_version = "1";
  c.send(req, 3, 1);
  auto resp = c.receive<ApiVersionsResponse>(3, 1);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, ErrorCode::kInvalidRequest);
}

TEST(ServerTest, PipelinedRequestsAreAnsweredInOrder) {
  InProcessBroker b;
  WireClient c(b.port());
  std::vector<std::byte> all;
  for (int i = 0; i < 50; ++i) {
    auto f = WireClient::frame(ApiKey::kApiVersions, static_cast<int16_t>(i % 4), 1000 + i,
                               protocol::encode_to_bytes(ApiVersionsRequest{"a", "b"}, static_cast<int16_t>(i % 4)));
    all.insert(all.end(), f.begin(), f.end());
  }
  c.send_raw(all);
  for (int i = 0; i < 50; ++i) {
    auto resp = c.receive<ApiVersionsResponse>(static_cast<int16_t>(i % 4), 1000 + i);
    ASSERT_TRUE(resp) << i;
  }
}

// The server reads up to 1 KiB ahead of the frame it parses: frames smaller and
// larger than that, pipelined and split at every kind of place (inside a size prefix,
// inside a header, inside a body, right at a frame's end), must each come out whole.
TEST(ServerTest, PipelinedFramesSplitAnywhereAreAnsweredInOrder) {
  InProcessBroker b;
  WireClient c(b.port());
  std::vector<std::byte> all;
  constexpr int kFrames = 60;
  for (int i = 0; i < kFrames; ++i) {
    // Bodies from a few bytes to ~3 KB: the long ones exceed the read-ahead.
    const std::string name(static_cast<size_t>(1 + (i * 347) % 3000), 'a');
    auto f = WireClient::frame(ApiKey::kApiVersions, 3, 2000 + i, protocol::encode_to_bytes(ApiVersionsRequest{name, "1"}, 3));
    all.insert(all.end(), f.begin(), f.end());
  }
  const size_t cuts[] = {1, 2, 3, 5, 700, 1023, 1024, 1025, 4, 2500, 9, 1500};
  size_t at = 0;
  for (size_t k = 0; at < all.size(); ++k) {
    const size_t n = std::min(cuts[k % std::size(cuts)], all.size() - at);
    c.send_raw(std::vector<std::byte>(all.begin() + static_cast<ptrdiff_t>(at), all.begin() + static_cast<ptrdiff_t>(at + n)));
    at += n;
    if (k % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let the server read this piece alone
  }
  for (int i = 0; i < kFrames; ++i) {
    auto resp = c.receive<ApiVersionsResponse>(3, 2000 + i);
    ASSERT_TRUE(resp) << i;
    EXPECT_EQ(resp->error_code, ErrorCode::kNone) << i;
  }
}

TEST(ServerTest, NegativeFrameSizeClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  c.send_raw(testutil::from_hex("ffffffff"));
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(ServerTest, FrameSizeAboveTheLimitClosesBeforeReadingTheBody) {
  InProcessBroker b(InProcessBroker::Overrides{{"socket.request.max.bytes", "4096"}});
  WireClient c(b.port());
  c.send_raw(testutil::from_hex("00001001"));  // 4097, and no body follows
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(ServerTest, TinyFrameClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  c.send_raw(testutil::from_hex("00000003 001200"));
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(ServerTest, TruncatedHeaderClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  // 10 bytes: key, version, correlation id, then a client id length of 100 with no bytes.
  c.send_raw(testutil::from_hex("0000000a 0012 0000 00000001 0064"));
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(ServerTest, UnknownApiKeyClosesTheConnection) {
  InProcessBroker b;
  WireClient c(b.port());
  c.send_raw(WireClient::frame(static_cast<ApiKey>(4), 0, 1, {}));  // LeaderAndIsr: not served
  EXPECT_TRUE(c.closed_by_peer());
  WireClient c2(b.port());
  c2.send_raw(testutil::from_hex("0000000a 0fff 0000 00000001 ffff"));  // key 4095
  EXPECT_TRUE(c2.closed_by_peer());
}

TEST(ServerTest, MalformedBodyClosesAfterEarlierResponsesAreSent) {
  InProcessBroker b;
  WireClient c(b.port());
  auto good = WireClient::frame(ApiKey::kApiVersions, 3, 1, protocol::encode_to_bytes(ApiVersionsRequest{"a", "b"}, 3));
  auto bad = WireClient::frame(ApiKey::kApiVersions, 3, 2, testutil::from_hex("05 41"));  // truncated string
  good.insert(good.end(), bad.begin(), bad.end());
  c.send_raw(good);
  EXPECT_TRUE(c.receive<ApiVersionsResponse>(3, 1));
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(ServerTest, IdleConnectionsAreClosed) {
  InProcessBroker b(InProcessBroker::Overrides{{"connections.max.idle.ms", "1000"}});
  WireClient c(b.port());
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(5)));
}

TEST(ServerTest, MaxConnectionsIsEnforced) {
  InProcessBroker b(InProcessBroker::Overrides{{"max.connections", "2"}});
  WireClient a(b.port()), c(b.port());
  // Both are served...
  a.send(ApiVersionsRequest{}, 0, 1);
  ASSERT_TRUE(a.receive<ApiVersionsResponse>(0, 1));
  c.send(ApiVersionsRequest{}, 0, 1);
  ASSERT_TRUE(c.receive<ApiVersionsResponse>(0, 1));
  // ...the third is closed on accept.
  WireClient d(b.port());
  EXPECT_TRUE(d.closed_by_peer());
}

}  // namespace
}  // namespace rokka
