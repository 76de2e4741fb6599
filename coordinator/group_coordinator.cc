// GroupCoordinator: the router (see group_coordinator.h). The classic protocol is in
// membership.cc, committed offsets in offset_book.cc.
#include "coordinator/group_coordinator.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <utility>

#include "coordinator/group_migration.h"
#include "coordinator/log.h"

namespace rokka::coordinator {

GroupCoordinator::GroupCoordinator(CoordinatorOptions options, storage::MetaStore& meta, Clock clock_ms, Post post)
    : options_(options),
      clock_(std::move(clock_ms)),
      writer_(meta, std::move(post)),
      offsets_(options_, writer_),
      membership_(options_, clock_, writer_, timers_, groups_),
      consumer_(options_, clock_, writer_, timers_) {
  consumer_.set_downgrade([this](StoredGroup classic, OffsetBook::Mutations batch, bool rebalance, DurableCallback done) {
    membership_.adopt(classic, std::move(batch), rebalance, std::move(done));
  });
}

GroupError GroupCoordinator::check_group_status(const std::string& group_id, bool require_id) const {
  if (require_id && group_id.empty()) return GroupError::kInvalidGroupId;
  if (shut_down_) return GroupError::kCoordinatorNotAvailable;
  if (!loaded_) return GroupError::kCoordinatorLoadInProgress;
  return GroupError::kNone;
}

// ---------------------------------------------------------------------------------------
// Start-up and shutdown

void GroupCoordinator::install(LoadedState state) {
  const auto started = std::chrono::steady_clock::now();
  for (const StoredGroup& stored : state.groups) membership_.restore(stored);
  for (ConsumerGroupSnapshot& stored : state.consumer_groups) {
    if (groups_.find(stored.group_id) != nullptr) {
      log().warn("consumer group record ignored: a classic group has its id: group={}", stored.group_id);
      continue;
    }
    consumer_.restore(std::move(stored));
  }
  std::set<std::string> deleted_topics(topics_deleted_while_loading_.begin(), topics_deleted_while_loading_.end());
  topics_deleted_while_loading_.clear();
  for (auto& [key, offset] : state.offsets) {
    if (topic_exists_ && !deleted_topics.count(key.tp.topic) && !topic_exists_(key.tp.topic))
      deleted_topics.insert(key.tp.topic);
    // A group known only by its offsets has no protocol type: it is a simple group, whose
    // offsets expire by commit time.
    if (groups_.find(key.group_id) == nullptr && !consumer_.contains(key.group_id))
      groups_.create(key.group_id, GroupState::kEmpty, clock_());
    offsets_.restore(key.group_id, std::move(key.tp), std::move(offset));
  }
  loaded_ = true;
  for (const std::string& topic : deleted_topics) {
    remove_topic_offsets(topic, [topic](storage::Status status) {
      if (!status.ok())
        log().warn("offsets of deleted topic not removed: topic={} error={}", topic, status.to_string());
    });
  }
  schedule_offset_expiry();
  for (auto& fn : std::exchange(on_loaded_, {})) fn();
  const auto elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  log().info("coordinator state installed: groups={} consumer_groups={} offsets={} skipped_records={} install_ms={}",
             groups_.size(), consumer_.size(), offsets_.size(), state.skipped_records, elapsed.count());
}

void GroupCoordinator::shutdown() {
  shut_down_ = true;
  membership_.shutdown();
  consumer_.shutdown();
  timers_ = TimerQueue();
  expiry_timer_ = TimerQueue::kNone;
}

void GroupCoordinator::when_loaded(std::function<void()> fn) {
  if (loaded_) return fn();
  on_loaded_.push_back(std::move(fn));
}

// ---------------------------------------------------------------------------------------
// Membership

void GroupCoordinator::join_group(JoinGroupArgs args, JoinCallback done) {
  if (GroupError e = check_group_status(args.group_id, true); e != GroupError::kNone) {
    return done(join_error(args.member_id, e));
  }
  if (const ConsumerGroup* consumer = consumer_.find(args.group_id)) {
    // A consumer group with members hosts the classic member; an empty one becomes classic.
    if (!consumer->members().empty()) return consumer_.classic_join(std::move(args), std::move(done));
    drop_for_kind_change(args.group_id, true);
  }
  membership_.join_group(std::move(args), std::move(done));
}

void GroupCoordinator::sync_group(SyncGroupArgs args, SyncCallback done) {
  if (GroupError e = check_group_status(args.group_id, true); e != GroupError::kNone) {
    // While loading, any rebalance in progress is lost: send the member back to JoinGroup.
    return done(sync_error(e == GroupError::kCoordinatorLoadInProgress ? GroupError::kRebalanceInProgress : e));
  }
  if (consumer_.contains(args.group_id)) return consumer_.classic_sync(std::move(args), std::move(done));
  membership_.sync_group(std::move(args), std::move(done));
}

GroupError GroupCoordinator::heartbeat(const HeartbeatArgs& args) {
  if (GroupError e = check_group_status(args.group_id, true); e != GroupError::kNone) {
    return e == GroupError::kCoordinatorLoadInProgress ? GroupError::kNone : e;
  }
  if (consumer_.contains(args.group_id)) return consumer_.classic_heartbeat(args);
  return membership_.heartbeat(args);
}

LeaveGroupResult GroupCoordinator::leave_group(const LeaveGroupArgs& args) {
  if (GroupError e = check_group_status(args.group_id, true); e != GroupError::kNone) {
    return error_result<LeaveGroupResult>(e);
  }
  if (consumer_.contains(args.group_id)) return consumer_.classic_leave(args);
  return membership_.leave_group(args);
}

// ---------------------------------------------------------------------------------------
// The consumer group protocol

void GroupCoordinator::consumer_group_heartbeat(ConsumerGroupHeartbeatArgs args,
                                                std::function<void(ConsumerGroupHeartbeatResult)> done) {
  if (GroupError e = check_group_status(args.group_id, false); e != GroupError::kNone) {
    ConsumerGroupHeartbeatResult r;
    r.error = e;
    return done(std::move(r));
  }
  if (Group* classic = groups_.find(args.group_id)) {
    if (!classic->is(GroupState::kEmpty)) {
      auto not_found = [&](std::string message) {
        ConsumerGroupHeartbeatResult r;
        r.error = GroupError::kGroupIdNotFound;
        r.message = std::move(message);
        done(std::move(r));
      };
      // KIP-848's online upgrade: a consumer-protocol member joining a classic group of
      // consumers turns it into a consumer group that keeps its members as classic ones.
      if (args.heartbeat.member_epoch != ConsumerHeartbeat::kJoinEpoch || !options_.consumer_migration_upgrade ||
          !classic->is_consumer_group() || classic->size() > static_cast<size_t>(options_.consumer_max_size))
        return not_found("Group " + args.group_id + " is not a consumer group.");
      std::optional<ConsumerGroupSnapshot> converted = consumer_group_from_classic(*classic);
      if (!converted)
        return not_found("Cannot upgrade the classic group " + args.group_id +
                         " to consumer group because the embedded consumer protocol is malformed.");
      log().info("classic group becomes a consumer group: group={} members={} generation={}", args.group_id,
                 classic->size(), classic->generation_id());
      // Parked JoinGroups and SyncGroups rejoin into the consumer group.
      classic->fail_all_parked_requests(GroupError::kRebalanceInProgress);
      OffsetBook::Mutations batch;
      drop_group(*classic, batch);
      consumer_.adopt(std::move(*converted));
      return consumer_.heartbeat(std::move(args), std::move(done), std::move(batch));
    }
    if (args.heartbeat.member_epoch == ConsumerHeartbeat::kJoinEpoch) drop_for_kind_change(args.group_id, false);
  }
  consumer_.heartbeat(std::move(args), std::move(done));
}

DescribedConsumerGroup GroupCoordinator::consumer_group_describe(const std::string& group_id) const {
  if (GroupError e = check_group_status(group_id, false); e != GroupError::kNone) {
    DescribedConsumerGroup d;
    d.group_id = group_id;
    d.error = e;
    return d;
  }
  DescribedConsumerGroup d = consumer_.describe(group_id);
  if (d.error == GroupError::kGroupIdNotFound && groups_.find(group_id) != nullptr)
    d.message = "Group " + group_id + " is not a consumer group.";
  return d;
}

void GroupCoordinator::drop_for_kind_change(const std::string& group_id, bool classic) {
  OffsetBook::Mutations batch;
  if (classic) {
    consumer_.remove(group_id, batch);
  } else if (Group* group = groups_.find(group_id)) {
    drop_group(*group, batch);
  }
  log().info("group changes kind: group={} now={}", group_id, classic ? kClassicGroupType : kConsumerGroupType);
  if (batch.empty()) return;
  writer_.write(std::move(batch), [group_id](storage::Status status) {
    if (!status.ok()) log().warn("old group record not removed: group={} error={}", group_id, status.to_string());
  });
}

bool GroupCoordinator::maybe_remove_empty_consumer_group(const std::string& group_id, OffsetBook::Mutations& out) {
  const ConsumerGroup* group = consumer_.find(group_id);
  if (group == nullptr || !group->members().empty() || offsets_.holds(group_id)) return false;
  consumer_.remove(group_id, out);
  return true;
}

// ---------------------------------------------------------------------------------------
// Offsets

void GroupCoordinator::commit_offsets(OffsetCommitArgs args, std::function<void(OffsetCommitResult)> done) {
  auto fail = [&](GroupError e) { done(OffsetCommitResult{partition_errors(args.topics, e)}); };
  if (GroupError e = check_group_status(args.group_id, false); e != GroupError::kNone) return fail(e);
  if (consumer_.contains(args.group_id)) {
    if (GroupError e = consumer_.accept_offset_commit(args.group_id, args); e != GroupError::kNone) return fail(e);
    return offsets_.commit(args, clock_(), std::move(done));
  }
  Group* group = groups_.find(args.group_id);
  if (group == nullptr) {
    // A group that is not using us for membership may still keep its offsets here;
    // a generation for a group we do not know is stale.
    if (args.generation_id >= 0) return fail(GroupError::kIllegalGeneration);
    log().info("creating simple consumer group by offset commit: group={}", args.group_id);
    group = &groups_.create(args.group_id, GroupState::kEmpty, clock_());
  }
  if (GroupError e = membership_.accept_offset_commit(*group, args); e != GroupError::kNone) return fail(e);
  offsets_.commit(args, clock_(), std::move(done));
}

OffsetFetchResult GroupCoordinator::fetch_offsets(const OffsetFetchArgs& args) const {
  if (GroupError e = check_group_status(args.group_id, false); e != GroupError::kNone) {
    return error_result<OffsetFetchResult>(e);
  }
  if (GroupError e = consumer_.check_offset_fetch(args.group_id, args.member_id, args.member_epoch);
      e != GroupError::kNone) {
    return error_result<OffsetFetchResult>(e);
  }
  return offsets_.fetch(args);
}

void GroupCoordinator::delete_offsets(OffsetDeleteArgs args, std::function<void(OffsetDeleteResult)> done) {
  GroupError e = check_group_status(args.group_id, true);
  if (e == GroupError::kNone && consumer_.contains(args.group_id)) {
    OffsetBook::Mutations batch;
    std::vector<TopicErrors> topics =
        offsets_.remove(args.group_id, args.topics, consumer_.topics_in_use(args.group_id), batch);
    maybe_remove_empty_consumer_group(args.group_id, batch);
    return offsets_.store_removals(std::move(batch), std::move(topics),
                                   [done = std::move(done)](std::vector<TopicErrors> t) {
                                     OffsetDeleteResult result;
                                     result.topics = std::move(t);
                                     done(std::move(result));
                                   });
  }
  Group* group = e == GroupError::kNone ? groups_.find(args.group_id) : nullptr;
  if (e == GroupError::kNone)
    e = group == nullptr ? GroupError::kGroupIdNotFound : Membership::check_offset_delete(*group);
  if (e != GroupError::kNone) return done(error_result<OffsetDeleteResult>(e));
  OffsetBook::Mutations batch;
  std::vector<TopicErrors> topics =
      offsets_.remove(args.group_id, args.topics, Membership::topics_in_use(*group), batch);
  maybe_remove_empty_group(*group, batch);
  offsets_.store_removals(std::move(batch), std::move(topics), [done = std::move(done)](std::vector<TopicErrors> t) {
    OffsetDeleteResult result;
    result.topics = std::move(t);
    done(std::move(result));
  });
}

void GroupCoordinator::remove_topic_offsets(const std::string& topic, DurableCallback done) {
  if (shut_down_) return done(storage::Status());
  if (!loaded_) {
    topics_deleted_while_loading_.push_back(topic);
    return done(storage::Status());
  }
  OffsetBook::Mutations batch;
  size_t removed = 0;
  for (Group* group : groups_.snapshot()) {
    const size_t n = offsets_.remove_topic(group->group_id(), topic, batch);
    if (n != 0) maybe_remove_empty_group(*group, batch);  // may erase the group
    removed += n;
  }
  for (const std::string& group_id : consumer_.group_ids()) {
    const size_t n = offsets_.remove_topic(group_id, topic, batch);
    if (n != 0) maybe_remove_empty_consumer_group(group_id, batch);
    removed += n;
  }
  log().info("offsets of deleted topic removed: topic={} offsets={}", topic, removed);
  if (batch.empty()) return done(storage::Status());
  writer_.write(std::move(batch), std::move(done));
}

// Offset expiry (offsets.retention.minutes), one pass every check interval.
void GroupCoordinator::schedule_offset_expiry() {
  expiry_timer_ = timers_.schedule(clock_() + options_.offsets_retention_check_interval_ms, [this] {
    expiry_timer_ = TimerQueue::kNone;
    expire_offsets();
    schedule_offset_expiry();
  });
}

void GroupCoordinator::expire_offsets() {
  const int64_t now = clock_();
  OffsetBook::Mutations batch;
  size_t expired = 0;
  for (Group* group : groups_.snapshot()) {
    expired += offsets_.expire(group->group_id(), Membership::offset_retention(*group), now, batch);
    maybe_remove_empty_group(*group, batch);  // may erase the group
  }
  for (const std::string& group_id : consumer_.group_ids()) {
    expired += offsets_.expire(group_id, consumer_.offset_retention(group_id), now, batch);
    maybe_remove_empty_consumer_group(group_id, batch);
  }
  if (batch.empty()) return;
  log().info("offsets expired: offsets={} records={}", expired, batch.size());
  writer_.write(std::move(batch), [](storage::Status status) {
    if (!status.ok()) log().warn("offset expiry not stored: error={}", status.to_string());
  });
}

// ---------------------------------------------------------------------------------------
// Transactional offsets

GroupError GroupCoordinator::check_txn_offset_commit(const std::string& group_id, int32_t generation_id,
                                                     const std::string& member_id,
                                                     const std::optional<std::string>& group_instance_id) const {
  if (GroupError e = check_group_status(group_id, false); e != GroupError::kNone) return e;
  if (consumer_.contains(group_id)) {
    if (generation_id < 0 && member_id.empty()) return GroupError::kNone;  // Kafka: without them anyone may commit
    return consumer_.check_commit(group_id, generation_id, member_id, 0, true);
  }
  return membership_.check_txn_offset_commit(groups_.find(group_id), generation_id, member_id, group_instance_id);
}

void GroupCoordinator::commit_txn_offsets(const std::string& group_id,
                                          std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
                                          DurableCallback done) {
  if (groups_.find(group_id) == nullptr && !consumer_.contains(group_id))
    groups_.create(group_id, GroupState::kEmpty, clock_());
  offsets_.commit_txn(group_id, std::move(offsets), std::move(done));
}

// ---------------------------------------------------------------------------------------
// DescribeGroups, ListGroups, DeleteGroups, and groups going

DescribedGroup GroupCoordinator::describe_group(const std::string& group_id) const {
  DescribedGroup d;
  d.group_id = group_id;
  if (GroupError e = check_group_status(group_id, false); e != GroupError::kNone) {
    d.error = e;
    return d;
  }
  const Group* group = find_group(group_id);
  if (group == nullptr) {
    d.state = group_state_name(GroupState::kDead);
    if (consumer_.contains(group_id)) d.group_type = std::string(kConsumerGroupType);
    return d;
  }
  return Membership::describe(*group);
}

ListGroupsResult GroupCoordinator::list_groups(const ListGroupsArgs& args) const {
  ListGroupsResult result;
  if (shut_down_) {
    result.error = GroupError::kCoordinatorNotAvailable;
    return result;
  }
  if (!loaded_) result.error = GroupError::kCoordinatorLoadInProgress;
  std::vector<GroupState> wanted;
  for (const std::string& name : args.states_filter) {
    if (auto state = parse_group_state(name)) wanted.push_back(*state);
  }
  const bool filtered = !args.states_filter.empty();
  // Types, like states, match case-insensitively; unknown ones match no group.
  auto same = [](std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
  };
  auto type_wanted = [&](std::string_view type) {
    return args.types_filter.empty() || std::any_of(args.types_filter.begin(), args.types_filter.end(),
                                                    [&](const std::string& t) { return same(t, type); });
  };
  if (type_wanted(kClassicGroupType)) {
    groups_.for_each([&](const Group& group) {
      if (filtered && std::find(wanted.begin(), wanted.end(), group.state()) == wanted.end()) return;
      result.groups.push_back(
          {group.group_id(), group.protocol_type().value_or(""), std::string(group_state_name(group.state()))});
    });
  }
  if (type_wanted(kConsumerGroupType)) {
    consumer_.for_each([&](const ConsumerGroup& group) {
      const std::string_view state = ConsumerMembership::state_name(group.state());
      if (filtered && std::none_of(args.states_filter.begin(), args.states_filter.end(),
                                   [&](const std::string& s) { return same(s, state); }))
        return;
      result.groups.push_back({group.group_id(), std::string(kConsumerGroupType), std::string(state),
                               std::string(kConsumerGroupType)});
    });
  }
  std::sort(result.groups.begin(), result.groups.end(),
            [](const ListedGroup& a, const ListedGroup& b) { return a.group_id < b.group_id; });
  return result;
}

void GroupCoordinator::delete_groups(std::vector<std::string> group_ids,
                                     std::function<void(DeleteGroupsResult)> done) {
  DeleteGroupsResult result;
  OffsetBook::Mutations batch;
  for (const std::string& group_id : group_ids) {
    DeletedGroup& r = result.groups.emplace_back();
    r.group_id = group_id;
    r.error = check_group_status(group_id, false);
    if (r.error != GroupError::kNone) continue;
    if (const ConsumerGroup* consumer = consumer_.find(group_id)) {
      if (!consumer->members().empty()) {
        r.error = GroupError::kNonEmptyGroup;
        continue;
      }
      const size_t removed = offsets_.remove_group(group_id, batch);
      consumer_.remove(group_id, batch);
      log().info("consumer group deleted: group={} offsets_removed={}", group_id, removed);
      continue;
    }
    Group* group = groups_.find(group_id);
    if (group == nullptr || group->is(GroupState::kDead)) {
      r.error = GroupError::kGroupIdNotFound;
    } else if (!group->is(GroupState::kEmpty)) {
      r.error = GroupError::kNonEmptyGroup;
    } else {
      const size_t removed = offsets_.remove_group(group_id, batch);
      drop_group(*group, batch);
      log().info("group deleted: group={} offsets_removed={}", group_id, removed);
    }
  }
  if (batch.empty()) return done(std::move(result));
  writer_.write(std::move(batch), [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
    if (!status.ok()) {
      log().warn("group deletion not stored: error={}", status.to_string());
      for (DeletedGroup& r : result.groups) {
        if (r.error == GroupError::kNone) r.error = GroupError::kStorageError;
      }
    }
    done(std::move(result));
  });
}

bool GroupCoordinator::maybe_remove_empty_group(Group& group, OffsetBook::Mutations& out) {
  if (!group.is(GroupState::kEmpty) || offsets_.holds(group.group_id())) return false;
  drop_group(group, out);
  return true;
}

void GroupCoordinator::drop_group(Group& group, OffsetBook::Mutations& out) {
  const std::string group_id = group.group_id();
  membership_.remove(group, out);
  groups_.erase(group_id);
}

}  // namespace rokka::coordinator
