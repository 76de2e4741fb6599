// DescribeTopicPartitions (75) over raw frames against the in-process broker: every
// topic or the named ones, sorted by name; unknown and invalid names; the partition limit
// and the cursor that pages through a listing; a cursor Kafka rejects; hostile frames.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/metadata.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::DescribeTopicPartitionsRequest;
using protocol::DescribeTopicPartitionsResponse;
using protocol::ErrorCode;
using protocol::Uuid;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int16_t kV = 0;

void create(WireClient& c, std::string_view name, int32_t partitions, int32_t cid) {
  protocol::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  req.timeout_ms = 60000;
  c.send(req, 4, cid);
  auto resp = c.receive<protocol::CreateTopicsResponse>(4, cid);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->topics.at(0).error_code, ErrorCode::kNone) << name;
}

// The topic ids Metadata reports, by name: what DescribeTopicPartitions must agree with.
std::map<std::string, Uuid> metadata_ids(WireClient& c, int32_t cid) {
  protocol::MetadataRequest md;  // null topics: all
  c.send(md, 12, cid);
  auto r = c.receive<protocol::MetadataResponse>(12, cid);
  EXPECT_TRUE(r);
  std::map<std::string, Uuid> out;
  if (r)
    for (const auto& t : r->topics) out[std::string(t.name.value_or(""))] = t.topic_id;
  return out;
}

class DescribeTopicPartitionsTest : public ::testing::Test {
 protected:
  DescribeTopicPartitionsTest() : c_(b_.port()) {}

  void SetUp() override {
    // Created out of name order: the answer must come back sorted.
    create(c_, "delta", 2, next());
    create(c_, "alpha", 3, next());
    create(c_, "charlie", 1, next());
    create(c_, "bravo", 4, next());
  }

  std::optional<DescribeTopicPartitionsResponse> describe(std::vector<std::string_view> names, int32_t limit = 2000,
                                                          std::optional<std::pair<std::string_view, int32_t>> cursor = {}) {
    DescribeTopicPartitionsRequest req;
    for (std::string_view n : names) req.topics.push_back({n});
    req.response_partition_limit = limit;
    if (cursor) req.cursor = DescribeTopicPartitionsRequest::Cursor{cursor->first, cursor->second};
    const int32_t cid = next();
    c_.send(req, kV, cid);
    return c_.receive<DescribeTopicPartitionsResponse>(kV, cid);
  }

  static std::vector<std::string> names(const DescribeTopicPartitionsResponse& r) {
    std::vector<std::string> out;
    for (const auto& t : r.topics) out.push_back(t.name.value_or("<null>"));
    return out;
  }

  int32_t next() { return ++cid_; }

  InProcessBroker b_;
  WireClient c_;
  int32_t cid_ = 0;
};

// An empty topic list is every topic, sorted by name, each with all its partitions led
// by this broker (replicas and ISR: this broker alone), the id Metadata reports, and
// every topic operation authorized (no authorizer); no cursor, since nothing was cut.
TEST_F(DescribeTopicPartitionsTest, AllTopicsComeBackSortedWithEveryPartition) {
  const auto ids = metadata_ids(c_, next());
  auto r = describe({});
  ASSERT_TRUE(r) << "the connection must stay open and the answer decode";
  EXPECT_EQ(names(*r), (std::vector<std::string>{"alpha", "bravo", "charlie", "delta"}));
  const std::map<std::string, size_t> counts = {{"alpha", 3}, {"bravo", 4}, {"charlie", 1}, {"delta", 2}};
  const int32_t broker_id = b_.broker().services().config.broker_id;
  for (const auto& t : r->topics) {
    SCOPED_TRACE(*t.name);
    EXPECT_EQ(t.error_code, ErrorCode::kNone);
    EXPECT_EQ(t.topic_id, ids.at(*t.name));
    EXPECT_NE(t.topic_id, Uuid{});
    EXPECT_FALSE(t.is_internal);
    ASSERT_EQ(t.partitions.size(), counts.at(*t.name));
    for (size_t i = 0; i < t.partitions.size(); ++i) {
      const auto& p = t.partitions[i];
      EXPECT_EQ(p.error_code, ErrorCode::kNone);
      EXPECT_EQ(p.partition_index, static_cast<int32_t>(i));
      EXPECT_EQ(p.leader_id, broker_id);
      EXPECT_GE(p.leader_epoch, 0);
      EXPECT_EQ(p.replica_nodes, std::vector<int32_t>{broker_id});
      EXPECT_EQ(p.isr_nodes, std::vector<int32_t>{broker_id});
      EXPECT_TRUE(p.offline_replicas.empty());
    }
    // READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS: bits 3-8, 10, 11.
    EXPECT_EQ(t.topic_authorized_operations, 0b1101'1111'1000);
  }
  EXPECT_FALSE(r->next_cursor);
}

