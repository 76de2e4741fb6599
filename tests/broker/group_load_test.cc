// Start-up of the group coordinator behind the wire: until committed offsets and groups
// are loaded, the group APIs answer COORDINATOR_LOAD_IN_PROGRESS (Heartbeat and
// SyncGroup excepted, by design), and clients that retry get in once loading is done.
// A store wrapper holds the coordinator's scans to keep it loading.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "protocol/error_code.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/sync_group.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/group_consumer.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using testutil::InProcessBroker;
using testutil::WireClient;

constexpr int16_t kLoadInProgress = static_cast<int16_t>(ErrorCode::kCoordinatorLoadInProgress);

// A store whose meta scans of the group coordinator's keys wait until release(): the
// coordinator stays loading while everything else works. Everything else is forwarded.
class HeldScanStore final : public storage::Store, public storage::MetaStore {
 public:
  explicit HeldScanStore(std::unique_ptr<storage::Store> inner) : inner_(std::move(inner)) {}

  void release() {
    {
      std::lock_guard lock(mu_);
      held_ = false;
    }
    cv_.notify_all();
  }

  // MetaStore
  void write(std::vector<Mutation> batch, storage::StatusCallback done) override {
    inner_->meta().write(std::move(batch), std::move(done));
  }
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override {
    if (prefix.starts_with("g/") || prefix.starts_with("o/")) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !held_; });
    }
    return inner_->meta().scan(prefix);
  }

  // Store
  void create_partitions(uint32_t count, std::function<void(storage::Result<std::vector<storage::PartitionId>>)> done) override {
    inner_->create_partitions(count, std::move(done));
  }
  void delete_partition(storage::PartitionId p, storage::StatusCallback done) override {
    inner_->delete_partition(p, std::move(done));
  }
  void append(std::vector<storage::AppendRequest> requests, storage::AppendCallback done) override {
    inner_->append(std::move(requests), std::move(done));
  }
  storage::Result<storage::ReadResult> read(storage::PartitionId p, int64_t offset, int64_t max_bytes) const override {
    return inner_->read(p, offset, max_bytes);
  }
  storage::Result<storage::PartitionOffsets> offsets(storage::PartitionId p) const override { return inner_->offsets(p); }
  storage::Result<storage::TimestampOffset> lookup_timestamp(storage::PartitionId p, int64_t ts) const override {
    return inner_->lookup_timestamp(p, ts);
  }
  storage::Result<storage::TimestampOffset> max_timestamp(storage::PartitionId p) const override {
    return inner_->max_timestamp(p);
  }
  void delete_records(storage::PartitionId p, int64_t offset, std::function<void(storage::Result<int64_t>)> done) override {
    inner_->delete_records(p, offset, std::move(done));
  }
  storage::MetaStore& meta() override { return *this; }
  void set_append_listener(std::function<void(std::span<const storage::PartitionId>)> l) override {
    inner_->set_append_listener(std::move(l));
  }
  storage::Status close() override { return inner_->close(); }

 private:
  std::unique_ptr<storage::Store> inner_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool held_ = true;
};

// A broker whose coordinator stays loading until release().
class LoadingBroker {
 public:
  LoadingBroker()
      : broker_({{"group.initial.rebalance.delay.ms", "0"}}, [this](std::unique_ptr<storage::Store> inner) {
          auto s = std::make_unique<HeldScanStore>(std::move(inner));
          store_ = s.get();
          return std::unique_ptr<storage::Store>(std::move(s));
        }) {}
  ~LoadingBroker() { release(); }  // before ~InProcessBroker joins the loader
  void release() { store_->release(); }
  InProcessBroker& broker() { return broker_; }

 private:
  HeldScanStore* store_ = nullptr;  // owned by the broker; declared before broker_ so the wrapper sets it
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
  return resp ? rokka::protocol::to_int(resp->error_code) : int16_t{-1};
}

int16_t offset_fetch_error(WireClient& c, int32_t correlation_id) {
  protocol::OffsetFetchRequest req;
  req.group_id = "g";
  req.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"t", {0}}};
  c.send(req, 5, correlation_id);
  auto resp = c.receive<protocol::OffsetFetchResponse>(5, correlation_id);
  return resp ? rokka::protocol::to_int(resp->error_code) : int16_t{-1};
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
    EXPECT_EQ(resp->error_code, ErrorCode::kCoordinatorLoadInProgress);
  }
  {
    protocol::DescribeGroupsRequest req;
    req.groups = {"g"};
    c.send(req, 5, cid);
    auto resp = c.receive<protocol::DescribeGroupsResponse>(5, cid++);
    ASSERT_TRUE(resp && resp->groups.size() == 1);
    EXPECT_EQ(resp->groups[0].error_code, ErrorCode::kCoordinatorLoadInProgress);
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
    EXPECT_EQ(resp->error_code, ErrorCode::kNone);
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
    EXPECT_EQ(resp->error_code, ErrorCode::kRebalanceInProgress);
  }

  loading.release();
  int16_t joined = kLoadInProgress;
  ASSERT_TRUE(testutil::eventually([&] { return (joined = join_error(c, cid++)) != kLoadInProgress; }));
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
