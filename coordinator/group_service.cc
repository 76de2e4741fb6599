#include "coordinator/group_service.h"

#include <chrono>

#include "coordinator/log.h"
#include "coordinator/state_loader.h"

namespace rokka::coordinator {

GroupService::GroupService(asio::any_io_executor executor, storage::MetaStore& meta, CoordinatorOptions options,
                           GroupCoordinator::Clock clock_ms)
    : meta_(meta),
      clock_(clock_ms ? std::move(clock_ms) : GroupCoordinator::Clock(system_clock_ms)),
      core_(options, meta, clock_, [this](std::function<void()> fn) { host_.post(std::move(fn)); }),
      host_(asio::make_strand(executor), clock_, core_) {}

GroupService::~GroupService() = default;

void GroupService::start() {
  host_.start([this] {
    const auto started = std::chrono::steady_clock::now();
    LoadedState state = load_coordinator_state(meta_);
    const auto read_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    log().info("coordinator state read: groups={} consumer_groups={} offsets={} read_ms={}", state.groups.size(),
               state.consumer_groups.size(), state.offsets.size(), read_ms);
    return state;
  });
}

void GroupService::stop() { host_.stop(); }

asio::awaitable<JoinGroupResult> GroupService::join_group(JoinGroupArgs args) {
  return host_.run<JoinGroupResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(JoinGroupResult)> done) mutable {
        c.join_group(std::move(args), std::move(done));
      });
}

asio::awaitable<SyncGroupResult> GroupService::sync_group(SyncGroupArgs args) {
  return host_.run<SyncGroupResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(SyncGroupResult)> done) mutable {
        c.sync_group(std::move(args), std::move(done));
      });
}

asio::awaitable<GroupError> GroupService::heartbeat(HeartbeatArgs args) {
  return host_.run<GroupError>([args = std::move(args)](GroupCoordinator& c, std::function<void(GroupError)> done) {
    done(c.heartbeat(args));
  });
}

asio::awaitable<LeaveGroupResult> GroupService::leave_group(LeaveGroupArgs args) {
  return host_.run<LeaveGroupResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(LeaveGroupResult)> done) {
        done(c.leave_group(args));
      });
}

asio::awaitable<ConsumerGroupHeartbeatResult> GroupService::consumer_group_heartbeat(ConsumerGroupHeartbeatArgs args) {
  return host_.run<ConsumerGroupHeartbeatResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(ConsumerGroupHeartbeatResult)> done) mutable {
        c.consumer_group_heartbeat(std::move(args), std::move(done));
      });
}

asio::awaitable<std::vector<DescribedConsumerGroup>> GroupService::consumer_group_describe(
    std::vector<std::string> group_ids) {
  return host_.run<std::vector<DescribedConsumerGroup>>(
      [ids = std::move(group_ids)](GroupCoordinator& c, std::function<void(std::vector<DescribedConsumerGroup>)> done) {
        std::vector<DescribedConsumerGroup> out;
        out.reserve(ids.size());
        for (const std::string& id : ids) out.push_back(c.consumer_group_describe(id));
        done(std::move(out));
      });
}

asio::awaitable<OffsetCommitResult> GroupService::commit_offsets(OffsetCommitArgs args) {
  return host_.run<OffsetCommitResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(OffsetCommitResult)> done) mutable {
        c.commit_offsets(std::move(args), std::move(done));
      });
}

asio::awaitable<OffsetFetchResult> GroupService::fetch_offsets(OffsetFetchArgs args) {
  return host_.run<OffsetFetchResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(OffsetFetchResult)> done) {
        done(c.fetch_offsets(args));
      });
}

asio::awaitable<OffsetDeleteResult> GroupService::delete_offsets(OffsetDeleteArgs args) {
  return host_.run<OffsetDeleteResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(OffsetDeleteResult)> done) mutable {
        c.delete_offsets(std::move(args), std::move(done));
      });
}

asio::awaitable<std::vector<DescribedGroup>> GroupService::describe_groups(std::vector<std::string> group_ids) {
  return host_.run<std::vector<DescribedGroup>>(
      [ids = std::move(group_ids)](GroupCoordinator& c, std::function<void(std::vector<DescribedGroup>)> done) {
        std::vector<DescribedGroup> out;
        out.reserve(ids.size());
        for (const std::string& id : ids) out.push_back(c.describe_group(id));
        done(std::move(out));
      });
}

asio::awaitable<ListGroupsResult> GroupService::list_groups(ListGroupsArgs args) {
  return host_.run<ListGroupsResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(ListGroupsResult)> done) {
        done(c.list_groups(args));
      });
}

asio::awaitable<DeleteGroupsResult> GroupService::delete_groups(std::vector<std::string> group_ids) {
  return host_.run<DeleteGroupsResult>(
      [ids = std::move(group_ids)](GroupCoordinator& c, std::function<void(DeleteGroupsResult)> done) mutable {
        c.delete_groups(std::move(ids), std::move(done));
      });
}

void GroupService::remove_topic_offsets(std::string topic, std::function<void()> done) {
  host_.post([this, topic = std::move(topic), done = std::move(done)] {
    if (host_.stopped()) return done();
    core_.remove_topic_offsets(topic, [topic, done](storage::Status status) {
      if (!status.ok())
        log().warn("offsets of deleted topic not removed: topic={} error={}", topic, status.to_string());
      done();
    });
  });
}

}  // namespace rokka::coordinator