// Named topics come back sorted and once each, whatever the request's order and
// repetitions; an unknown name is UNKNOWN_TOPIC_OR_PARTITION with no partitions and a
// zero id, a name no topic can have INVALID_TOPIC_EXCEPTION; nothing is auto-created.
TEST_F(DescribeTopicPartitionsTest, NamedTopicsSortedOnceEachAndUnknownNamesAnswerAnError) {
  auto r = describe({"delta", "nosuch", "bravo", "delta", "bad/name"});
  ASSERT_TRUE(r);
  ASSERT_EQ(names(*r), (std::vector<std::string>{"bad/name", "bravo", "delta", "nosuch"}));
  EXPECT_EQ(r->topics[0].error_code, ErrorCode::kInvalidTopicException);
  EXPECT_EQ(r->topics[1].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->topics[1].partitions.size(), 4u);
  EXPECT_EQ(r->topics[2].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->topics[2].partitions.size(), 2u);
  EXPECT_EQ(r->topics[3].error_code, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(r->topics[3].error_code, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_TRUE(r->topics[3].partitions.empty());
  EXPECT_EQ(r->topics[3].topic_id, Uuid{});
  EXPECT_FALSE(r->next_cursor);

  auto again = describe({});
  ASSERT_TRUE(again);
  EXPECT_EQ(names(*again), (std::vector<std::string>{"alpha", "bravo", "charlie", "delta"}))
      << "describing an unknown topic must not create it";
}

// A limit below the total cuts the answer: NextCursor names where the next page starts,
// and following the cursors page by page returns every partition of every topic exactly
// once, in (topic, partition) order, whatever the page size.
TEST_F(DescribeTopicPartitionsTest, CursorsPageThroughEveryPartitionExactlyOnce) {
  std::vector<std::pair<std::string, int32_t>> want;
  for (auto [name, n] : std::vector<std::pair<std::string, int32_t>>{{"alpha", 3}, {"bravo", 4}, {"charlie", 1}, {"delta", 2}})
    for (int32_t i = 0; i < n; ++i) want.emplace_back(name, i);

  for (int32_t limit : {1, 2, 3, 4, 5, 9, 10}) {
    for (bool named : {false, true}) {
      SCOPED_TRACE("limit " + std::to_string(limit) + (named ? " named" : " all"));
      std::vector<std::string_view> asked;
      if (named) asked = {"delta", "charlie", "bravo", "alpha"};
      std::vector<std::pair<std::string, int32_t>> got;
      std::optional<std::pair<std::string, int32_t>> cursor;
      int pages = 0;
      do {
        ASSERT_LT(++pages, 20) << "the cursors must make progress";
        std::optional<std::pair<std::string_view, int32_t>> c;
        if (cursor) c.emplace(cursor->first, cursor->second);
        auto r = describe(asked, limit, c);
        ASSERT_TRUE(r);
        size_t in_page = 0;
        for (const auto& t : r->topics) {
          EXPECT_EQ(t.error_code, ErrorCode::kNone);
          for (const auto& p : t.partitions) got.emplace_back(*t.name, p.partition_index);
          in_page += t.partitions.size();
        }
        EXPECT_LE(in_page, static_cast<size_t>(limit));
        cursor.reset();
        if (r->next_cursor) cursor.emplace(r->next_cursor->topic_name, r->next_cursor->partition_index);
      } while (cursor);
      EXPECT_EQ(got, want);
      const int total = static_cast<int>(want.size());
      EXPECT_EQ(pages, (total + limit - 1) / limit) << "every page but the last holds `limit` partitions";
    }
  }
}

// A limit that ends exactly at a topic's last partition names the next topic's
// partition 0; a cursor partition past the end gives that topic with no partitions.
TEST_F(DescribeTopicPartitionsTest, CursorAtATopicBoundaryAndPastItsEnd) {
  auto r = describe({}, 3);  // alpha has exactly 3
  ASSERT_TRUE(r);
  EXPECT_EQ(names(*r), std::vector<std::string>{"alpha"});
  ASSERT_TRUE(r->next_cursor);
  EXPECT_EQ(r->next_cursor->topic_name, "bravo");
  EXPECT_EQ(r->next_cursor->partition_index, 0);

  auto past = describe({}, 2000, std::pair<std::string_view, int32_t>{"charlie", 7});
  ASSERT_TRUE(past);
  ASSERT_EQ(names(*past), (std::vector<std::string>{"charlie", "delta"}));
  EXPECT_TRUE(past->topics[0].partitions.empty());
  EXPECT_EQ(past->topics[1].partitions.size(), 2u);
  EXPECT_FALSE(past->next_cursor);
}

// A limit above Kafka's max.request.partition.size.limit (2000) is held to it: a topic
// of 2001 partitions comes back in two pages, 2000 then 1.
TEST_F(DescribeTopicPartitionsTest, LimitIsHeldToTwoThousand) {
  create(c_, "wide", 2001, next());
  auto r = describe({"wide"}, 1'000'000);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 1u);
  EXPECT_EQ(r->topics[0].partitions.size(), 2000u);
  ASSERT_TRUE(r->next_cursor);
  EXPECT_EQ(r->next_cursor->topic_name, "wide");
  EXPECT_EQ(r->next_cursor->partition_index, 2000);
  auto rest = describe({"wide"}, 1'000'000, std::pair<std::string_view, int32_t>{"wide", 2000});
  ASSERT_TRUE(rest);
  ASSERT_EQ(rest->topics.size(), 1u);
  ASSERT_EQ(rest->topics[0].partitions.size(), 1u);
  EXPECT_EQ(rest->topics[0].partitions[0].partition_index, 2000);
  EXPECT_FALSE(rest->next_cursor);
}

// Kafka 3.9+ rejects a cursor whose topic is not among the named ones: INVALID_REQUEST
// (42) for every requested topic, nothing described, and the connection stays usable.
TEST_F(DescribeTopicPartitionsTest, CursorTopicMissingFromTheNamedTopicsIsInvalidRequest) {
  auto r = describe({"alpha", "delta"}, 2000, std::pair<std::string_view, int32_t>{"bravo", 0});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 2u);
  for (const auto& t : r->topics) {
    EXPECT_EQ(t.error_code, ErrorCode::kInvalidRequest);
    EXPECT_EQ(t.error_code, ErrorCode::kInvalidRequest);
    EXPECT_TRUE(t.partitions.empty());
  }
  EXPECT_EQ(r->topics[0].name, "alpha");
  EXPECT_EQ(r->topics[1].name, "delta");
  EXPECT_FALSE(r->next_cursor);

  // With no names, a cursor on a missing topic just starts at the next name after it.
  auto all = describe({}, 2000, std::pair<std::string_view, int32_t>{"bz", 0});
  ASSERT_TRUE(all);
  EXPECT_EQ(names(*all), (std::vector<std::string>{"charlie", "delta"}));
}

