// GroupService: the coordinator behind asio awaitables. The service runs on its own
// io_context thread; the caller's coroutine runs on the test thread's io_context, so
// every co_await also checks that the caller resumes on its own executor.
// GCC 12 reports asio's coroutine frame allocation as mismatched new/delete when it
// inlines a coroutine lambda through std::function (a false positive; asio pairs its own
// operator new/delete).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include "coordinator/group_service.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <chrono>
#include <thread>

#include "coordinator/meta_records.h"
#include "tests/coordinator/coordinator_harness.h"
#include "tests/testutil/fake_meta_store.h"
#include "tests/testutil/manual_clock.h"

namespace rokka::coordinator::test {
namespace {

namespace asio = boost::asio;

class GroupServiceTest : public ::testing::Test {
 protected:
  GroupServiceTest() { meta.set_auto_complete(true); }

  ~GroupServiceTest() override { stop_service_thread(); }

  // Stops the service's io_context and waits for its thread. Every test calls it before
  // its GroupService goes out of scope: the service must outlive the handlers it runs.
  void stop_service_thread() {
    if (!service_thread.joinable()) return;
    service_io.stop();
    service_thread.join();
  }

  // Starts the service's io_context on its own thread.
  void run_service() {
    service_thread = std::thread([this] {
      auto work = asio::make_work_guard(service_io);
      service_io.run();
    });
  }

  // Runs `body` as a coroutine on the caller io_context until it finishes; a watchdog
  // fails the test instead of hanging if something never completes.
  void run_caller(std::function<asio::awaitable<void>()> body) {
    bool finished = false;
    asio::co_spawn(caller_io, [&]() -> asio::awaitable<void> {
      co_await body();
      finished = true;
    }, [](std::exception_ptr e) { if (e) std::rethrow_exception(e); });
    asio::steady_timer watchdog(caller_io, std::chrono::seconds(20));
    watchdog.async_wait([&](boost::system::error_code ec) {
      if (!ec) caller_io.stop();
    });
    while (!finished && !caller_io.stopped()) caller_io.run_one();
    watchdog.cancel();
    EXPECT_TRUE(finished) << "the caller coroutine never finished";
  }

  bool on_caller_thread() { return caller_io.get_executor().running_in_this_thread(); }

  static SyncGroupArgs sync_args(const std::string& member_id, const std::string& assignment) {
    SyncGroupArgs a;
    a.group_id = "g";
    a.generation_id = 1;
    a.member_id = member_id;
    if (!assignment.empty()) a.assignments.push_back({member_id, assignment});
    return a;
  }

  // Argument builders: GCC 12 miscompiles braced temporaries (aggregates, initializer
  // lists) inside coroutines, so co_await expressions take these functions' results.
  static OffsetCommitArgs commit_args(const std::string& member_id, int64_t offset) {
    OffsetCommitArgs a;
    a.group_id = "g";
    a.generation_id = 1;
    a.member_id = member_id;
    a.topics.push_back({"t", {PartitionCommit{0, offset, -1, std::nullopt}}});
    return a;
  }

  static HeartbeatArgs heartbeat_args(const std::string& member_id) {
    HeartbeatArgs a;
    a.group_id = "g";
    a.generation_id = 1;
    a.member_id = member_id;
    return a;
  }

  static LeaveGroupArgs leave_args(const std::string& member_id) {
    return LeaveGroupArgs{"g", {MemberIdentity{member_id, std::nullopt, std::nullopt}}};
  }

  static OffsetDeleteArgs offset_delete_args() { return OffsetDeleteArgs{"g", {TopicPartitions{"t", {0}}}}; }

  static std::vector<std::string> names(const std::string& a, const std::string& b = "") {
    std::vector<std::string> out{a};
    if (!b.empty()) out.push_back(b);
    return out;
  }

  static OffsetFetchArgs fetch_args() {
    OffsetFetchArgs a;
    a.group_id = "g";
    a.topics = std::vector<TopicPartitions>{{"t", {0}}};
    return a;
  }

  static JoinGroupArgs join_args(const std::string& group) {
    JoinGroupArgs a;
    a.group_id = group;
    a.protocol_type = "consumer";
    a.protocols = {{"range", subscription({"t"})}};
    a.session_timeout_ms = 10000;
    a.rebalance_timeout_ms = 10000;
    a.client_id = "c";
    a.api_version = 3;
    return a;
  }

