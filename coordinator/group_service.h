// GroupService: the GroupCoordinator on an asio strand, for the broker's handlers.
// One awaitable call per Kafka API; the handler translates protocol structs to the
// plain structs of coordinator/group_types.h and GroupError to a Kafka ErrorCode.
//
// Contract
//  - Threading: the service owns a strand on the executor it is given (e.g. one network
//    io_context); the coordinator, its state and its one system timer live there. Every
//    operation may be awaited from any executor: it hops onto the strand, runs the
//    coordinator, and resumes the caller ON THE CALLER'S OWN EXECUTOR (never on the
//    strand, never on the store's writer thread). Arguments are taken by value.
//  - When operations complete: join_group when the join phase ends (up to the rebalance
//    timeout, or group.initial.rebalance.delay.ms for a new group); sync_group when the
//    leader's assignment is durable; commit_offsets, delete_groups and delete_offsets
//    once durable in the MetaStore; the others at once.
//  - Start-up: start() reads the coordinator's records from the MetaStore on a helper
//    thread, then installs them on the strand. Until then the group APIs answer
//    kCoordinatorLoadInProgress (see GroupCoordinator for the Heartbeat/SyncGroup
//    exceptions). Call start() once, before or while serving.
//  - Timers: one asio::steady_timer for the coordinator's earliest deadline, moved only
//    when a deadline earlier than the armed one appears (heartbeats only move deadlines
//    later: they never touch it); due timers also fire before each operation. While
//    nothing expires it wakes at most once per session timeout, to re-aim.
//  - Shutdown: stop() (any thread, returns at once) answers every parked JoinGroup and
//    SyncGroup with kCoordinatorNotAvailable, cancels the timer and refuses later calls.
//    MetaStore completions are posted to the strand, so destroy in this order: stop(),
//    let the io_context finish what is queued (or stop it), Store::close(), then
//    ~GroupService, then the io_context. The service must outlive every coroutine that
//    awaits it.
//  - GCC 12 pitfall (seen under ASan here): a braced temporary inside the co_await
//    expression -- `co_await svc.heartbeat(HeartbeatArgs{...})`, or an initializer list
//    such as `{{"t", {0}}}` -- is miscompiled (freed twice / invalid free). Build the
//    argument in a named variable or a helper function, then co_await with it.
#pragma once

#include <boost/asio.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/clock.h"
#include "coordinator/coordinator_options.h"
#include "coordinator/group_coordinator.h"
#include "coordinator/group_types.h"
#include "coordinator/strand_host.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

namespace asio = boost::asio;

class GroupService {
 public:
  // `clock_ms` defaults to the system clock (wall time: commit timestamps are kept across
  // restarts). `meta` must outlive the service.
  GroupService(asio::any_io_executor executor, storage::MetaStore& meta, CoordinatorOptions options,
               GroupCoordinator::Clock clock_ms = {});
  ~GroupService();
  GroupService(const GroupService&) = delete;
  GroupService& operator=(const GroupService&) = delete;

  void start();
  void stop();

  asio::awaitable<JoinGroupResult> join_group(JoinGroupArgs args);
  asio::awaitable<SyncGroupResult> sync_group(SyncGroupArgs args);
  asio::awaitable<GroupError> heartbeat(HeartbeatArgs args);
  asio::awaitable<LeaveGroupResult> leave_group(LeaveGroupArgs args);
  asio::awaitable<ConsumerGroupHeartbeatResult> consumer_group_heartbeat(ConsumerGroupHeartbeatArgs args);
  asio::awaitable<std::vector<DescribedConsumerGroup>> consumer_group_describe(std::vector<std::string> group_ids);
  asio::awaitable<OffsetCommitResult> commit_offsets(OffsetCommitArgs args);
  asio::awaitable<OffsetFetchResult> fetch_offsets(OffsetFetchArgs args);
  asio::awaitable<OffsetDeleteResult> delete_offsets(OffsetDeleteArgs args);
  asio::awaitable<std::vector<DescribedGroup>> describe_groups(std::vector<std::string> group_ids);
  asio::awaitable<ListGroupsResult> list_groups(ListGroupsArgs args);
  asio::awaitable<DeleteGroupsResult> delete_groups(std::vector<std::string> group_ids);

  // A topic was deleted: drops its committed offsets from every group (see
  // GroupCoordinator::remove_topic_offsets). Callable from any thread; `done` runs on the
  // strand once the removal is durable (or failed, which is logged).
  void remove_topic_offsets(std::string topic, std::function<void()> done);
  // See GroupCoordinator::set_topic_exists; call before start(). `exists` runs on the strand.
  void set_topic_exists(std::function<bool(const std::string& topic)> exists) {
    core_.set_topic_exists(std::move(exists));
  }
  // See GroupCoordinator::set_topic_catalog; call before start(). Its functions run on the strand.
  void set_topic_catalog(TopicCatalog catalog) { core_.set_topic_catalog(std::move(catalog)); }
  void set_group_timeouts(GroupTimeoutsFn fn) { core_.set_group_timeouts(std::move(fn)); }
  // For the TransactionService, which runs on the same strand so that it can call the
  // coordinator's transactional-offset hooks directly. coordinator() only on the strand.
  asio::strand<asio::any_io_executor> strand() const { return host_.strand(); }
  GroupCoordinator& coordinator() { return core_; }

 private:
  storage::MetaStore& meta_;
  GroupCoordinator::Clock clock_;
  GroupCoordinator core_;
  StrandHost<GroupCoordinator> host_;  // after core_: destroyed first
};

}  // namespace rokka::coordinator
