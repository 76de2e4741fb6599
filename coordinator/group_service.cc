#include "coordinator/group_service.h"

#include <algorithm>
#include <chrono>

#include "coordinator/log.h"
#include "coordinator/state_loader.h"

namespace rokka::coordinator {

namespace {

int64_t system_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

GroupService::GroupService(asio::any_io_executor executor, storage::MetaStore& meta, CoordinatorOptions options,
                           GroupCoordinator::Clock clock_ms)
    : strand_(asio::make_strand(executor)),
      meta_(meta),
      clock_(clock_ms ? std::move(clock_ms) : GroupCoordinator::Clock(system_clock_ms)),
      core_(options, meta, clock_, [this](std::function<void()> fn) { post_to_strand(std::move(fn)); }),
      timer_(strand_) {}

GroupService::~GroupService() {
  if (loader_.joinable()) loader_.join();
}

void GroupService::start() {
  loading_.emplace(strand_.get_inner_executor());
  loader_ = std::thread([this] {
    const auto started = std::chrono::steady_clock::now();
    LoadedState state = load_coordinator_state(meta_);
    const auto read_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    log().info("coordinator state read: groups={} offsets={} read_ms={}", state.groups.size(), state.offsets.size(),
               read_ms);
    asio::post(strand_, [this, state = std::move(state)]() mutable {
      if (!stopped_) core_.install(std::move(state));
      loading_.reset();
      rearm();
    });
  });
}

void GroupService::stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    core_.shutdown();
    timer_.cancel();
    armed_deadline_.reset();
  });
  if (loader_.joinable() && loader_.get_id() != std::this_thread::get_id()) loader_.join();
}

void GroupService::post_to_strand(std::function<void()> fn) {
  asio::post(strand_, [this, fn = std::move(fn)] {
    fn();
    rearm();
  });
}

void GroupService::rearm() {
  if (stopped_) return;
  core_.run_due_timers();
  const std::optional<int64_t> next = core_.next_deadline();
  // Re-aim only for an earlier deadline. A heartbeat moves the earliest deadline later
  // all the time; the armed timer then fires early once, finds nothing due and re-aims.
  if (!next || (armed_deadline_ && *armed_deadline_ <= *next)) return;
  armed_deadline_ = next;
  timer_.expires_after(std::chrono::milliseconds(std::max<int64_t>(0, *next - clock_())));
  timer_.async_wait(asio::bind_executor(strand_, [this, deadline = *next](const boost::system::error_code& ec) {
    if (ec || armed_deadline_ != deadline) return;  // cancelled, or re-aimed earlier since
    armed_deadline_.reset();
    rearm();
  }));
}

asio::awaitable<JoinGroupResult> GroupService::join_group(JoinGroupArgs args) {
  return run<JoinGroupResult>([args = std::move(args)](GroupCoordinator& c, std::function<void(JoinGroupResult)> done) mutable {
    c.join_group(std::move(args), std::move(done));
  });
}

asio::awaitable<SyncGroupResult> GroupService::sync_group(SyncGroupArgs args) {
  return run<SyncGroupResult>([args = std::move(args)](GroupCoordinator& c, std::function<void(SyncGroupResult)> done) mutable {
    c.sync_group(std::move(args), std::move(done));
  });
}

asio::awaitable<GroupError> GroupService::heartbeat(HeartbeatArgs args) {
  return run<GroupError>([args = std::move(args)](GroupCoordinator& c, std::function<void(GroupError)> done) {
    done(c.heartbeat(args));
  });
}

asio::awaitable<LeaveGroupResult> GroupService::leave_group(LeaveGroupArgs args) {
  return run<LeaveGroupResult>([args = std::move(args)](GroupCoordinator& c, std::function<void(LeaveGroupResult)> done) {
    done(c.leave_group(args));
  });
}

asio::awaitable<OffsetCommitResult> GroupService::commit_offsets(OffsetCommitArgs args) {
  return run<OffsetCommitResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(OffsetCommitResult)> done) mutable {
        c.commit_offsets(std::move(args), std::move(done));
      });
}

asio::awaitable<OffsetFetchResult> GroupService::fetch_offsets(OffsetFetchArgs args) {
  return run<OffsetFetchResult>([args = std::move(args)](GroupCoordinator& c, std::function<void(OffsetFetchResult)> done) {
    done(c.fetch_offsets(args));
  });
}

asio::awaitable<OffsetDeleteResult> GroupService::delete_offsets(OffsetDeleteArgs args) {
  return run<OffsetDeleteResult>(
      [args = std::move(args)](GroupCoordinator& c, std::function<void(OffsetDeleteResult)> done) mutable {
        c.delete_offsets(std::move(args), std::move(done));
      });
}

asio::awaitable<std::vector<DescribedGroup>> GroupService::describe_groups(std::vector<std::string> group_ids) {
  return run<std::vector<DescribedGroup>>(
      [ids = std::move(group_ids)](GroupCoordinator& c, std::function<void(std::vector<DescribedGroup>)> done) {
        std::vector<DescribedGroup> out;
        out.reserve(ids.size());
        for (const std::string& id : ids) out.push_back(c.describe_group(id));
        done(std::move(out));
      });
}

asio::awaitable<ListGroupsResult> GroupService::list_groups(ListGroupsArgs args) {
  return run<ListGroupsResult>([args = std::move(args)](GroupCoordinator& c, std::function<void(ListGroupsResult)> done) {
    done(c.list_groups(args));
  });
}

asio::awaitable<DeleteGroupsResult> GroupService::delete_groups(std::vector<std::string> group_ids) {
  return run<DeleteGroupsResult>(
      [ids = std::move(group_ids)](GroupCoordinator& c, std::function<void(DeleteGroupsResult)> done) mutable {
        c.delete_groups(std::move(ids), std::move(done));
      });
}

void GroupService::remove_topic_offsets(std::string topic, std::function<void()> done) {
  post_to_strand([this, topic = std::move(topic), done = std::move(done)] {
    if (stopped_) return done();
    core_.remove_topic_offsets(topic, [topic, done](storage::Status status) {
      if (!status.ok()) log().warn("offsets of deleted topic not removed: topic={} error={}", topic, status.to_string());
      done();
    });
  });
}

}  // namespace rokka::coordinator
