// The authorizer's refusals in the log: once per principal, host, operation and
// resource, then at most once a minute with how many refusals the line stands for, a
// bounded number of keys, and nothing logged for what only computes allowed operations.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/meta/authorizer.h"
#include "broker/meta/denial_log.h"
#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

struct Recorder {
  int64_t now = 1000;
  std::vector<std::string> lines;
  DenialLog::Options options(size_t max_keys = 10000) {
    DenialLog::Options o;
    o.interval_ms = 60000;
    o.max_keys = max_keys;
    o.clock_ms = [this] { return now; };
    o.emit = [this](const std::string& line) { lines.push_back(line); };
    return o;
  }
};

TEST(DenialLogTest, ARefusalIsLoggedOnceThenOncePerIntervalWithTheCount) {
  Recorder r;
  DenialLog log(r.options());
  log.denied("User:alice", "10.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "orders");
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0],
            "authorization denied: principal=User:alice host=10.0.0.1 operation=Write resource=Topic:orders");
  for (int i = 0; i < 5; ++i) {
    r.now += 10000;  // 10 s apart: all within the minute
    log.denied("User:alice", "10.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "orders");
  }
  EXPECT_EQ(r.lines.size(), 1u);
  // Another operation, host, principal or resource is a key of its own.
  log.denied("User:alice", "10.0.0.1", AclOperation::kRead, ResourceType::kTopic, "orders");
  log.denied("User:alice", "10.0.0.2", AclOperation::kWrite, ResourceType::kTopic, "orders");
  log.denied("User:bob", "10.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "orders");
  log.denied("User:alice", "10.0.0.1", AclOperation::kWrite, ResourceType::kGroup, "orders");
  EXPECT_EQ(r.lines.size(), 5u);
  r.now = 1000 + 60000;  // the first key's minute is over
  log.denied("User:alice", "10.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "orders");
  ASSERT_EQ(r.lines.size(), 6u);
  EXPECT_EQ(r.lines[5],
            "authorization denied: principal=User:alice host=10.0.0.1 operation=Write resource=Topic:orders"
            " (refused 5 more times since its last line)");
}

TEST(DenialLogTest, BeyondTheKeyLimitRefusalsAreSummedUpOncePerInterval) {
  Recorder r;
  DenialLog log(r.options(2));
  log.denied("User:a", "h", AclOperation::kRead, ResourceType::kTopic, "t1");
  log.denied("User:a", "h", AclOperation::kRead, ResourceType::kTopic, "t2");
  for (int i = 3; i <= 10; ++i)
    log.denied("User:a", "h", AclOperation::kRead, ResourceType::kTopic, "t" + std::to_string(i));
  ASSERT_EQ(r.lines.size(), 3u);  // two keys, then one summary
  EXPECT_EQ(r.lines[2], "authorization denied: 1 refusals of principals and resources too many to list one by one");
  r.now += 60000;  // the remembered keys are quiet for a minute: they are forgotten to make room
  log.denied("User:a", "h", AclOperation::kRead, ResourceType::kTopic, "t9");
  ASSERT_EQ(r.lines.size(), 4u);
  EXPECT_NE(r.lines[3].find("resource=Topic:t9"), std::string::npos) << r.lines[3];
}

TEST(DenialLogTest, TheAuthorizerLogsRefusalsButNotAllowancesSuperUsersOrQuietChecks) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  Recorder r;
  AuthorizerOptions o{true, false, {"User:admin"}};
  o.denials = r.options();
  Authorizer a(meta, o);
  storage::Status created = storage::Status::corruption("not called");
  a.create({AclBinding{ResourceType::kTopic, "open", PatternType::kLiteral, "User:*", "*", AclOperation::kRead,
                       AclPermission::kAllow}},
           [&](storage::Status s) { created = s; });
  ASSERT_TRUE(created.ok()) << created.to_string();

  EXPECT_TRUE(a.check("User:carol", "127.0.0.1", AclOperation::kRead, ResourceType::kTopic, "open"));
  EXPECT_TRUE(a.check("User:admin", "127.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "closed"));
  EXPECT_FALSE(a.check("User:carol", "127.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "closed", false));
  EXPECT_TRUE(r.lines.empty());
  EXPECT_FALSE(a.check("User:carol", "127.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "closed"));
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0],
            "authorization denied: principal=User:carol host=127.0.0.1 operation=Write resource=Topic:closed");
}

}  // namespace
}  // namespace rokka::broker
