// GroupCoordinator, part 2: start-up, group persistence, committed offsets (OffsetBook),
// offset expiry, the administrative APIs and the transactional-offset hooks. Membership:
// group_coordinator.cc.
#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "coordinator/group_coordinator.h"
#include "coordinator/log.h"
#include "coordinator/meta_records.h"

namespace rokka::coordinator {

// ---------------------------------------------------------------------------------------
// Start-up and shutdown

void GroupCoordinator::install(LoadedState state) {
  const auto started = std::chrono::steady_clock::now();
  for (const StoredGroup& stored : state.groups) restore_group(stored);
  std::set<std::string> deleted_topics(topics_deleted_while_loading_.begin(), topics_deleted_while_loading_.end());
  topics_deleted_while_loading_.clear();
  for (auto& [key, offset] : state.offsets) {
    if (topic_exists_ && !deleted_topics.count(key.tp.topic) && !topic_exists_(key.tp.topic))
      deleted_topics.insert(key.tp.topic);
    if (groups_.find(key.group_id) == nullptr) create_group(key.group_id, GroupState::kEmpty);
    offsets_.restore(key.group_id, std::move(key.tp), std::move(offset));
  }
  // A group known only by its offsets has no protocol type: it is a simple group, whose
  // offsets expire by commit time.
  loaded_ = true;
  for (const std::string& topic : deleted_topics) {
    remove_topic_offsets(topic, [topic](storage::Status status) {
      if (!status.ok()) log().warn("offsets of deleted topic not removed: topic={} error={}", topic, status.to_string());
    });
  }
  schedule_offset_expiry();
  for (auto& fn : std::exchange(on_loaded_, {})) fn();
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  log().info("coordinator state installed: groups={} offsets={} skipped_records={} install_ms={}", groups_.size(),
             offsets_.size(), state.skipped_records, elapsed.count());
}

void GroupCoordinator::restore_group(const StoredGroup& stored) {
  Group& group = create_group(stored.group_id, stored.stable ? GroupState::kStable : GroupState::kEmpty);
  for (const StoredMember& sm : stored.members) {
    Member m(sm.member_id, sm.group_instance_id, {Protocol{stored.protocol_name.value_or(""), sm.subscription}});
    m.client_id = sm.client_id;
    m.client_host = sm.client_host;
    m.rebalance_timeout_ms = sm.rebalance_timeout_ms;
    m.session_timeout_ms = sm.session_timeout_ms;
    m.protocol_type = stored.protocol_type.value_or("");
    m.assignment = sm.assignment;
    group.restore(std::move(m));
  }
  group.restore_generation(stored.generation_id, stored.protocol_type, stored.protocol_name, stored.leader_id,
                           stored.state_timestamp_ms);
  // Members get one session to show up again.
  group.for_each_member([&](Member& m) { arm_member_timer(group, m, m.session_timeout_ms); });
  if (group.size() > static_cast<size_t>(options_.max_group_size)) {
    prepare_rebalance(group, "restored group is over group.max.size");
  }
}

void GroupCoordinator::shutdown() {
  shut_down_ = true;
  groups_.for_each([](Group& group) { group.fail_all_parked_requests(GroupError::kCoordinatorNotAvailable); });
  timers_ = TimerQueue();
  rebalances_.clear();
  expiry_timer_ = TimerQueue::kNone;
}

// ---------------------------------------------------------------------------------------
// Group persistence

void GroupCoordinator::store_group(const Group& group, const std::map<std::string, std::string>* assignments,
                                   DurableCallback done) {
  StoredGroup stored;
  stored.group_id = group.group_id();
  // Written on the way into Stable (assignments given) or Empty; a Stable group rewritten
  // for a static member keeps its state.
  stored.stable = !group.empty();
  stored.generation_id = group.generation_id();
  stored.protocol_type = group.protocol_type();
  stored.protocol_name = group.protocol_name();
  stored.leader_id = group.leader_id();
  stored.state_timestamp_ms = clock_();
  for (const auto& [id, m] : group.members()) {
    StoredMember& sm = stored.members.emplace_back();
    sm.member_id = id;
    sm.group_instance_id = m.group_instance_id();
    sm.client_id = m.client_id;
    sm.client_host = m.client_host;
    sm.rebalance_timeout_ms = m.rebalance_timeout_ms;
    sm.session_timeout_ms = m.session_timeout_ms;
    const std::string* subscription = group.protocol_name() ? m.metadata_for(*group.protocol_name()) : nullptr;
    sm.subscription = subscription ? *subscription : std::string();
    if (assignments != nullptr) {
      auto it = assignments->find(id);
      sm.assignment = it == assignments->end() ? std::string() : it->second;
    } else {
      sm.assignment = m.assignment;
    }
  }
  OffsetBook::Mutations batch;
  batch.push_back({encode_group_key(group.group_id()), encode_group_value(stored), false});
  writer_.write(std::move(batch), std::move(done));
}

void GroupCoordinator::erase_group(const std::string& group_id) {
  const Group* found = groups_.find(group_id);
  if (found == nullptr) return;
  const Group& group = *found;
  if (auto r = rebalances_.find(group_id); r != rebalances_.end()) {
    timers_.cancel(r->second.join_timer);
    timers_.cancel(r->second.sync_timer);
    rebalances_.erase(r);
  }
  for (const auto& [id, m] : group.members()) {
    TimerQueue::Id timer = m.session_timer;
    timers_.cancel(timer);
  }
  for (const auto& [id, expiry] : group.pending_members()) {
    TimerQueue::Id timer = expiry;
    timers_.cancel(timer);
  }
  groups_.erase(group_id);
}

bool GroupCoordinator::maybe_remove_empty_group(Group& group, OffsetBook::Mutations& out) {
  const std::string group_id = group.group_id();
  if (!group.is(GroupState::kEmpty) || offsets_.holds(group_id)) return false;
  group.transition_to(GroupState::kDead, clock_());
  out.push_back({encode_group_key(group_id), std::string(), true});
  erase_group(group_id);
  return true;
}

// ---------------------------------------------------------------------------------------
// OffsetCommit

GroupError GroupCoordinator::validate_offset_commit(const Group& group, const OffsetCommitArgs& args) const {
  if (group.is(GroupState::kDead)) return GroupError::kCoordinatorNotAvailable;
  // Generation -1 on an empty group: an admin client or an assign()-only consumer.
  if (args.generation_id < 0 && group.is(GroupState::kEmpty)) return GroupError::kNone;
  if (args.generation_id >= 0 || !args.member_id.empty() || args.group_instance_id) {
    if (GroupError e = validate_member(group, args.member_id, args.group_instance_id); e != GroupError::kNone) return e;
    return args.generation_id == group.generation_id() ? GroupError::kNone : GroupError::kIllegalGeneration;
  }
  // Once the group has members, only they may commit.
  return group.is(GroupState::kEmpty) ? GroupError::kNone : GroupError::kUnknownMemberId;
}

void GroupCoordinator::commit_offsets(OffsetCommitArgs args, std::function<void(OffsetCommitResult)> done) {
  auto fail = [&](GroupError e) { done(OffsetCommitResult{partition_errors(args.topics, e)}); };
  if (GroupError e = check_group_status(args.group_id, false); e != GroupError::kNone) return fail(e);
  Group* group = groups_.find(args.group_id);
  if (group == nullptr) {
    // A group that is not using us for membership may still keep its offsets here;
    // a generation for a group we do not know is stale.
    if (args.generation_id >= 0) return fail(GroupError::kIllegalGeneration);
    log().info("creating simple consumer group by offset commit: group={}", args.group_id);
    group = &create_group(args.group_id, GroupState::kEmpty);
  }
  if (GroupError e = validate_offset_commit(*group, args); e != GroupError::kNone) return fail(e);
  switch (group->state()) {
    case GroupState::kCompletingRebalance:
      // It has the new generation but no assignment yet: let it sync first.
      return fail(GroupError::kRebalanceInProgress);
    case GroupState::kStable:
    case GroupState::kPreparingRebalance:
      // Allowed while preparing: its heartbeat will tell it to rejoin.
      if (Member* m = group->find(args.member_id)) touch_member(*group, *m);
      break;
    case GroupState::kEmpty:
    case GroupState::kDead:
      break;
  }
  offsets_.commit(args, clock_(), std::move(done));
}

// ---------------------------------------------------------------------------------------
// OffsetFetch

OffsetFetchResult GroupCoordinator::fetch_offsets(const OffsetFetchArgs& args) const {
  if (GroupError e = check_group_status(args.group_id, false); e != GroupError::kNone) {
    OffsetFetchResult result;
    result.error = e;
    return result;
  }
  return offsets_.fetch(args);
}

// ---------------------------------------------------------------------------------------
// OffsetDelete

void GroupCoordinator::delete_offsets(OffsetDeleteArgs args, std::function<void(OffsetDeleteResult)> done) {
  GroupError e = check_group_status(args.group_id, true);
  Group* group = e == GroupError::kNone ? groups_.find(args.group_id) : nullptr;
  if (e == GroupError::kNone && (group == nullptr || group->is(GroupState::kDead))) e = GroupError::kGroupIdNotFound;
  if (e == GroupError::kNone && !group->is(GroupState::kEmpty) && !group->is_consumer_group()) {
    e = GroupError::kNonEmptyGroup;
  }
  if (e != GroupError::kNone) {
    OffsetDeleteResult result;
    result.error = e;
    return done(std::move(result));
  }
  // A live consumer group keeps the offsets of topics it still subscribes to.
  const bool live = !group->is(GroupState::kEmpty);
  OffsetBook::Mutations batch;
  std::vector<TopicErrors> topics = offsets_.remove(
      args.group_id, args.topics, [&](const std::string& topic) { return live && group->is_subscribed_to(topic); },
      batch);
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
  log().info("offsets of deleted topic removed: topic={} offsets={}", topic, removed);
  if (batch.empty()) return done(storage::Status());
  writer_.write(std::move(batch), std::move(done));
}

// ---------------------------------------------------------------------------------------
// DescribeGroups, ListGroups, DeleteGroups

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
    return d;
  }
  d.state = group_state_name(group->state());
  d.protocol_type = group->protocol_type().value_or("");
  const bool stable = group->is(GroupState::kStable);
  if (stable) d.protocol_data = group->protocol_name().value_or("");
  for (const auto& [id, m] : group->members()) {
    DescribedMember& dm = d.members.emplace_back();
    dm.member_id = id;
    dm.group_instance_id = m.group_instance_id();
    dm.client_id = m.client_id;
    dm.client_host = m.client_host;
    if (stable) {
      const std::string* metadata = m.metadata_for(d.protocol_data);
      dm.metadata = metadata ? *metadata : std::string();
      dm.assignment = m.assignment;
    }
  }
  return d;
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
  groups_.for_each([&](const Group& group) {
    if (filtered && std::find(wanted.begin(), wanted.end(), group.state()) == wanted.end()) return;
    result.groups.push_back(
        {group.group_id(), group.protocol_type().value_or(""), std::string(group_state_name(group.state()))});
  });
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
    Group* group = groups_.find(group_id);
    if (group == nullptr || group->is(GroupState::kDead)) {
      r.error = GroupError::kGroupIdNotFound;
    } else if (!group->is(GroupState::kEmpty)) {
      r.error = GroupError::kNonEmptyGroup;
    } else {
      group->transition_to(GroupState::kDead, clock_());
      const size_t removed = offsets_.remove_group(group_id, batch);
      batch.push_back({encode_group_key(group_id), std::string(), true});
      erase_group(group_id);
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

// ---------------------------------------------------------------------------------------
// Offset expiry (offsets.retention.minutes), one pass every check interval

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
    expired += offsets_.expire(group->group_id(), offset_retention(*group), now, batch);
    maybe_remove_empty_group(*group, batch);  // may erase the group
  }
  if (batch.empty()) return;
  log().info("offsets expired: offsets={} records={}", expired, batch.size());
  writer_.write(std::move(batch), [](storage::Status status) {
    if (!status.ok()) log().warn("offset expiry not stored: error={}", status.to_string());
  });
}

