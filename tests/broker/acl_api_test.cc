// CreateAcls/DescribeAcls/DeleteAcls through librdkafka's Admin API and raw frames, and
// the authorizer's verdicts as clients see them (error codes on Produce, Metadata,
// groups), on an in-process broker.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::InProcessBroker;
using testutil::WireClient;

const InProcessBroker::Overrides& kAuthorizerOn = testutil::kAuthorizerAllowingUncovered;

// A plain librdkafka handle with an admin result queue; ACL calls block for their result.
class AclAdmin {
 public:
  explicit AclAdmin(const std::string& bootstrap) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      throw std::runtime_error(err);
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (rk_ == nullptr) throw std::runtime_error(err);
    queue_ = rd_kafka_queue_new(rk_);
  }
  ~AclAdmin() {
    rd_kafka_queue_destroy(queue_);
    rd_kafka_destroy(rk_);
  }

  struct Binding {
    rd_kafka_ResourceType_t type;
    std::string name;
    rd_kafka_ResourcePatternType_t pattern;
    std::string principal;
    std::string host;
    rd_kafka_AclOperation_t op;
    rd_kafka_AclPermissionType_t permission;
    bool operator==(const Binding&) const = default;
  };

  // Per binding: the error code of its creation.
  std::vector<rd_kafka_resp_err_t> create(const std::vector<Binding>& bindings) {
    std::vector<rd_kafka_AclBinding_t*> acls;
    for (const Binding& b : bindings) acls.push_back(make(b, /*filter=*/false));
    rd_kafka_CreateAcls(rk_, acls.data(), acls.size(), nullptr, queue_);
    rd_kafka_AclBinding_destroy_array(acls.data(), acls.size());
    Event ev = wait(RD_KAFKA_EVENT_CREATEACLS_RESULT);
    size_t n = 0;
    const rd_kafka_acl_result_t** r = rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(ev.get()), &n);
    std::vector<rd_kafka_resp_err_t> out;
    for (size_t i = 0; i < n; ++i) {
      const rd_kafka_error_t* e = rd_kafka_acl_result_error(r[i]);
      out.push_back(e ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    return out;
  }

  // The bindings matching `filter` (empty strings in it mean "any").
  std::vector<Binding> describe(const Binding& filter) {
    rd_kafka_AclBindingFilter_t* f = make(filter, /*filter=*/true);
    rd_kafka_DescribeAcls(rk_, f, nullptr, queue_);
    rd_kafka_AclBinding_destroy(f);
    Event ev = wait(RD_KAFKA_EVENT_DESCRIBEACLS_RESULT);
    size_t n = 0;
    const rd_kafka_AclBinding_t** r =
        rd_kafka_DescribeAcls_result_acls(rd_kafka_event_DescribeAcls_result(ev.get()), &n);
    return to_bindings(r, n);
  }

  // Per filter: the bindings it deleted.
  std::vector<std::vector<Binding>> remove(const std::vector<Binding>& filters) {
    std::vector<rd_kafka_AclBindingFilter_t*> fs;
    for (const Binding& f : filters) fs.push_back(make(f, /*filter=*/true));
    rd_kafka_DeleteAcls(rk_, fs.data(), fs.size(), nullptr, queue_);
    rd_kafka_AclBinding_destroy_array(fs.data(), fs.size());
    Event ev = wait(RD_KAFKA_EVENT_DELETEACLS_RESULT);
    size_t n = 0;
    const rd_kafka_DeleteAcls_result_response_t** r =
        rd_kafka_DeleteAcls_result_responses(rd_kafka_event_DeleteAcls_result(ev.get()), &n);
    std::vector<std::vector<Binding>> out;
    for (size_t i = 0; i < n; ++i) {
      if (const rd_kafka_error_t* e = rd_kafka_DeleteAcls_result_response_error(r[i]))
        throw std::runtime_error(std::string("delete acls: ") + rd_kafka_error_string(e));
      size_t m = 0;
      const rd_kafka_AclBinding_t** matched = rd_kafka_DeleteAcls_result_response_matching_acls(r[i], &m);
      out.push_back(to_bindings(matched, m));
    }
    return out;
  }

 private:
  struct EventDeleter {
    void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
  };
  using Event = std::unique_ptr<rd_kafka_event_t, EventDeleter>;

  Event wait(rd_kafka_event_type_t type) {
    Event ev(rd_kafka_queue_poll(queue_, 30000));
    if (!ev || rd_kafka_event_type(ev.get()) != type) throw std::runtime_error("no admin result");
    return ev;
  }

  static rd_kafka_AclBinding_t* make(const Binding& b, bool filter) {
    char err[512];
    auto opt = [&](const std::string& s) { return filter && s.empty() ? nullptr : s.c_str(); };
    rd_kafka_AclBinding_t* acl =
        filter ? rd_kafka_AclBindingFilter_new(b.type, opt(b.name), b.pattern, opt(b.principal), opt(b.host), b.op,
                                               b.permission, err, sizeof err)
               : rd_kafka_AclBinding_new(b.type, b.name.c_str(), b.pattern, b.principal.c_str(), b.host.c_str(), b.op,
                                         b.permission, err, sizeof err);
    if (acl == nullptr) throw std::runtime_error(err);
    return acl;
  }

  static std::vector<Binding> to_bindings(const rd_kafka_AclBinding_t** acls, size_t n) {
    std::vector<Binding> out;
    for (size_t i = 0; i < n; ++i) {
      const rd_kafka_AclBinding_t* a = acls[i];
      out.push_back({rd_kafka_AclBinding_restype(a), rd_kafka_AclBinding_name(a),
                     rd_kafka_AclBinding_resource_pattern_type(a), rd_kafka_AclBinding_principal(a),
                     rd_kafka_AclBinding_host(a), rd_kafka_AclBinding_operation(a),
                     rd_kafka_AclBinding_permission_type(a)});
    }
    return out;
  }

  rd_kafka_t* rk_ = nullptr;
  rd_kafka_queue_t* queue_ = nullptr;
};

