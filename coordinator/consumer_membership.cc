#include "coordinator/consumer_membership.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "coordinator/group_migration.h"
#include "coordinator/log.h"
#include "coordinator/membership.h"
#include "coordinator/meta_records.h"
#include "wire/random_id.h"

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
    : options_(options), clock_(clock), writer_(writer), timers_(timers) {}

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
  entry.group->set_partition_racks([this](const std::string& topic) {
    return catalog_.partition_racks ? catalog_.partition_racks(topic) : std::vector<std::vector<std::string>>{};
  });
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
                                   std::function<void(ConsumerGroupHeartbeatResult)> done,
                                   OffsetBook::Mutations first) {
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
  // A member leaving for good (epoch -1), dynamic or static (its instance id its own), may
  // be the last consumer-protocol one: Kafka's consumerGroupFenceMember then downgrades. A
  // static member's temporary leave (-2) keeps it, so it does not.
  const ConsumerMember* static_holder = hb.instance_id ? entry.group->static_member(*hb.instance_id) : nullptr;
  if (hb.member_epoch == ConsumerHeartbeat::kLeaveEpoch && entry.group->members().contains(hb.member_id) &&
      (!hb.instance_id || (static_holder != nullptr && static_holder->member_id == hb.member_id)) &&
      maybe_downgrade(entry, hb.member_id)) {
    log().info("consumer group member left: group={} member={}", args.group_id, hb.member_id);
    ConsumerGroupHeartbeatResult left;
    left.member_id = hb.member_id;
    left.member_epoch = ConsumerHeartbeat::kLeaveEpoch;
    return done(std::move(left));
  }
  resolve_regexes(entry, hb.subscribed_regex, args.may_describe);
  ConsumerHeartbeatResult r = entry.group->heartbeat(hb, catalog_.partition_count ? catalog_.partition_count : [](const std::string&) { return 0; },
                                                     [] { return wire::random_member_id(""); });
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
  after_change(
      entry,
      [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
        if (!status.ok()) {
          log().warn("consumer group heartbeat not stored: error={}", status.to_string());
          result = heartbeat_error(GroupError::kStorageError, "The group's state could not be stored.");
        }
        done(std::move(result));
      },
      std::move(first));
}

void ConsumerMembership::resolve_regexes(Entry& entry, const std::optional<std::string>& new_regex,
                                         const std::function<bool(const std::string&)>& may_describe) {
  if (!catalog_.match) return;
  ConsumerGroup& group = *entry.group;
  auto resolve = [&](const std::string& regex) {
    std::vector<std::string> topics = catalog_.match(regex);
    if (may_describe) std::erase_if(topics, [&](const std::string& t) { return !may_describe(t); });
    group.set_regex_topics(regex, std::move(topics));
  };
  if (new_regex && !new_regex->empty() && !group.has_regex(*new_regex)) {
    // Kafka resolves a regex the group does not know yet asynchronously: the heartbeat
    // that brings it is answered with the member's named topics only, and the matches
    // come with a later heartbeat. Here the group's next heartbeat matches it.
    group.set_regex_topics(*new_regex, {});
    entry.regexes_resolved_ms = -1;
    return;
  }
  const int64_t now = clock_();
  if (entry.regexes_resolved_ms >= 0 && now - entry.regexes_resolved_ms < options_.consumer_regex_refresh_ms) return;
  for (const std::string& regex : group.regexes()) resolve(regex);
  entry.regexes_resolved_ms = now;
}