// With an authorizer: a topic the principal may not DESCRIBE is left out of "all
// topics"; named, it answers TOPIC_AUTHORIZATION_FAILED with a zero id and no partitions
// whether it exists or not, after the topics that were described (as Kafka does).
TEST(DescribeTopicPartitionsAclTest, UndescribableTopicsAreHiddenOrDenied) {
  InProcessBroker b({{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                     {"allow.everyone.if.no.acl.found", "true"}});
  WireClient c(b.port());
  create(c, "hidden", 2, 1);
  create(c, "visible", 1, 2);
  protocol::CreateAclsRequest acls;
  // DENY DESCRIBE (8) on topics (2) "hidden" and "ghost" (literal, 3) for this client.
  acls.creations = {{2, "hidden", 3, "User:ANONYMOUS", "*", 8, 2}, {2, "ghost", 3, "User:ANONYMOUS", "*", 8, 2}};
  c.send(acls, 3, 3);
  auto created = c.receive<protocol::CreateAclsResponse>(3, 3);
  ASSERT_TRUE(created);
  for (const auto& r : created->results) ASSERT_EQ(r.error_code, ErrorCode::kNone);

  DescribeTopicPartitionsRequest all;
  c.send(all, kV, 4);
  auto r = c.receive<DescribeTopicPartitionsResponse>(kV, 4);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 1u);
  EXPECT_EQ(r->topics[0].name, "visible");

  DescribeTopicPartitionsRequest named;
  named.topics = {{"hidden"}, {"visible"}, {"ghost"}, {"absent"}};
  c.send(named, kV, 5);
  r = c.receive<DescribeTopicPartitionsResponse>(kV, 5);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->topics.size(), 4u);
  EXPECT_EQ(r->topics[0].name, "absent");
  EXPECT_EQ(r->topics[0].error_code, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(r->topics[1].name, "visible");
  EXPECT_EQ(r->topics[1].error_code, ErrorCode::kNone);
  EXPECT_EQ(r->topics[1].partitions.size(), 1u);
  std::set<std::string> denied;
  for (size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(r->topics[i].error_code, ErrorCode::kTopicAuthorizationFailed);
    EXPECT_EQ(r->topics[i].error_code, ErrorCode::kTopicAuthorizationFailed);
    EXPECT_EQ(r->topics[i].topic_id, Uuid{});
    EXPECT_TRUE(r->topics[i].partitions.empty());
    denied.insert(r->topics[i].name.value_or(""));
  }
  EXPECT_EQ(denied, (std::set<std::string>{"ghost", "hidden"}));
}