using B = AclAdmin::Binding;

B topic_acl(std::string name, rd_kafka_ResourcePatternType_t pattern, std::string principal, rd_kafka_AclOperation_t op,
            rd_kafka_AclPermissionType_t permission = RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW) {
  return {RD_KAFKA_RESOURCE_TOPIC, std::move(name), pattern, std::move(principal), "*", op, permission};
}

const B kAnyFilter{RD_KAFKA_RESOURCE_ANY, "", RD_KAFKA_RESOURCE_PATTERN_ANY, "", "", RD_KAFKA_ACL_OPERATION_ANY,
                   RD_KAFKA_ACL_PERMISSION_TYPE_ANY};

TEST(AclApiTest, CreateDescribeDeleteThroughLibrdkafka) {
  InProcessBroker b(kAuthorizerOn);
  AclAdmin admin(b.bootstrap());
  const B read_prefixed = topic_acl("orders", RD_KAFKA_RESOURCE_PATTERN_PREFIXED, "User:alice",
                                    RD_KAFKA_ACL_OPERATION_READ);
  const B write_literal = topic_acl("orders", RD_KAFKA_RESOURCE_PATTERN_LITERAL, "User:bob",
                                    RD_KAFKA_ACL_OPERATION_WRITE);
  const B group_deny = {RD_KAFKA_RESOURCE_GROUP, "g1",          RD_KAFKA_RESOURCE_PATTERN_LITERAL, "User:bob",
                        "10.0.0.1",              RD_KAFKA_ACL_OPERATION_READ, RD_KAFKA_ACL_PERMISSION_TYPE_DENY};
  EXPECT_EQ(admin.create({read_prefixed, write_literal, group_deny}),
            (std::vector<rd_kafka_resp_err_t>(3, RD_KAFKA_RESP_ERR_NO_ERROR)));

  auto all = admin.describe(kAnyFilter);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_NE(std::find(all.begin(), all.end(), read_prefixed), all.end());
  EXPECT_NE(std::find(all.begin(), all.end(), write_literal), all.end());
  EXPECT_NE(std::find(all.begin(), all.end(), group_deny), all.end());

  // A literal filter on the name and operation, as 0081_admin asks.
  B writes = kAnyFilter;
  writes.type = RD_KAFKA_RESOURCE_TOPIC;
  writes.name = "orders";
  writes.pattern = RD_KAFKA_RESOURCE_PATTERN_LITERAL;
  writes.op = RD_KAFKA_ACL_OPERATION_WRITE;
  EXPECT_EQ(admin.describe(writes), std::vector<B>{write_literal});

  // MATCH on "orders-eu" finds the prefix binding only; it and the group binding go.
  B match = kAnyFilter;
  match.type = RD_KAFKA_RESOURCE_TOPIC;
  match.name = "orders-eu";
  match.pattern = RD_KAFKA_RESOURCE_PATTERN_MATCH;
  B groups = kAnyFilter;
  groups.type = RD_KAFKA_RESOURCE_GROUP;
  auto removed = admin.remove({match, groups});
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0], std::vector<B>{read_prefixed});
  EXPECT_EQ(removed[1], std::vector<B>{group_deny});
  EXPECT_EQ(admin.describe(kAnyFilter), std::vector<B>{write_literal});
}