void ConsumerMembership::after_change(Entry& entry, DurableCallback done, OffsetBook::Mutations first) {
  const ConsumerGroup& group = *entry.group;
  const auto& members = group.members();
  for (auto* timers : {&entry.session_timers, &entry.revocation_timers, &entry.classic_timers}) {
    for (auto t = timers->begin(); t != timers->end();) {
      const auto m = members.find(t->first);
      const bool keep = m != members.end() && (timers != &entry.revocation_timers ||
                                               m->second.state == ConsumerMember::State::kUnrevokedPartitions);
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
  if (group.revision() == entry.stored_revision && !entry.stored.empty() && first.empty()) {
    if (options_.consumer_verify_unchanged_records &&
        encode_consumer_group_value(group.snapshot()) != entry.stored) {
      log().error("consumer group record changed without a revision: group={}", group.group_id());
      std::abort();
    }
    return done(storage::Status());
  }
  std::string record = encode_consumer_group_value(group.snapshot());
  ++records_encoded_;
  entry.stored_revision = group.revision();
  if (record == entry.stored && first.empty()) return done(storage::Status());
  entry.stored = record;
  first.push_back({encode_consumer_group_key(group.group_id()), std::move(record), false});
  writer_.write(std::move(first), std::move(done));
}

ConsumerGroupTimeouts ConsumerMembership::timeouts(const std::string& group_id) const {
  if (group_timeouts_) return group_timeouts_(group_id);
  return {options_.consumer_session_timeout_ms, options_.consumer_heartbeat_interval_ms};
}

void ConsumerMembership::arm_session(Entry& entry, const std::string& member_id) {
  // A classic member has the session its JoinGroup asked for.
  const auto m = entry.group->members().find(member_id);
  const int32_t session = m != entry.group->members().end() && m->second.classic
                              ? m->second.classic->session_timeout_ms
                              : timeouts(entry.group->group_id()).session_timeout_ms;
  const int64_t deadline = clock_() + session;
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
  if (!entry.group->members().contains(member_id)) return;
  if (maybe_downgrade(entry, member_id)) {
    log().info("consumer group member removed: member={} reason={}", member_id, reason);
    return;  // the entry is gone
  }
  entry.group->remove_member(member_id);
  log().info("consumer group member removed: group={} member={} reason={} group_epoch={}", entry.group->group_id(),
             member_id, reason, entry.group->group_epoch());
  after_change(entry, [group_id = entry.group->group_id()](storage::Status status) {
    if (!status.ok()) log().warn("consumer group change not stored: group={} error={}", group_id, status.to_string());
  });
}

// ---------------------------------------------------------------------------------------
// Classic members of a consumer group

void ConsumerMembership::classic_join(JoinGroupArgs args, JoinCallback done) {
  auto it = groups_.find(args.group_id);
  Entry& entry = it->second;
  ConsumerGroup& group = *entry.group;
  const bool unknown = args.member_id.empty();
  const std::string member_id = unknown ? wire::random_member_id(args.client_id + "-") : args.member_id;
  if (args.session_timeout_ms < options_.min_session_timeout_ms ||
      args.session_timeout_ms > options_.max_session_timeout_ms)
    return done(join_error(member_id, GroupError::kInvalidSessionTimeout));
  if (!group.members().contains(member_id) && static_cast<int32_t>(group.members().size()) >= options_.consumer_max_size)
    return done(join_error(member_id, GroupError::kGroupMaxSizeReached));
  if (!group.supports_classic_protocols(args.protocol_type, args.protocols)) {
    log().info("JoinGroup refused: group={} member={} protocols not supported by the group's classic members",
               args.group_id, member_id);
    return done(join_error(member_id, GroupError::kInconsistentGroupProtocol));
  }
  // KIP-394: a dynamic member first gets its id, and joins with it.
  if (unknown && !args.group_instance_id && args.api_version >= 4)
    return done(join_error(member_id, GroupError::kMemberIdRequired));
  std::optional<ConsumerSubscription> subscription = parse_subscription(args.protocols.front().metadata);
  if (!subscription) {
    log().info("JoinGroup refused: group={} member={} subscription is not the consumer protocol's", args.group_id,
               member_id);
    return done(join_error(member_id, GroupError::kInconsistentGroupProtocol));
  }
  ClassicJoin join;
  join.member_id = member_id;
  join.member_id_was_given = !unknown;
  join.instance_id = args.group_instance_id;
  join.client_id = args.client_id;
  join.client_host = args.client_host;
  join.rebalance_timeout_ms = args.rebalance_timeout_ms >= 0 ? args.rebalance_timeout_ms : args.session_timeout_ms;
  join.metadata = ClassicMemberMetadata{args.session_timeout_ms, args.protocols};
  join.subscription = std::move(*subscription);
  // A static member restarting with the classic protocol replaces the member holding its
  // instance id; if that was the last consumer-protocol member, the group becomes classic
  // again, Stable, with no rebalance (Kafka's validateOnlineDowngradeWithReplacedMemberId).
  std::string replaced;
  if (unknown && args.group_instance_id) {
    const ConsumerMember* held = group.static_member(*args.group_instance_id);
    if (held != nullptr && held->member_id != member_id) replaced = held->member_id;
  }
  const bool downgrade = !replaced.empty() && downgrade_ && options_.consumer_migration_downgrade &&
                         group.all_classic_except(replaced) &&
                         group.members().size() <= static_cast<size_t>(options_.max_group_size);
  ConsumerHeartbeatResult r = group.classic_join(
      join, catalog_.partition_count ? catalog_.partition_count : [](const std::string&) { return 0; });
  if (r.error != GroupError::kNone) return done(join_error(member_id, r.error));
  JoinGroupResult result;
  result.generation_id = r.member_epoch;
  result.protocol_type = std::string(kConsumerProtocolType);
  result.protocol_name = args.protocols.front().name;
  result.member_id = member_id;  // no leader, no member list: the broker assigns
  if (downgrade) {
    const std::string group_id = group.group_id();
    StoredGroup classic = classic_group_from_consumer(group, "", clock_());
    log().info("consumer group becomes classic: group={} replaced_static_member={} by={} members={} generation={}",
               group_id, replaced, member_id, classic.members.size(), classic.generation_id);
    OffsetBook::Mutations batch;
    remove(group_id, batch);  // `group` and `entry` are gone
    downgrade_(std::move(classic), std::move(batch), false,
               [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
                 if (!status.ok()) return done(join_error(result.member_id, GroupError::kStorageError));
                 done(std::move(result));
               });
    return;
  }
  cancel_classic_timer(entry, member_id);
  arm_session(entry, member_id);
  arm_classic_timer(entry, group.members().at(member_id), false, "the classic member failed to sync within its rebalance timeout");
  after_change(entry, [result = std::move(result), done = std::move(done)](storage::Status status) mutable {
    if (!status.ok()) {
      log().warn("consumer group join not stored: error={}", status.to_string());
      return done(join_error(result.member_id, GroupError::kStorageError));
    }
    done(std::move(result));
  });
}

void ConsumerMembership::classic_sync(SyncGroupArgs args, SyncCallback done) {
  auto it = groups_.find(args.group_id);
  if (it == groups_.end()) return done(sync_error(GroupError::kUnknownMemberId));
  Entry& entry = it->second;
  const ConsumerGroup& group = *entry.group;
  const ConsumerMember* m = nullptr;
  if (GroupError e = group.classic_member(args.member_id, args.group_instance_id, &m); e != GroupError::kNone)
    return done(sync_error(e));
  if (args.generation_id != m->member_epoch) return done(sync_error(GroupError::kIllegalGeneration));
  const Protocol& chosen = m->classic->protocols.front();
  if ((args.protocol_type && *args.protocol_type != kConsumerProtocolType) ||
      (args.protocol_name && *args.protocol_name != chosen.name))
    return done(sync_error(GroupError::kInconsistentGroupProtocol));
  if (group.group_epoch() > m->member_epoch && m->state != ConsumerMember::State::kUnrevokedPartitions) {
    arm_classic_timer(entry, *m, true, "the classic member failed to join within its rebalance timeout");
    return done(sync_error(GroupError::kRebalanceInProgress));
  }
  cancel_classic_timer(entry, m->member_id);
  arm_session(entry, m->member_id);
  SyncGroupResult result;
  result.protocol_type = args.protocol_type;
  result.protocol_name = args.protocol_name;
  result.assignment = encode_assignment(m->assigned, subscription_version(chosen.metadata).value_or(0));
  done(std::move(result));
}

GroupError ConsumerMembership::classic_heartbeat(const HeartbeatArgs& args) {
  auto it = groups_.find(args.group_id);
  if (it == groups_.end()) return GroupError::kUnknownMemberId;
  Entry& entry = it->second;
  const ConsumerMember* m = nullptr;
  if (GroupError e = entry.group->classic_member(args.member_id, args.group_instance_id, &m); e != GroupError::kNone)
    return e;
  if (args.generation_id != m->member_epoch) return GroupError::kIllegalGeneration;
  arm_session(entry, m->member_id);
  if (!entry.group->classic_must_rejoin(*m)) return GroupError::kNone;
  arm_classic_timer(entry, *m, true, "the classic member failed to join within its rebalance timeout");
  return GroupError::kRebalanceInProgress;
}

LeaveGroupResult ConsumerMembership::classic_leave(const LeaveGroupArgs& args) {
  LeaveGroupResult result;
  auto it = groups_.find(args.group_id);
  if (it == groups_.end()) return error_result<LeaveGroupResult>(GroupError::kUnknownMemberId);
  Entry& entry = it->second;
  ConsumerGroup& group = *entry.group;
  // Kafka 4's classicGroupLeaveToConsumerGroup: LeaveGroup removes members of either
  // protocol (an admin's removeMembersFromConsumerGroup names them by member id or instance
  // id, KAFKA-18188), each answered with the ids the request gave.
  std::vector<std::string> leaving;
  for (const MemberIdentity& who : args.members) {
    LeaveMemberResult& r = result.members.emplace_back();
    r.member_id = who.member_id;
    r.group_instance_id = who.group_instance_id;
    const ConsumerMember* m = nullptr;
    if (who.group_instance_id) {
      m = group.static_member(*who.group_instance_id);
      // An admin may remove a static member by its instance id alone.
      if (m == nullptr) r.error = GroupError::kUnknownMemberId;
      else if (!who.member_id.empty() && who.member_id != m->member_id) r.error = GroupError::kFencedInstanceId;
    } else {
      auto found = group.members().find(who.member_id);
      if (found == group.members().end()) r.error = GroupError::kUnknownMemberId;
      else m = &found->second;
    }
    if (r.error != GroupError::kNone) continue;
    const std::string id = m->member_id;
    if (std::find(leaving.begin(), leaving.end(), id) != leaving.end()) continue;
    log().info("member left consumer group through LeaveGroup: group={} member={} protocol={} reason={}",
               args.group_id, id, m->uses_classic() ? "classic" : "consumer", who.reason.value_or("not provided"));
    leaving.push_back(id);
  }
  if (leaving.empty()) return result;
  // If those leaving are the consumer-protocol members and only classic ones remain, the
  // group goes back to the classic protocol, as when the last consumer-protocol member
  // leaves by heartbeat (KAFKA-18150).
  const bool all_consumer = std::all_of(leaving.begin(), leaving.end(), [&](const std::string& id) {
    return !group.members().at(id).uses_classic();
  });
  const size_t remaining = group.members().size() - leaving.size();
  const bool others_classic = std::all_of(group.members().begin(), group.members().end(), [&](const auto& e) {
    return e.second.uses_classic() || std::find(leaving.begin(), leaving.end(), e.first) != leaving.end();
  });
  if (downgrade_ && options_.consumer_migration_downgrade && all_consumer && others_classic && remaining > 0 &&
      remaining <= static_cast<size_t>(options_.max_group_size)) {
    const std::string group_id = group.group_id();
    // Every member not using the classic protocol is left out of the classic group.
    StoredGroup classic = classic_group_from_consumer(group, leaving.front(), clock_());
    log().info("consumer group becomes classic: group={} leaving={} members={} generation={}", group_id,
               leaving.size(), classic.members.size(), classic.generation_id);
    OffsetBook::Mutations batch;
    remove(group_id, batch);
    downgrade_(std::move(classic), std::move(batch), true, nullptr);
    return result;
  }
  for (const std::string& id : leaving) cancel_classic_timer(entry, id);
  // One epoch move for the whole request, as Kafka's classicGroupLeaveToConsumerGroup.
  if (group.remove_members(leaving) > 0) {
    after_change(entry, [group_id = args.group_id](storage::Status status) {
      if (!status.ok()) log().warn("consumer group change not stored: group={} error={}", group_id, status.to_string());
    });
  }
  return result;
}

void ConsumerMembership::arm_classic_timer(Entry& entry, const ConsumerMember& m, bool if_absent,
                                           std::string_view reason) {
  auto t = entry.classic_timers.find(m.member_id);
  if (t != entry.classic_timers.end()) {
    if (if_absent && timers_.pending(t->second)) return;
    timers_.cancel(t->second);
  }
  entry.classic_timers[m.member_id] = timers_.schedule(
      clock_() + std::max(0, m.rebalance_timeout_ms),
      [this, group_id = entry.group->group_id(), incarnation = entry.incarnation, member_id = m.member_id,
       why = std::string(reason)] {
        Entry* live_entry = live(group_id, incarnation);
        if (live_entry == nullptr) return;
        live_entry->classic_timers.erase(member_id);
        drop_member(*live_entry, member_id, why);
      });
}

void ConsumerMembership::cancel_classic_timer(Entry& entry, const std::string& member_id) {
  auto t = entry.classic_timers.find(member_id);
  if (t == entry.classic_timers.end()) return;
  timers_.cancel(t->second);
  entry.classic_timers.erase(t);
}

// ---------------------------------------------------------------------------------------
// Migration

void ConsumerMembership::adopt(ConsumerGroupSnapshot converted) {
  const std::string group_id = converted.group_id;
  Entry& entry = create(group_id);
  entry.group->restore(std::move(converted));
  // entry.stored stays empty: the heartbeat that caused the upgrade writes the record.
  for (const auto& [id, m] : entry.group->members()) arm_session(entry, id);
}

bool ConsumerMembership::maybe_downgrade(Entry& entry, const std::string& leaving) {
  const ConsumerGroup& group = *entry.group;
  if (!downgrade_ || !options_.consumer_migration_downgrade || !group.all_classic_except(leaving) ||
      group.members().size() <= 1 || group.members().size() - 1 > static_cast<size_t>(options_.max_group_size))
    return false;
  const std::string group_id = group.group_id();
  StoredGroup classic = classic_group_from_consumer(group, leaving, clock_());
  log().info("consumer group becomes classic: group={} leaving={} members={} generation={}", group_id, leaving,
             classic.members.size(), classic.generation_id);
  OffsetBook::Mutations batch;
  remove(group_id, batch);
  downgrade_(std::move(classic), std::move(batch), true, nullptr);
  return true;
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
  if (m->second.uses_classic())  // a classic consumer commits with its generation, any version
    return member_epoch == m->second.member_epoch ? GroupError::kNone : GroupError::kIllegalGeneration;
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
  entry.stored_revision = entry.group->revision();
  // Every member has one session to come back, and a member that was revoking one
  // rebalance timeout; the record is as written, so nothing is stored again.
  after_change(entry, [](storage::Status) {});
}

void ConsumerMembership::remove(const std::string& group_id, OffsetBook::Mutations& out) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return;
  for (auto* timers : {&it->second.session_timers, &it->second.revocation_timers, &it->second.classic_timers})
    for (auto& [id, timer] : *timers) timers_.cancel(timer);
  if (!it->second.stored.empty()) out.push_back({encode_consumer_group_key(group_id), "", true});
  groups_.erase(it);
}

void ConsumerMembership::shutdown() {
  // Nothing is parked here: heartbeats wait only for their write, which still completes.
  groups_.clear();
}

}  // namespace rokka::coordinator
