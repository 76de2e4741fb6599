// ACLs are broker state: after CreateAcls is answered they survive kill -9 of
// build/rokka and keep being enforced after the restart; deleted ones stay deleted.
#include <gtest/gtest.h>

#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/produce.h"
#include "tests/testutil/record_batch.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

using testutil::RokkaProcess;
using testutil::TempDir;
using testutil::WireClient;

// Every binding, as (resource name, principal) pairs.
std::vector<std::pair<std::string, std::string>> all_acls(WireClient& c, int32_t cid) {
  protocol::DescribeAclsRequest req;
  req.resource_type_filter = 1;  // ANY
  req.pattern_type_filter = 1;
  req.operation = 1;
  req.permission_type = 1;
  c.send(req, 2, cid);
  auto resp = c.receive<protocol::DescribeAclsResponse>(2, cid);
  EXPECT_TRUE(resp);
  std::vector<std::pair<std::string, std::string>> out;
  if (!resp) return out;
  EXPECT_EQ(resp->error_code, ErrorCode::kNone);
  for (const auto& r : resp->resources)
    for (const auto& a : r.acls) out.emplace_back(r.resource_name, a.principal);
  return out;
}

int16_t produce_error(WireClient& c, std::string_view topic, int32_t cid) {
  const std::vector<std::byte> batch = testutil::make_batch({.records = 1});
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 5000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  t.partition_data.emplace_back().records.data = protocol::Bytes(batch);
  c.send(req, 9, cid);
  auto resp = c.receive<protocol::ProduceResponse>(9, cid);
  return resp ? rokka::protocol::to_int(resp->responses.at(0).partition_responses.at(0).error_code) : -999;
}

TEST(AclRestartTest, AclsSurviveKillNineAndStayEnforced) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  RokkaProcess broker(dir / "data", {{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"},
                                     {"allow.everyone.if.no.acl.found", "true"}});
  broker.start();
  {
    WireClient c(broker.port());
    ASSERT_EQ(produce_error(c, "locked", 1), 3);  // no such topic yet, and no ACL in the way
    protocol::CreateAclsRequest req;
    req.creations = {{2, "locked", 3, "User:ANONYMOUS", "*", 4, 2},  // DENY WRITE
                     {2, "gone", 4, "User:bob", "*", 3, 3}};         // ALLOW READ on prefix "gone"
    c.send(req, 2, 2);
    auto created = c.receive<protocol::CreateAclsResponse>(2, 2);
    ASSERT_TRUE(created);
    for (const auto& r : created->results) ASSERT_EQ(r.error_code, ErrorCode::kNone);
    protocol::DeleteAclsRequest del;
    del.filters = {{2, std::string_view("gone"), 4, std::nullopt, std::nullopt, 1, 1}};
    c.send(del, 2, 3);
    auto deleted = c.receive<protocol::DeleteAclsResponse>(2, 3);
    ASSERT_TRUE(deleted);
    ASSERT_EQ(deleted->filter_results.at(0).matching_acls.size(), 1u);
  }
  broker.kill9();
  broker.start();
  WireClient c(broker.port());
  EXPECT_EQ(all_acls(c, 4), (std::vector<std::pair<std::string, std::string>>{{"locked", "User:ANONYMOUS"}}));
  EXPECT_EQ(produce_error(c, "locked", 5), 29);
}

}  // namespace
}  // namespace rokka