TEST(AclApiTest, WithoutAnAuthorizerTheAclApisAnswerSecurityDisabled) {
  InProcessBroker b;
  AclAdmin admin(b.bootstrap());
  EXPECT_EQ(admin.create({topic_acl("t", RD_KAFKA_RESOURCE_PATTERN_LITERAL, "User:a", RD_KAFKA_ACL_OPERATION_READ)}),
            std::vector<rd_kafka_resp_err_t>{RD_KAFKA_RESP_ERR_SECURITY_DISABLED});
  // librdkafka 2.0.2 drops DescribeAcls' response-level error: read it off the wire.
  WireClient c(b.port());
  protocol::DescribeAclsRequest describe;
  describe.resource_type_filter = 1;
  describe.pattern_type_filter = 1;
  describe.operation = 1;
  describe.permission_type = 1;
  c.send(describe, 3, 1);
  auto listed = c.receive<protocol::DescribeAclsResponse>(3, 1);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->error_code, ErrorCode::kSecurityDisabled);
  protocol::DeleteAclsRequest del;
  del.filters = {{1, std::nullopt, 1, std::nullopt, std::nullopt, 1, 1}};
  c.send(del, 3, 2);
  auto deleted = c.receive<protocol::DeleteAclsResponse>(3, 2);
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->filter_results.size(), 1u);
  EXPECT_EQ(deleted->filter_results[0].error_code, ErrorCode::kSecurityDisabled);
}