  testutil::FakeMetaStore meta;
  asio::io_context service_io;
  asio::io_context caller_io;
  std::thread service_thread;
};

// What a caller coroutine saw; checked after it finished (GCC 12 miscompiles string
// literals inside gtest assertions in coroutines, so the coroutines only record).
struct Seen {
  GroupError before_start = GroupError::kNone;
  OffsetFetchResult loaded;
  JoinGroupResult joined;
  SyncGroupResult synced;
  GroupError heartbeat = GroupError::kNone;
  OffsetCommitResult committed;
  int64_t refetched = -1;
  std::vector<DescribedGroup> described;
  size_t listed = 0;
  LeaveGroupResult left;
  OffsetDeleteResult deleted_offsets;
  DeleteGroupsResult deleted;
  int resumed_elsewhere = 0;  // awaits that resumed off the caller's own thread
};

// Between two tries of a call that waits for the load: yields the cores for 1 ms (the
// loader has a thread of its own, which two coroutines trying back to back would starve on
// a busy machine). False once `deadline` has passed.
asio::awaitable<bool> pause_before_retry(std::chrono::steady_clock::time_point deadline) {
  asio::steady_timer pause(co_await asio::this_coro::executor, std::chrono::milliseconds(1));
  co_await pause.async_wait(asio::use_awaitable);
  co_return std::chrono::steady_clock::now() < deadline;
}

std::chrono::steady_clock::time_point load_deadline() {
  return std::chrono::steady_clock::now() + std::chrono::seconds(15);  // within run_caller's 20 s watchdog
}

// Awaits until the service has loaded, then joins.
asio::awaitable<JoinGroupResult> join_when_loaded(GroupService& service, JoinGroupArgs args) {
  const auto deadline = load_deadline();
  JoinGroupResult joined = co_await service.join_group(args);
  while (joined.error == GroupError::kCoordinatorLoadInProgress && co_await pause_before_retry(deadline)) {
    joined = co_await service.join_group(args);
  }
  co_return joined;
}

TEST_F(GroupServiceTest, ServesEveryApiAndResumesCallersOnTheirOwnExecutor) {
  meta.put(encode_offset_key("g", {"t", 0}), encode_offset_value({77, -1, "", 1, -1}));
  CoordinatorOptions options = test_options();
  options.initial_rebalance_delay_ms = 0;
  GroupService service(service_io.get_executor(), meta, options);
  run_service();
  Seen seen;
  const std::string group = "g", none = "none", mine = "mine";
  run_caller([&]() -> asio::awaitable<void> {
    auto check_thread = [&] { seen.resumed_elsewhere += on_caller_thread() ? 0 : 1; };
    const OffsetFetchArgs fetch = fetch_args();
    seen.before_start = (co_await service.fetch_offsets(fetch)).error;
    check_thread();
    service.start();
    const auto deadline = load_deadline();
    seen.loaded = co_await service.fetch_offsets(fetch);
    while (seen.loaded.error == GroupError::kCoordinatorLoadInProgress && co_await pause_before_retry(deadline)) {
      seen.loaded = co_await service.fetch_offsets(fetch);
    }
    seen.joined = co_await service.join_group(join_args(group));
    check_thread();
    const std::string id = seen.joined.member_id;
    seen.synced = co_await service.sync_group(sync_args(id, mine));
    check_thread();
    seen.heartbeat = co_await service.heartbeat(heartbeat_args(id));
    check_thread();
    seen.committed = co_await service.commit_offsets(commit_args(id, 99));
    check_thread();
    seen.refetched = (co_await service.fetch_offsets(fetch)).topics.at(0).partitions.at(0).offset;
    seen.described = co_await service.describe_groups(names(group, none));
    seen.listed = (co_await service.list_groups({})).groups.size();
    seen.left = co_await service.leave_group(leave_args(id));
    seen.deleted_offsets = co_await service.delete_offsets(offset_delete_args());
    seen.deleted = co_await service.delete_groups(names(group));
    check_thread();
    service.stop();
  });
  stop_service_thread();
  EXPECT_EQ(seen.resumed_elsewhere, 0);
  EXPECT_EQ(seen.before_start, GroupError::kCoordinatorLoadInProgress) << "nothing is loaded before start()";
  ASSERT_EQ(seen.loaded.error, GroupError::kNone);
  EXPECT_EQ(seen.loaded.topics.at(0).partitions.at(0).offset, 77);
  EXPECT_EQ(seen.joined.error, GroupError::kNone);
  EXPECT_EQ(seen.joined.generation_id, 1);
  EXPECT_EQ(seen.synced.assignment, "mine");
  EXPECT_EQ(seen.heartbeat, GroupError::kNone);
  EXPECT_EQ(seen.committed.topics.at(0).partitions.at(0).error, GroupError::kNone);
  EXPECT_EQ(seen.refetched, 99);
  ASSERT_EQ(seen.described.size(), 2u);
  EXPECT_EQ(seen.described[0].state, "Stable");
  EXPECT_EQ(seen.described[1].state, "Dead");
  EXPECT_EQ(seen.listed, 1u);
  EXPECT_EQ(seen.left.members.at(0).error, GroupError::kNone);
  EXPECT_EQ(seen.deleted_offsets.topics.at(0).partitions.at(0).error, GroupError::kNone);
  EXPECT_EQ(seen.deleted.groups.at(0).error, GroupError::kGroupIdNotFound) << "gone with its last offset";
}

TEST_F(GroupServiceTest, SystemTimerEndsTheInitialDelay) {
  CoordinatorOptions options = test_options();
  options.initial_rebalance_delay_ms = 20;  // only the service's asio timer can end it
  GroupService service(service_io.get_executor(), meta, options);
  service.start();
  run_service();
  JoinGroupResult joined;
  const std::string group = "g";
  run_caller([&]() -> asio::awaitable<void> {
    joined = co_await join_when_loaded(service, join_args(group));
    service.stop();
  });
  stop_service_thread();
  EXPECT_EQ(joined.error, GroupError::kNone);
  EXPECT_EQ(joined.generation_id, 1);
}

TEST_F(GroupServiceTest, DueTimersFireBeforeTheNextOperation) {
  testutil::ManualClock clock;
  CoordinatorOptions options = test_options();
  options.initial_rebalance_delay_ms = 0;
  GroupService service(service_io.get_executor(), meta, options, clock.fn());
  service.start();
  run_service();
  std::vector<DescribedGroup> described;
  const std::string group = "g";
  run_caller([&]() -> asio::awaitable<void> {
    JoinGroupResult joined = co_await join_when_loaded(service, join_args(group));
    co_await service.sync_group(sync_args(joined.member_id, std::string()));
    // One more round trip: the strand has finished everything the sync set off.
    co_await service.list_groups(ListGroupsArgs());
    clock.advance(10001);
    described = co_await service.describe_groups(names(group));
    service.stop();
  });
  stop_service_thread();
  ASSERT_EQ(described.size(), 1u);
  EXPECT_EQ(described[0].state, "Empty") << "its only member's session ran out";
}

TEST_F(GroupServiceTest, StopAnswersParkedJoins) {
  CoordinatorOptions options = test_options();
  options.initial_rebalance_delay_ms = 600000;
  GroupService service(service_io.get_executor(), meta, options);
  service.start();
  run_service();
  JoinGroupResult parked;
  bool on_own_thread = false;
  const std::string group = "g";
  const HeartbeatArgs stranger{"other", 0, "x", std::nullopt};
  run_caller([&]() -> asio::awaitable<void> {
    // Wait for the load: before it, heartbeats are answered blindly with kNone.
    const auto deadline = load_deadline();
    while ((co_await service.heartbeat(stranger)) != GroupError::kUnknownMemberId && co_await pause_before_retry(deadline)) {
    }
    asio::co_spawn(
        caller_io,
        [&]() -> asio::awaitable<void> {
          co_await service.describe_groups(names(group));  // after the join below parks
          service.stop();
        },
        asio::detached);
    parked = co_await service.join_group(join_args(group));
    on_own_thread = on_caller_thread();
  });
  stop_service_thread();
  EXPECT_EQ(parked.error, GroupError::kCoordinatorNotAvailable);
  EXPECT_TRUE(on_own_thread);
}

}  // namespace
}  // namespace rokka::coordinator::test
