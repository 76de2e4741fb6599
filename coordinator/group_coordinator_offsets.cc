// GroupCoordinator, part 2: start-up, group persistence, committed offsets, offset
// expiry and the administrative APIs. Membership: group_coordinator.cc.
#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "coordinator/group_coordinator.h"
#include "coordinator/log.h"
#include "coordinator/meta_records.h"

namespace rokka::coordinator {

namespace {

// One result per requested partition, all carrying `error`.
template <typename Topics>
std::vector<TopicErrors> all_partitions(const Topics& topics, GroupError error) {
  std::vector<TopicErrors> out;
  out.reserve(topics.size());
  for (const auto& t : topics) {
    TopicErrors& te = out.emplace_back();
    te.topic = t.topic;
    for (const auto& p : t.partitions) {
      if constexpr (std::is_same_v<std::decay_t<decltype(p)>, int32_t>) {
        te.partitions.push_back({p, error});
      } else {
        te.partitions.push_back({p.partition, error});
      }
    }
  }
  return out;
}

// A write failed: every partition that had no error of its own gets `error`.
void fail_written(std::vector<TopicErrors>& topics, GroupError error) {
  for (TopicErrors& t : topics) {
    for (PartitionError& p : t.partitions) {
      if (p.error == GroupError::kNone) p.error = error;
    }
  }
}

PartitionOffset to_partition_offset(int32_t partition, const CommittedOffset* committed) {
  PartitionOffset p;
  p.partition = partition;
  if (committed != nullptr) {
    p.offset = committed->offset;
    p.leader_epoch = committed->leader_epoch;
    p.metadata = committed->metadata;
  }
  return p;
}

}  // namespace

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
  OffsetStore::Mutations batch;
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

bool GroupCoordinator::maybe_remove_empty_group(Group& group, OffsetStore::Mutations& out) {
  const std::string group_id = group.group_id();
  if (!group.is(GroupState::kEmpty) || offsets_.has_offsets(group_id) || offsets_.has_pending(group_id)) {
    return false;
  }
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
  auto fail = [&](GroupError e) { done(OffsetCommitResult{all_partitions(args.topics, e)}); };
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
  store_offsets(args.group_id, args, std::move(done));
}

void GroupCoordinator::store_offsets(const std::string& group_id, const OffsetCommitArgs& args,
                                     std::function<void(OffsetCommitResult)> done) {
  const int64_t now = clock_();
  OffsetCommitResult result{all_partitions(args.topics, GroupError::kNone)};
  std::vector<std::pair<TopicPartition, CommittedOffset>> batch;
  for (size_t t = 0; t < args.topics.size(); ++t) {
    for (size_t p = 0; p < args.topics[t].partitions.size(); ++p) {
      const PartitionCommit& pc = args.topics[t].partitions[p];
      const std::string metadata = pc.metadata.value_or("");
      if (metadata.size() > static_cast<size_t>(options_.offset_metadata_max_bytes)) {
        result.topics[t].partitions[p].error = GroupError::kOffsetMetadataTooLarge;
        continue;
      }
      CommittedOffset c{pc.offset, pc.leader_epoch, metadata, now,
                        args.retention_time_ms >= 0 ? now + args.retention_time_ms : -1};
      batch.emplace_back(TopicPartition{args.topics[t].topic, pc.partition}, std::move(c));
    }
  }
  if (batch.empty()) return done(std::move(result));
  offsets_.commit(group_id, std::move(batch),
                  [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
                    if (!status.ok()) {
                      log().warn("offset commit not stored: error={}", status.to_string());
                      fail_written(result.topics, GroupError::kStorageError);
                    }
                    done(std::move(result));
                  });
}

// ---------------------------------------------------------------------------------------
// OffsetFetch

OffsetFetchResult GroupCoordinator::fetch_offsets(const OffsetFetchArgs& args) const {
  OffsetFetchResult result;
  if (GroupError e = check_group_status(args.group_id, false); e != GroupError::kNone) {
    result.error = e;
    return result;
  }
  if (!args.topics) {
    // Every committed offset, sorted for a stable answer.
    if (const OffsetStore::Offsets* all = offsets_.offsets(args.group_id)) {
      std::map<std::string, std::map<int32_t, const CommittedOffset*>> sorted;
      for (const auto& [tp, offset] : *all) sorted[tp.topic][tp.partition] = &offset;
      for (const auto& [topic, partitions] : sorted) {
        TopicOffsets& t = result.topics.emplace_back();
        t.topic = topic;
        for (const auto& [partition, offset] : partitions) t.partitions.push_back(to_partition_offset(partition, offset));
      }
    }
    return result;
  }
  for (const TopicPartitions& requested : *args.topics) {
    TopicOffsets& t = result.topics.emplace_back();
    t.topic = requested.topic;
    for (int32_t partition : requested.partitions) {
      const TopicPartition tp{requested.topic, partition};
      if (args.require_stable && (offsets_.has_pending(args.group_id, tp) || has_txn_staged(args.group_id, tp))) {
        PartitionOffset& p = t.partitions.emplace_back();
        p.partition = partition;
        p.error = GroupError::kUnstableOffsetCommit;
        continue;
      }
      t.partitions.push_back(to_partition_offset(partition, offsets_.find(args.group_id, tp)));
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// OffsetDelete

void GroupCoordinator::delete_offsets(OffsetDeleteArgs args, std::function<void(OffsetDeleteResult)> done) {
  OffsetDeleteResult result;
  GroupError e = check_group_status(args.group_id, true);
  Group* group = e == GroupError::kNone ? groups_.find(args.group_id) : nullptr;
  if (e == GroupError::kNone && (group == nullptr || group->is(GroupState::kDead))) e = GroupError::kGroupIdNotFound;
  if (e == GroupError::kNone && !group->is(GroupState::kEmpty) && !group->is_consumer_group()) {
    e = GroupError::kNonEmptyGroup;
  }
  if (e != GroupError::kNone) {
    result.error = e;
    return done(std::move(result));
  }
  // A live consumer group keeps the offsets of topics it still subscribes to.
  result.topics = all_partitions(args.topics, GroupError::kNone);
  const bool live = !group->is(GroupState::kEmpty);
  std::vector<TopicPartition> doomed;
  for (TopicErrors& t : result.topics) {
    for (PartitionError& p : t.partitions) {
      if (live && group->is_subscribed_to(t.topic)) {
        p.error = GroupError::kGroupSubscribedToTopic;
      } else {
        doomed.push_back({t.topic, p.partition});
      }
    }
  }
  OffsetStore::Mutations batch;
  const size_t removed = offsets_.remove(args.group_id, doomed, batch);
  log().info("offsets deleted: group={} partitions={} removed={}", args.group_id, doomed.size(), removed);
  maybe_remove_empty_group(*group, batch);
  if (batch.empty()) return done(std::move(result));
  writer_.write(std::move(batch), [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
    if (!status.ok()) {
      log().warn("offset deletion not stored: error={}", status.to_string());
      fail_written(result.topics, GroupError::kStorageError);
    }
    done(std::move(result));
  });
}

void GroupCoordinator::remove_topic_offsets(const std::string& topic, DurableCallback done) {
  if (shut_down_) return done(storage::Status());
  if (!loaded_) {
    topics_deleted_while_loading_.push_back(topic);
    return done(storage::Status());
  }
  OffsetStore::Mutations batch;
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
  OffsetStore::Mutations batch;
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
  OffsetStore::Mutations batch;
  size_t expired = 0;
  for (Group* group : groups_.snapshot()) {
    expired += expire_group_offsets(*group, now, batch);
    maybe_remove_empty_group(*group, batch);  // may erase the group
  }
  if (batch.empty()) return;
  log().info("offsets expired: offsets={} records={}", expired, batch.size());
  writer_.write(std::move(batch), [](storage::Status status) {
    if (!status.ok()) log().warn("offset expiry not stored: error={}", status.to_string());
  });
}

size_t GroupCoordinator::expire_group_offsets(Group& group, int64_t now, OffsetStore::Mutations& out) {
  // Which clock an offset's retention runs from (Kafka's rules):
  //  - a group that had members and is now Empty: since it became empty (or, if that
  //    is unknown, since the commit);
  //  - a simple group (never had members): since the commit;
  //  - a Stable consumer group: since the commit, for topics it no longer subscribes to;
  //  - any other group keeps its offsets.
  enum class Base { kNone, kEmptySince, kCommit };
  Base base = Base::kNone;
  bool skip_subscribed = false;
  if (group.is(GroupState::kEmpty)) {
    base = group.protocol_type() && group.state_timestamp_ms() >= 0 ? Base::kEmptySince : Base::kCommit;
  } else if (group.is_consumer_group() && group.subscribed_topics() && group.is(GroupState::kStable)) {
    base = Base::kCommit;
    skip_subscribed = true;
  }
  if (base == Base::kNone) return 0;
  const int64_t retention = options_.offsets_retention_ms;
  return offsets_.remove_if(group.group_id(), [&](const TopicPartition& tp, const CommittedOffset& c) {
    if (skip_subscribed && group.is_subscribed_to(tp.topic)) return false;
    if (c.expire_timestamp_ms >= 0) return now >= c.expire_timestamp_ms;
    const int64_t since = base == Base::kEmptySince ? group.state_timestamp_ms() : c.commit_timestamp_ms;
    return now - since >= retention;
  }, out);
}

}  // namespace rokka::coordinator