TEST(AclApiTest, ADenyAclFailsTheProducerWithTopicAuthorizationFailed) {
  InProcessBroker b(kAuthorizerOn);
  AclAdmin admin(b.bootstrap());
  testutil::KafkaAdmin topics(b.bootstrap());
  ASSERT_EQ(topics.create_topic("secret", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(topics.create_topic("open", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  // The producer may see the topic (DESCRIBE) but not write to it.
  ASSERT_EQ(admin.create({topic_acl("secret", RD_KAFKA_RESOURCE_PATTERN_LITERAL, "User:*",
                                    RD_KAFKA_ACL_OPERATION_DESCRIBE),
                          topic_acl("secret", RD_KAFKA_RESOURCE_PATTERN_LITERAL, "User:ANONYMOUS",
                                    RD_KAFKA_ACL_OPERATION_WRITE, RD_KAFKA_ACL_PERMISSION_TYPE_DENY)}),
            (std::vector<rd_kafka_resp_err_t>(2, RD_KAFKA_RESP_ERR_NO_ERROR)));

  testutil::TestProducer p(b.bootstrap(), {{"message.timeout.ms", "20000"}});
  ASSERT_EQ(p.produce("secret", 0, std::nullopt, "denied"), RdKafka::ERR_NO_ERROR);
  ASSERT_EQ(p.produce("open", 0, std::nullopt, "allowed"), RdKafka::ERR_NO_ERROR);
  auto& delivered = p.flush();
  ASSERT_EQ(delivered.size(), 2u);
  for (const auto& d : delivered) {
    if (d.topic == "secret") {
      EXPECT_EQ(d.error, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED) << RdKafka::err2str(d.error);
    } else {
      EXPECT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
      EXPECT_EQ(d.offset, 0);
    }
  }
}

// ---- raw frames

template <typename Resp, typename Req>
std::optional<Resp> call(WireClient& c, const Req& req, int16_t version, int32_t cid = 1) {
  c.send(req, version, cid);
  return c.receive<Resp>(version, cid);
}

TEST(AclApiTest, CreateAclsWithBadEnumsAnswersInvalidRequestPerCreation) {
  InProcessBroker b(kAuthorizerOn);
  WireClient c(b.port());
  protocol::CreateAclsRequest req;
  auto good = protocol::CreateAclsRequest::AclCreation{2, "t", 3, "User:a", "*", 3, 3};
  auto bad_type = good;
  bad_type.resource_type = 1;  // ANY
  auto bad_pattern = good;
  bad_pattern.resource_pattern_type = 2;  // MATCH
  auto bad_op = good;
  bad_op.operation = 42;
  auto bad_perm = good;
  bad_perm.permission_type = -3;
  auto bad_principal = good;
  bad_principal.principal = "alice";
  req.creations = {bad_type, good, bad_pattern, bad_op, bad_perm, bad_principal};
  auto resp = call<protocol::CreateAclsResponse>(c, req, 3);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->results.size(), 6u);
  for (size_t i = 0; i < resp->results.size(); ++i)
    EXPECT_EQ(resp->results[i].error_code, i == 1 ? ErrorCode::kNone : ErrorCode::kInvalidRequest) << i;

  protocol::DescribeAclsRequest describe;
  describe.resource_type_filter = 1;
  describe.pattern_type_filter = 1;
  describe.operation = 1;
  describe.permission_type = 1;
  auto listed = call<protocol::DescribeAclsResponse>(c, describe, 1, 2);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->error_code, ErrorCode::kNone);
  ASSERT_EQ(listed->resources.size(), 1u);  // only the valid binding was stored
  EXPECT_EQ(listed->resources[0].resource_name, "t");

  describe.operation = 0;  // UNKNOWN
  listed = call<protocol::DescribeAclsResponse>(c, describe, 1, 3);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->error_code, ErrorCode::kInvalidRequest);
  EXPECT_TRUE(listed->resources.empty());

  protocol::DeleteAclsRequest del;
  del.filters = {{1, std::nullopt, 1, std::nullopt, std::nullopt, 1, 0},  // UNKNOWN permission
                 {1, std::nullopt, 1, std::nullopt, std::nullopt, 1, 1}};
  auto deleted = call<protocol::DeleteAclsResponse>(c, del, 1, 4);
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->filter_results.size(), 2u);
  EXPECT_EQ(deleted->filter_results[0].error_code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(deleted->filter_results[1].error_code, ErrorCode::kNone);
  EXPECT_EQ(deleted->filter_results[1].matching_acls.size(), 1u);
}

TEST(AclApiTest, TruncatedOrNegativeCountAclRequestsCloseTheConnection) {
  InProcessBroker b(kAuthorizerOn);
  protocol::CreateAclsRequest req;
  req.creations = {{2, "topic", 3, "User:a", "*", 3, 3}};
  const std::vector<std::byte> body = protocol::encode_to_bytes(req, 1);
  // Every strict prefix of a valid body is malformed.
  for (size_t cut = 0; cut < body.size(); ++cut) {
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kCreateAcls, 1, 1, {body.begin(), body.begin() + cut}));
    EXPECT_TRUE(c.closed_by_peer()) << "cut at " << cut;
  }
  // A negative creation count (non-flexible v1) and a huge one with no bytes behind it.
  for (auto count : {std::vector<std::byte>{std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xfe}},
                     std::vector<std::byte>{std::byte{0x7f}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}}}) {
    WireClient c(b.port());
    c.send_raw(WireClient::frame(protocol::ApiKey::kDeleteAcls, 1, 1, count));
    EXPECT_TRUE(c.closed_by_peer());
  }
  // The broker still serves: nothing was stored.
  WireClient c(b.port());
  protocol::DescribeAclsRequest describe;
  describe.resource_type_filter = 1;
  describe.pattern_type_filter = 1;
  describe.operation = 1;
  describe.permission_type = 1;
  auto listed = call<protocol::DescribeAclsResponse>(c, describe, 1);
  ASSERT_TRUE(listed);
  EXPECT_TRUE(listed->resources.empty());
}