OffsetRetention GroupCoordinator::offset_retention(const Group& group) {
  // Kafka's rules:
  //  - a group that had members and is now Empty: since it became empty (or, if that
  //    is unknown, since the commit);
  //  - a simple group (never had members): since the commit;
  //  - a Stable consumer group: since the commit, for topics it no longer subscribes to;
  //  - any other group keeps its offsets.
  OffsetRetention r;
  if (group.is(GroupState::kEmpty)) {
    const bool known = group.protocol_type() && group.state_timestamp_ms() >= 0;
    r.since = known ? OffsetRetention::Since::kEmpty : OffsetRetention::Since::kCommit;
    r.empty_since_ms = group.state_timestamp_ms();
  } else if (group.is_consumer_group() && group.subscribed_topics() && group.is(GroupState::kStable)) {
    r.since = OffsetRetention::Since::kCommit;
    r.in_use = [&group](const std::string& topic) { return group.is_subscribed_to(topic); };
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Transactional offsets (the TransactionCoordinator's hooks)

GroupError GroupCoordinator::check_txn_offset_commit(const std::string& group_id, int32_t generation_id,
                                                     const std::string& member_id,
                                                     const std::optional<std::string>& group_instance_id) const {
  if (GroupError e = check_group_status(group_id, false); e != GroupError::kNone) return e;
  const bool identified = generation_id >= 0 || !member_id.empty() || group_instance_id;
  const Group* group = find_group(group_id);
  if (group == nullptr) return identified ? GroupError::kUnknownMemberId : GroupError::kNone;
  if (group->is(GroupState::kDead)) return GroupError::kCoordinatorNotAvailable;
  // Unlike OffsetCommit, a non-empty group accepts anonymous transactional commits: the
  // protocol carried no member id before TxnOffsetCommit v3.
  if (!identified) return GroupError::kNone;
  if (GroupError e = validate_member(*group, member_id, group_instance_id); e != GroupError::kNone) return e;
  return generation_id == group->generation_id() ? GroupError::kNone : GroupError::kIllegalGeneration;
}

void GroupCoordinator::commit_txn_offsets(const std::string& group_id,
                                          std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
                                          DurableCallback done) {
  if (groups_.find(group_id) == nullptr) create_group(group_id, GroupState::kEmpty);
  offsets_.commit_txn(group_id, std::move(offsets), std::move(done));
}

void GroupCoordinator::when_loaded(std::function<void()> fn) {
  if (loaded_) return fn();
  on_loaded_.push_back(std::move(fn));
}

}  // namespace rokka::coordinator