// Hostile frames: a topic count far beyond the bytes present, a count above Kafka's
// million-element bound, and a body cut inside the cursor each close the connection;
// the broker serves the next client.
TEST(DescribeTopicPartitionsHostileTest, HugeCountsAndTruncatedBodiesCloseTheConnection) {
  InProcessBroker b;
  auto send_and_expect_close = [&](const std::vector<std::byte>& body) {
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kDescribeTopicPartitions, kV, 1, body));
    EXPECT_TRUE(c.closed_by_peer());
  };
  {
    protocol::Writer w;
    w.write_uvarint(0x7fff'fff0);  // ~2^31 topics announced, none present
    w.write_int32(2000);
    send_and_expect_close(std::move(w).take());
  }
  {
    protocol::Writer w;
    w.write_uvarint(1'000'001 + 1);  // one more than Kafka accepts, each present
    for (int i = 0; i < 1'000'001; ++i) {
      w.write_uvarint(2);  // name "a"
      w.write_int8(static_cast<int8_t>('a'));
      w.write_uvarint(0);
    }
    w.write_int32(2000);
    w.write_int8(-1);
    w.write_uvarint(0);
    send_and_expect_close(std::move(w).take());
  }
  DescribeTopicPartitionsRequest req;
  req.topics.push_back({"alpha"});
  req.cursor = DescribeTopicPartitionsRequest::Cursor{"alpha", 0};
  const std::vector<std::byte> whole = protocol::encode_to_bytes(req, kV);
  for (size_t cut : {size_t{0}, size_t{1}, whole.size() / 2, whole.size() - 2}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    send_and_expect_close(std::vector<std::byte>(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(cut)));
  }

  WireClient c(b.port());
  c.send(req, kV, 9);
  auto r = c.receive<DescribeTopicPartitionsResponse>(kV, 9);
  ASSERT_TRUE(r) << "the broker must still answer a well-formed request";
  ASSERT_EQ(r->topics.size(), 1u);
  EXPECT_EQ(r->topics[0].error_code, ErrorCode::kUnknownTopicOrPartition);
}

}  // namespace
}  // namespace rokka
