#include "coordinator/consumer_membership.h"

#include <algorithm>
#include <utility>

#include "coordinator/log.h"
#include "coordinator/membership.h"
#include "coordinator/meta_records.h"

namespace rokka::coordinator {
namespace {

ConsumerGroupHeartbeatResult heartbeat_error(GroupError error, std::string message) {
  ConsumerGroupHeartbeatResult r;
  r.error = error;
  r.message = std::move(message);
  return r;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

ConsumerMembership::ConsumerMembership(const CoordinatorOptions& options, const Clock& clock, DurableWriter& writer,
                                       TimerQueue& timers)
    : options_(options), clock_(clock), writer_(writer), timers_(timers), rng_(std::random_device{}()) {}

const ConsumerGroup* ConsumerMembership::find(std::string_view group_id) const {
  auto it = groups_.find(std::string(group_id));
  return it == groups_.end() ? nullptr : it->second.group.get();
}

std::vector<std::string> ConsumerMembership::group_ids() const {
  std::vector<std::string> out;
  out.reserve(groups_.size());
  for (const auto& [id, entry] : groups_) out.push_back(id);
  return out;
}

ConsumerMembership::Entry& ConsumerMembership::create(const std::string& group_id) {
  AssignorFunction assignor = options_.consumer_assignors.empty() ? nullptr : find_assignor(options_.consumer_assignors[0]);
  Entry& entry = groups_[group_id];
  entry.group = std::make_unique<ConsumerGroup>(group_id, assignor ? assignor : &assign_uniform,
                                                options_.consumer_max_size);
  entry.incarnation = next_incarnation_++;
  entry.empty_since_ms = clock_();
  return entry;
}

ConsumerMembership::Entry* ConsumerMembership::live(const std::string& group_id, uint64_t incarnation) {
  auto it = groups_.find(group_id);
  return it != groups_.end() && it->second.incarnation == incarnation ? &it->second : nullptr;
}

// ---------------------------------------------------------------------------------------
// ConsumerGroupHeartbeat

void ConsumerMembership::heartbeat(ConsumerGroupHeartbeatArgs args,
                                   std::function<void(ConsumerGroupHeartbeatResult)> done) {
  ConsumerHeartbeat& hb = args.heartbeat;
  if (args.group_id.empty()) return done(heartbeat_error(GroupError::kInvalidRequest, "GroupId can't be empty."));
  if (ConsumerHeartbeatResult invalid = ConsumerGroup::validate(hb, args.api_version); invalid.error != GroupError::kNone)
    return done(heartbeat_error(invalid.error, std::move(invalid.message)));
  if (hb.server_assignor && std::find(options_.consumer_assignors.begin(), options_.consumer_assignors.end(),
                                      *hb.server_assignor) == options_.consumer_assignors.end()) {
    return done(heartbeat_error(GroupError::kUnsupportedAssignor,
                                "ServerAssignor " + *hb.server_assignor + " is not supported. Supported assignors: " +
                                    join(options_.consumer_assignors) + "."));
  }
  auto it = groups_.find(args.group_id);
  if (it == groups_.end()) {
    if (hb.member_epoch != ConsumerHeartbeat::kJoinEpoch) {
      // Kafka's answer to a member of a group the coordinator does not know: it rejoins.
      return done(heartbeat_error(GroupError::kUnknownMemberId,
                                  "Member " + hb.member_id + " is not a member of group " + args.group_id + "."));
    }
    it = groups_.find(create(args.group_id).group->group_id());
  }
  Entry& entry = it->second;
  resolve_regexes(entry, hb.subscribed_regex);
  ConsumerHeartbeatResult r = entry.group->heartbeat(hb, catalog_.partition_count ? catalog_.partition_count : [](const std::string&) { return 0; },
                                                     [this] { return make_member_id(rng_, ""); });
  if (r.error != GroupError::kNone) {
    if (entry.group->members().empty() && entry.stored.empty()) groups_.erase(it);  // a join that never made the group
    return done(heartbeat_error(r.error, std::move(r.message)));
  }
  ConsumerGroupHeartbeatResult result;
  result.member_id = r.member_id;
  result.member_epoch = r.member_epoch;
  result.assignment = std::move(r.assignment);
  if (r.member_epoch >= 0) {
    result.heartbeat_interval_ms = timeouts(args.group_id).heartbeat_interval_ms;
    arm_session(entry, r.member_id);
  } else if (r.member_epoch == ConsumerHeartbeat::kLeaveEpoch) {
    log().info("consumer group member left: group={} member={}", args.group_id, r.member_id);
  }
  after_change(entry, [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
    if (!status.ok()) {
      log().warn("consumer group heartbeat not stored: error={}", status.to_string());
      result = heartbeat_error(GroupError::kStorageError, "The group's state could not be stored.");
    }
    done(std::move(result));
  });
}

void ConsumerMembership::resolve_regexes(Entry& entry, const std::optional<std::string>& new_regex) {
  if (!catalog_.match) return;
  ConsumerGroup& group = *entry.group;
  if (new_regex && !new_regex->empty() && !group.has_regex(*new_regex))
    group.set_regex_topics(*new_regex, catalog_.match(*new_regex));
  const int64_t now = clock_();
  if (entry.regexes_resolved_ms >= 0 && now - entry.regexes_resolved_ms < options_.consumer_regex_refresh_ms) return;
  for (const std::string& regex : group.regexes()) group.set_regex_topics(regex, catalog_.match(regex));
  entry.regexes_resolved_ms = now;
}

void ConsumerMembership::after_change(Entry& entry, DurableCallback done) {
  const ConsumerGroup& group = *entry.group;
  const auto& members = group.members();
  for (auto* timers : {&entry.session_timers, &entry.revocation_timers}) {
    for (auto t = timers->begin(); t != timers->end();) {
      const auto m = members.find(t->first);
      const bool keep = m != members.end() &&
                        (timers == &entry.session_timers || m->second.state == ConsumerMember::State::kUnrevokedPartitions);
      if (keep) {
        ++t;
        continue;
      }
      timers_.cancel(t->second);
      t = timers->erase(t);
    }
  }
  for (const auto& [id, m] : members) {
    if (!entry.session_timers.contains(id)) arm_session(entry, id);
    if (m.state == ConsumerMember::State::kUnrevokedPartitions && !entry.revocation_timers.contains(id)) {
      entry.revocation_timers[id] = timers_.schedule(
          clock_() + std::max(0, m.rebalance_timeout_ms),
          [this, group_id = group.group_id(), incarnation = entry.incarnation, member_id = id] {
            on_revocation_timeout(group_id, incarnation, member_id);
          });
    }
  }
  if (!members.empty()) {
    entry.empty_since_ms = -1;
  } else if (entry.empty_since_ms < 0) {
    entry.empty_since_ms = clock_();
  }
  std::string record = encode_consumer_group_value(group.snapshot());
  if (record == entry.stored) return done(storage::Status());
  entry.stored = record;
  writer_.write({{encode_consumer_group_key(group.group_id()), std::move(record), false}}, std::move(done));
}

ConsumerGroupTimeouts ConsumerMembership::timeouts(const std::string& group_id) const {
  if (group_timeouts_) return group_timeouts_(group_id);
  return {options_.consumer_session_timeout_ms, options_.consumer_heartbeat_interval_ms};
}

void ConsumerMembership::arm_session(Entry& entry, const std::string& member_id) {
  const int64_t deadline = clock_() + timeouts(entry.group->group_id()).session_timeout_ms;
  auto t = entry.session_timers.find(member_id);
  if (t != entry.session_timers.end() && timers_.pending(t->second)) return timers_.reschedule(t->second, deadline);
  entry.session_timers[member_id] =
      timers_.schedule(deadline, [this, group_id = entry.group->group_id(), incarnation = entry.incarnation, member_id] {
        on_session_timeout(group_id, incarnation, member_id);
      });
}

void ConsumerMembership::on_session_timeout(const std::string& group_id, uint64_t incarnation,
                                            const std::string& member_id) {
  Entry* entry = live(group_id, incarnation);
  if (entry == nullptr) return;
  entry->session_timers.erase(member_id);
  drop_member(*entry, member_id, "session timeout");
}

void ConsumerMembership::on_revocation_timeout(const std::string& group_id, uint64_t incarnation,
                                               const std::string& member_id) {
  Entry* entry = live(group_id, incarnation);
  if (entry == nullptr) return;
  entry->revocation_timers.erase(member_id);
  auto m = entry->group->members().find(member_id);
  if (m == entry->group->members().end() || m->second.state != ConsumerMember::State::kUnrevokedPartitions) return;
  drop_member(*entry, member_id, "rebalance timeout: partitions not revoked");
}

void ConsumerMembership::drop_member(Entry& entry, const std::string& member_id, std::string_view reason) {
  if (!entry.group->remove_member(member_id)) return;
  log().info("consumer group member removed: group={} member={} reason={} group_epoch={}", entry.group->group_id(),
             member_id, reason, entry.group->group_epoch());
  after_change(entry, [group_id = entry.group->group_id()](storage::Status status) {
    if (!status.ok()) log().warn("consumer group change not stored: group={} error={}", group_id, status.to_string());
  });
}

// ---------------------------------------------------------------------------------------
// Offsets

GroupError ConsumerMembership::check_commit(const std::string& group_id, int32_t member_epoch,
                                            const std::string& member_id, int16_t api_version,
                                            bool transactional) const {
  const ConsumerGroup* group = find(group_id);
  if (group == nullptr) return GroupError::kGroupIdNotFound;
  const auto& members = group->members();
  if (member_epoch < 0 && members.empty()) return GroupError::kNone;  // an admin's or an assign()-only commit
  auto m = members.find(member_id);
  if (m == members.end()) return GroupError::kUnknownMemberId;
  if (!transactional && api_version < 9) return GroupError::kUnsupportedVersion;
  if (member_epoch > m->second.member_epoch) return GroupError::kFencedMemberEpoch;
  if (member_epoch < m->second.member_epoch) return GroupError::kStaleMemberEpoch;
  return GroupError::kNone;
}

GroupError ConsumerMembership::accept_offset_commit(const std::string& group_id, const OffsetCommitArgs& args) {
  const GroupError e = check_commit(group_id, args.generation_id, args.member_id, args.api_version, false);
  if (e == GroupError::kNone && !args.member_id.empty()) {
    auto it = groups_.find(group_id);
    if (it->second.group->members().contains(args.member_id)) arm_session(it->second, args.member_id);
  }
  return e;
}

GroupError ConsumerMembership::check_offset_fetch(const std::string& group_id,
                                                  const std::optional<std::string>& member_id,
                                                  int32_t member_epoch) const {
  const ConsumerGroup* group = find(group_id);
  if (group == nullptr || !member_id || (member_id->empty() && member_epoch < 0)) return GroupError::kNone;
  auto m = group->members().find(*member_id);
  if (m == group->members().end()) return GroupError::kUnknownMemberId;
  return m->second.member_epoch == member_epoch ? GroupError::kNone : GroupError::kStaleMemberEpoch;
}

TopicFilter ConsumerMembership::topics_in_use(const std::string& group_id) const {
  const ConsumerGroup* group = find(group_id);
  if (group == nullptr || group->members().empty()) return nullptr;
  return [topics = group->subscribed_topics()](const std::string& topic) { return topics.contains(topic); };
}

OffsetRetention ConsumerMembership::offset_retention(const std::string& group_id) const {
  // As for classic groups: an empty group's offsets age from when it became empty; a
  // live one keeps those of the topics it subscribes to, the others age from their commit.
  OffsetRetention r;
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return r;
  if (it->second.group->members().empty()) {
    r.since = OffsetRetention::Since::kEmpty;
    r.empty_since_ms = it->second.empty_since_ms;
  } else {
    r.since = OffsetRetention::Since::kCommit;
    r.in_use = topics_in_use(group_id);
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// ConsumerGroupDescribe

std::string_view ConsumerMembership::state_name(ConsumerGroup::State state) {
  switch (state) {
    case ConsumerGroup::State::kEmpty: return "Empty";
    case ConsumerGroup::State::kReconciling: return "Reconciling";
    case ConsumerGroup::State::kStable: return "Stable";
  }
  return "Dead";
}

DescribedConsumerGroup ConsumerMembership::describe(const std::string& group_id) const {
  DescribedConsumerGroup d;
  d.group_id = group_id;
  const ConsumerGroup* group = find(group_id);
  if (group == nullptr) {
    d.error = GroupError::kGroupIdNotFound;
    d.message = "Group " + group_id + " not found.";
    d.state = "Dead";
    return d;
  }
  d.state = state_name(group->state());
  d.group_epoch = group->group_epoch();
  d.assignment_epoch = group->assignment_epoch();
  d.assignor_name = group->assignor_name();
  for (const auto& [id, m] : group->members()) d.members.push_back({m, group->target(id)});
  return d;
}

// ---------------------------------------------------------------------------------------
// Start-up, removal, shutdown

void ConsumerMembership::restore(ConsumerGroupSnapshot stored) {
  const std::string group_id = stored.group_id;
  Entry& entry = create(group_id);
  entry.stored = encode_consumer_group_value(stored);
  entry.group->restore(std::move(stored));
  // Every member has one session to come back, and a member that was revoking one
  // rebalance timeout; the record is as written, so nothing is stored again.
  after_change(entry, [](storage::Status) {});
}

void ConsumerMembership::remove(const std::string& group_id, OffsetBook::Mutations& out) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return;
  for (auto* timers : {&it->second.session_timers, &it->second.revocation_timers})
    for (auto& [id, timer] : *timers) timers_.cancel(timer);
  if (!it->second.stored.empty()) out.push_back({encode_consumer_group_key(group_id), "", true});
  groups_.erase(it);
}

void ConsumerMembership::shutdown() {
  // Nothing is parked here: heartbeats wait only for their write, which still completes.
  groups_.clear();
}

}  // namespace rokka::coordinator