TEST(AclApiTest, DeniedTopicsAndGroupsGetAuthorizationErrors) {
  InProcessBroker b(kAuthorizerOn);
  testutil::KafkaAdmin topics(b.bootstrap());
  ASSERT_EQ(topics.create_topic("hidden", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(topics.create_topic("visible", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  WireClient c(b.port());
  protocol::CreateAclsRequest req;
  req.creations = {{2, "hidden", 3, "User:ANONYMOUS", "127.0.0.1", 8, 2},  // DENY DESCRIBE from this host
                   {3, "g-", 4, "User:*", "*", 2, 2}};                      // DENY ALL on groups g-*
  auto created = call<protocol::CreateAclsResponse>(c, req, 1);
  ASSERT_TRUE(created);
  for (const auto& r : created->results) ASSERT_EQ(r.error_code, ErrorCode::kNone);

  protocol::MetadataRequest all;  // null topics: every topic the client may describe
  auto meta = call<protocol::MetadataResponse>(c, all, 9, 2);
  ASSERT_TRUE(meta);
  std::vector<std::string> names;
  for (const auto& t : meta->topics) names.push_back(*t.name);
  EXPECT_EQ(names, std::vector<std::string>{"visible"});

  protocol::MetadataRequest named;
  named.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{}};
  named.topics->front().name = "hidden";
  meta = call<protocol::MetadataResponse>(c, named, 9, 3);
  ASSERT_TRUE(meta);
  ASSERT_EQ(meta->topics.size(), 1u);
  EXPECT_EQ(meta->topics[0].error_code, ErrorCode::kTopicAuthorizationFailed);

  // DENY DESCRIBE does not deny WRITE, but the topic has an ACL and none allows WRITE.
  const std::vector<std::byte> batch = testutil::make_batch({.records = 1});
  protocol::ProduceRequest produce;
  produce.acks = -1;
  produce.timeout_ms = 5000;
  for (std::string_view name : {"hidden", "visible"}) {
    auto& t = produce.topic_data.emplace_back();
    t.name = name;
    t.partition_data.emplace_back().records.data = protocol::Bytes(batch);
  }
  auto produced = call<protocol::ProduceResponse>(c, produce, 9, 5);
  ASSERT_TRUE(produced);
  ASSERT_EQ(produced->responses.size(), 2u);
  EXPECT_EQ(produced->responses[0].partition_responses.at(0).error_code, ErrorCode::kTopicAuthorizationFailed);
  EXPECT_EQ(produced->responses[1].partition_responses.at(0).error_code, ErrorCode::kNone);
  EXPECT_EQ(produced->responses[1].partition_responses.at(0).base_offset, 0);

  protocol::HeartbeatRequest hb;
  hb.group_id = "g-payments";
  hb.member_id = "m";
  auto beat = call<protocol::HeartbeatResponse>(c, hb, 3, 4);
  ASSERT_TRUE(beat);
  EXPECT_EQ(beat->error_code, ErrorCode::kGroupAuthorizationFailed);
}

}  // namespace
}  // namespace rokka
