#include "coordinator/membership.h"

#include <algorithm>
#include <utility>

#include "coordinator/log.h"
#include "wire/random_id.h"

namespace rokka::coordinator {

namespace {

// JoinGroup v4+ hands a new dynamic member its id first (KIP-394).
constexpr int16_t kFirstMemberIdRequiredVersion = 4;
// JoinGroup v9+ can tell a rejoining static leader to skip the assignment (KIP-814).
constexpr int16_t kFirstSkipAssignmentVersion = 9;

}  // namespace

Membership::Membership(const CoordinatorOptions& options, const Clock& clock, DurableWriter& writer,
                       TimerQueue& timers, GroupMap& groups)
    : options_(options),
      clock_(clock),
      writer_(writer),
      timers_(timers),
      groups_(groups) {}

// prefix-UUIDv4, as Kafka forms a classic member's id.
std::string Membership::new_member_id(std::string_view prefix) {
  return wire::random_member_id(std::string(prefix) + "-");
}

GroupError Membership::validate_member(const Group& group, const std::string& member_id,
                                             const std::optional<std::string>& group_instance_id) const {
  if (group_instance_id) {
    auto current = group.static_member_id(*group_instance_id);
    if (!current) return GroupError::kUnknownMemberId;
    if (*current != member_id) return GroupError::kFencedInstanceId;
  }
  return group.has(member_id) ? GroupError::kNone : GroupError::kUnknownMemberId;
}

bool Membership::accept_joining_member(const Group& group, const std::string& member_id) const {
  const size_t max = static_cast<size_t>(options_.max_group_size);
  switch (group.state()) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return true;
    case GroupState::kPreparingRebalance: {
      // Counting members that rejoined (not the group size) lets the last ones to rejoin
      // be turned away when max_group_size shrank.
      const Member* m = group.find(member_id);
      return (m != nullptr && m->is_awaiting_join()) || group.num_awaiting_join() < max;
    }
    case GroupState::kCompletingRebalance:
    case GroupState::kStable:
      return group.has(member_id) || group.size() < max;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// JoinGroup

void Membership::join_group(JoinGroupArgs args, JoinCallback done) {
  if (args.rebalance_timeout_ms < 0) args.rebalance_timeout_ms = args.session_timeout_ms;
  if (args.session_timeout_ms < options_.min_session_timeout_ms ||
      args.session_timeout_ms > options_.max_session_timeout_ms) {
    return done(join_error(args.member_id, GroupError::kInvalidSessionTimeout));
  }
  const bool new_member = args.member_id.empty();
  Group* group = groups_.find(args.group_id);
  if (group == nullptr) {
    // Only a new member creates a group; a member id for a group we do not know is stale.
    if (!new_member) return done(join_error(args.member_id, GroupError::kUnknownMemberId));
    group = &groups_.create(args.group_id, GroupState::kEmpty, clock_());
  }
  if (!accept_joining_member(*group, args.member_id)) {
    if (group->has(args.member_id)) remove_member_and_update(*group, args.member_id, "group is full");
    return done(join_error("", GroupError::kGroupMaxSizeReached));
  }
  if (new_member) {
    join_new_member(*group, args, done);
  } else {
    join_current_member(*group, args, done);
  }
  maybe_complete_join(*group);
}

void Membership::join_new_member(Group& group, JoinGroupArgs& args, JoinCallback& done) {
  if (group.is(GroupState::kDead)) return done(join_error("", GroupError::kCoordinatorNotAvailable));
  if (!group.supports_protocols(args.protocol_type, args.protocols)) {
    return done(join_error("", GroupError::kInconsistentGroupProtocol));
  }
  std::string member_id = new_member_id(args.group_instance_id ? *args.group_instance_id : args.client_id);
  if (args.group_instance_id) {
    if (auto old_member_id = group.static_member_id(*args.group_instance_id)) {
      return rejoin_static_member(group, args, *old_member_id, std::move(member_id), std::move(done));
    }
    return add_member_and_rebalance(group, args, std::move(member_id), std::move(done));
  }
  if (args.api_version >= kFirstMemberIdRequiredVersion) {
    // Remember the id, and forget it if the member does not come back within its session.
    const TimerQueue::Id expiry =
        timers_.schedule(clock_() + args.session_timeout_ms,
                         [this, group_id = group.group_id(), incarnation = group.incarnation(), member_id] {
                           on_pending_member_timer(group_id, incarnation, member_id);
                         });
    group.add_pending_member(member_id, expiry);
    return done(join_error(std::move(member_id), GroupError::kMemberIdRequired));
  }
  add_member_and_rebalance(group, args, std::move(member_id), std::move(done));
}

void Membership::join_current_member(Group& group, JoinGroupArgs& args, JoinCallback& done) {
  if (group.is(GroupState::kDead)) return done(join_error(args.member_id, GroupError::kCoordinatorNotAvailable));
  if (!group.supports_protocols(args.protocol_type, args.protocols)) {
    return done(join_error(args.member_id, GroupError::kInconsistentGroupProtocol));
  }
  if (group.is_pending_member(args.member_id)) {
    // Pending ids are handed to dynamic members only.
    if (args.group_instance_id) return done(join_error(args.member_id, GroupError::kUnknownMemberId));
    if (auto expiry = group.remove_pending_member(args.member_id)) timers_.cancel(*expiry);
    std::string member_id = args.member_id;
    return add_member_and_rebalance(group, args, std::move(member_id), std::move(done));
  }
  if (GroupError e = validate_member(group, args.member_id, args.group_instance_id); e != GroupError::kNone) {
    return done(join_error(args.member_id, e));
  }
  Member& member = *group.find(args.member_id);
  switch (group.state()) {
    case GroupState::kPreparingRebalance:
      return update_member_and_rebalance(group, member, args, std::move(done));
    case GroupState::kCompletingRebalance:
      // Same metadata: it missed our answer; give it again. Otherwise rebalance.
      if (member.matches(args.protocols)) {
        return done(current_generation(group, member.member_id(), group.is_leader(member.member_id())));
      }
      return update_member_and_rebalance(group, member, args, std::move(done));
    case GroupState::kStable:
      // The leader rejoining asks for a new assignment (e.g. topic metadata changed).
      if (group.is_leader(member.member_id()) || !member.matches(args.protocols)) {
        return update_member_and_rebalance(group, member, args, std::move(done));
      }
      return done(current_generation(group, member.member_id(), false));
    case GroupState::kEmpty:
    case GroupState::kDead:
      return done(join_error(args.member_id, GroupError::kUnknownMemberId));
  }
}

JoinGroupResult Membership::current_generation(const Group& group, const std::string& member_id,
                                                     bool with_members) const {
  JoinGroupResult r;
  r.generation_id = group.generation_id();
  r.protocol_type = group.protocol_type();
  r.protocol_name = group.protocol_name();
  r.leader = group.leader_id().value_or("");
  r.member_id = member_id;
  if (with_members) r.members = group.current_member_metadata();
  return r;
}

void Membership::add_member_and_rebalance(Group& group, JoinGroupArgs& args, std::string member_id,
                                                JoinCallback done) {
  Member m(std::move(member_id), std::move(args.group_instance_id), std::move(args.protocols));
  m.client_id = std::move(args.client_id);
  m.client_host = std::move(args.client_host);
  m.rebalance_timeout_ms = args.rebalance_timeout_ms;
  m.session_timeout_ms = args.session_timeout_ms;
  m.protocol_type = std::move(args.protocol_type);
  // A member arriving during the first initial delay earns the group more waiting.
  if (group.is(GroupState::kPreparingRebalance) && group.generation_id() == 0) rebalance(group).new_member_added = true;
  Member& added = group.add(std::move(m), std::move(done));
  // It cannot heartbeat before its JoinGroup is answered: only the long join timeout applies.
  arm_member_timer(group, added, options_.new_member_join_timeout_ms);
  log().info("member joined: group={} member={} instance={} client={} reason={}", group.group_id(), added.member_id(),
             added.group_instance_id().value_or(""), added.client_id, args.reason.value_or(""));
  maybe_prepare_rebalance(group, "new member joined");
}

void Membership::update_member_and_rebalance(Group& group, Member& member, JoinGroupArgs& args,
                                                   JoinCallback done) {
  if (JoinCallback superseded = group.update_member(member, std::move(args.protocols), args.rebalance_timeout_ms,
                                                    args.session_timeout_ms, std::move(done))) {
    // The client re-sent JoinGroup: answer the old request so the connection moves on.
    superseded(join_error(member.member_id(), GroupError::kRebalanceInProgress));
  }
  maybe_prepare_rebalance(group, "member rejoined: " + args.reason.value_or("no reason given"));
}

void Membership::rejoin_static_member(Group& group, JoinGroupArgs& args, const std::string& old_member_id,
                                            std::string new_member_id, JoinCallback done) {
  const std::string old_leader = group.leader_id().value_or("");
  const Member& old = *group.find(old_member_id);
  StaticRejoinUndo previous{old_member_id,           *args.group_instance_id, old.protocols(),
                            old.rebalance_timeout_ms, old.session_timeout_ms,  old.client_id,
                            old.client_host};
  Member& member = group.replace_static_member(*args.group_instance_id, old_member_id, new_member_id);
  log().info("static member rejoined: group={} instance={} old_member={} new_member={} state={}", group.group_id(),
             *args.group_instance_id, old_member_id, new_member_id, group_state_name(group.state()));
  member.client_id = args.client_id;
  member.client_host = args.client_host;
  group.update_member(member, std::move(args.protocols), args.rebalance_timeout_ms, args.session_timeout_ms,
                      std::move(done));
  const uint64_t ticket = member.join_ticket();
  arm_member_timer(group, member, member.session_timeout_ms);  // the old id's timer went with it
  switch (group.state()) {
    case GroupState::kStable: {
      if (group.protocol_name() != group.select_protocol()) {
        return maybe_prepare_rebalance(group, "static member rejoined with other protocols");
      }
      // No rebalance: store the new member id, then hand back the current generation.
      const int16_t version = args.api_version;
      return store_group(group, nullptr,
                         [this, group_id = group.group_id(), incarnation = group.incarnation(), new_member_id, ticket,
                          previous = std::move(previous), old_leader, version](storage::Status status) mutable {
                           on_static_rejoin_stored(group_id, incarnation, new_member_id, ticket, previous, old_leader,
                                                   version, status);
                         });
    }
    case GroupState::kCompletingRebalance:
      // The leader may be assigning to the old id already: start over.
      return prepare_rebalance(group, "static member rejoined during sync");
    case GroupState::kPreparingRebalance:
      return;  // answered when the join phase ends
    case GroupState::kEmpty:
    case GroupState::kDead:
      log().error("static member in a group without members: group={}", group.group_id());
      group.fail_parked_requests(member, GroupError::kUnknownMemberId, "");
      return;
  }
}

void Membership::on_static_rejoin_stored(const std::string& group_id, uint64_t incarnation,
                                               const std::string& member_id, uint64_t ticket,
                                               const StaticRejoinUndo& previous,
                                               const std::string& old_leader, int16_t api_version,
                                               const storage::Status& status) {
  Group* group = groups_.live(group_id, incarnation);
  Member* member = group ? group->find(member_id) : nullptr;
  // Already answered, e.g. by a rebalance that started during the write, or fenced by a newer instance.
  if (member == nullptr || member->join_ticket() != ticket || !member->is_awaiting_join()) return;
  JoinCallback done = group->take_join_callback(*member);
  if (!status.ok()) {
    log().warn("could not store static member, reverting: group={} member={} error={}", group_id, member_id,
               status.to_string());
    group->update_member(*member, previous.protocols, previous.rebalance_timeout_ms, previous.session_timeout_ms,
                         nullptr);
    Member& restored = group->replace_static_member(previous.group_instance_id, member_id, previous.member_id);
    restored.client_id = previous.client_id;
    restored.client_host = previous.client_host;
    arm_member_timer(*group, restored, restored.session_timeout_ms);
    return done(join_error("", GroupError::kStorageError));
  }
  touch_member(*group, *member);  // its session may have lapsed while it waited on the write
  JoinGroupResult r = current_generation(*group, member_id, false);
  if (api_version >= kFirstSkipAssignmentVersion) {
    // The leader learns it leads (to watch metadata) but must not reassign.
    r.skip_assignment = group->is_leader(member_id);
    if (r.skip_assignment) r.members = group->current_member_metadata();
  } else {
    // Older clients: name the old leader id, so a rejoining leader does not think it leads
    // and run an assignment a Stable group would ignore.
    r.leader = old_leader;
  }
  done(std::move(r));
}

// ---------------------------------------------------------------------------------------
// Rebalance

void Membership::maybe_prepare_rebalance(Group& group, std::string_view reason) {
  if (group.can_rebalance()) prepare_rebalance(group, reason);
}

void Membership::prepare_rebalance(Group& group, std::string_view reason) {
  if (group.is(GroupState::kCompletingRebalance)) {
    reset_and_propagate_assignment_error(group, GroupError::kRebalanceInProgress);
  }
  Rebalance& r = rebalance(group);
  timers_.cancel(r.sync_timer);
  // A group starting from Empty waits group.initial.rebalance.delay.ms for more members.
  const bool initial = group.is(GroupState::kEmpty) && options_.initial_rebalance_delay_ms > 0;
  r.initial_delay = initial;
  if (initial) {
    r.initial_delay_remaining_ms = std::max(group.rebalance_timeout_ms() - options_.initial_rebalance_delay_ms, 0);
    schedule_join_timer(group, options_.initial_rebalance_delay_ms);
  } else {
    schedule_join_timer(group, group.rebalance_timeout_ms());
  }
  group.start_rebalance(clock_());
  log().info("preparing to rebalance: group={} generation={} members={} reason={}", group.group_id(),
             group.generation_id(), group.size(), reason);
  maybe_complete_join(group);
}

void Membership::maybe_complete_join(Group& group) {
  if (group.is(GroupState::kPreparingRebalance) && !rebalance(group).initial_delay && group.has_all_members_joined()) {
    complete_join(group);
  }
}

void Membership::complete_join(Group& group) {
  Rebalance& r = rebalance(group);
  timers_.cancel(r.join_timer);
  r.initial_delay = false;
  // Dynamic members that did not rejoin in time are gone; static ones keep their place.
  std::vector<std::string> missing;
  for (const auto& [id, m] : group.members()) {
    if (!m.is_awaiting_join() && !m.is_static()) missing.push_back(id);
  }
  for (const std::string& id : missing) {
    Member& m = *group.find(id);
    timers_.cancel(m.session_timer);
    group.fail_parked_requests(m, GroupError::kUnknownMemberId, "");
    group.remove(id);
  }
  if (!missing.empty()) {
    log().info("removed members that did not rejoin: group={} count={}", group.group_id(), missing.size());
  }
  if (!group.maybe_elect_new_joined_leader() && !group.empty()) {
    // Nobody rejoined: wait another round; session timeouts will clear the silent ones.
    log().error("no member rejoined, extending the join phase: group={}", group.group_id());
    return schedule_join_timer(group, group.rebalance_timeout_ms());
  }
  group.init_next_generation(clock_());
  if (group.is(GroupState::kEmpty)) {
    log().info("group is empty: group={} generation={}", group.group_id(), group.generation_id());
    return store_group(group, nullptr, [group_id = group.group_id()](storage::Status status) {
      if (!status.ok()) log().warn("could not store empty group: group={} error={}", group_id, status.to_string());
    });
  }
  log().info("group stabilized: group={} generation={} members={} protocol={}", group.group_id(),
             group.generation_id(), group.size(), group.protocol_name().value_or(""));
  group.for_each_member([&](Member& m) {
    touch_member(group, m);
    const std::string& id = m.member_id();
    if (JoinCallback cb = group.take_join_callback(m)) cb(current_generation(group, id, group.is_leader(id)));
  });
  const int32_t generation_id = group.generation_id();
  timers_.cancel(r.sync_timer);
  r.sync_timer = timers_.schedule(
      clock_() + group.rebalance_timeout_ms(),
      [this, group_id = group.group_id(), incarnation = group.incarnation(), generation_id] {
        on_sync_timer(group_id, incarnation, generation_id);
      });
}

void Membership::remove_member_and_update(Group& group, const std::string& member_id, std::string_view reason) {
  Member* m = group.find(member_id);
  if (m == nullptr) return;
  log().info("removing member: group={} member={} reason={}", group.group_id(), member_id, reason);
  // A parked request must still get an answer: it tells a live client to rejoin.
  group.fail_parked_requests(*m, GroupError::kUnknownMemberId, "");
  timers_.cancel(m->session_timer);
  group.remove(member_id);
  switch (group.state()) {
    case GroupState::kStable:
    case GroupState::kCompletingRebalance:
      return maybe_prepare_rebalance(group, reason);
    case GroupState::kPreparingRebalance:
      return maybe_complete_join(group);
    case GroupState::kEmpty:
    case GroupState::kDead:
      return;
  }
}

void Membership::remove_pending_member(Group& group, const std::string& member_id) {
  std::optional<TimerQueue::Id> expiry = group.remove_pending_member(member_id);
  if (!expiry) return;
  timers_.cancel(*expiry);
  maybe_complete_join(group);
}

// ---------------------------------------------------------------------------------------
// SyncGroup

void Membership::sync_group(SyncGroupArgs args, SyncCallback done) {
  Group* group = groups_.find(args.group_id);
  if (group == nullptr) return done(sync_error(GroupError::kUnknownMemberId));
  if (group->is(GroupState::kDead)) return done(sync_error(GroupError::kCoordinatorNotAvailable));
  if (GroupError e = validate_member(*group, args.member_id, args.group_instance_id); e != GroupError::kNone) {
    return done(sync_error(e));
  }
  if (args.generation_id != group->generation_id()) return done(sync_error(GroupError::kIllegalGeneration));
  if ((args.protocol_type && group->protocol_type() != args.protocol_type) ||
      (args.protocol_name && group->protocol_name() != args.protocol_name)) {
    return done(sync_error(GroupError::kInconsistentGroupProtocol));
  }
  Member& member = *group->find(args.member_id);
  switch (group->state()) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return done(sync_error(GroupError::kUnknownMemberId));
    case GroupState::kPreparingRebalance:
      return done(sync_error(GroupError::kRebalanceInProgress));
    case GroupState::kStable: {
      remove_pending_sync_member(*group, member.member_id());
      SyncGroupResult r;
      r.protocol_type = group->protocol_type();
      r.protocol_name = group->protocol_name();
      r.assignment = member.assignment;
      done(std::move(r));
      return touch_member(*group, member);
    }
    case GroupState::kCompletingRebalance:
      break;
  }
  if (SyncCallback superseded = group->park_sync(member, std::move(done))) {
    superseded(sync_error(GroupError::kRebalanceInProgress));
  }
  remove_pending_sync_member(*group, member.member_id());
  if (!group->is_leader(member.member_id())) return;  // followers wait for the leader's assignment
  // Members the leader left out get an empty assignment; unknown ids are ignored.
  std::map<std::string, std::string> assignments;
  for (const auto& [id, m] : group->members()) assignments[id];
  for (SyncGroupAssignment& a : args.assignments) {
    if (auto it = assignments.find(a.member_id); it != assignments.end()) it->second = std::move(a.assignment);
  }
  log().info("assignment received from leader: group={} generation={} members={}", group->group_id(),
             group->generation_id(), group->size());
  auto stored = std::make_shared<const std::map<std::string, std::string>>(std::move(assignments));
  store_group(*group, stored.get(),
              [this, group_id = group->group_id(), incarnation = group->incarnation(),
               generation_id = group->generation_id(), stored](storage::Status status) {
                on_assignment_stored(group_id, incarnation, generation_id, *stored, status);
              });
}

void Membership::on_assignment_stored(const std::string& group_id, uint64_t incarnation, int32_t generation_id,
                                            const std::map<std::string, std::string>& assignments,
                                            const storage::Status& status) {
  Group* group = groups_.live(group_id, incarnation);
  // Someone joined or left during the write: that generation is over, its answer with it.
  if (group == nullptr || !group->is(GroupState::kCompletingRebalance) || group->generation_id() != generation_id) {
    return;
  }
  if (!status.ok()) {
    log().warn("could not store group assignment: group={} error={}", group_id, status.to_string());
    reset_and_propagate_assignment_error(*group, GroupError::kStorageError);
    return maybe_prepare_rebalance(*group, "assignment could not be stored");
  }
  group->assign(assignments);
  propagate_assignment(*group, GroupError::kNone);
  group->transition_to(GroupState::kStable, clock_());
  ++completed_rebalances_;
}

void Membership::propagate_assignment(Group& group, GroupError error) {
  group.for_each_member([&](Member& m) {
    SyncCallback cb = group.take_sync_callback(m);
    if (!cb) return;
    SyncGroupResult r;
    r.error = error;
    if (error == GroupError::kNone) {
      r.protocol_type = group.protocol_type();
      r.protocol_name = group.protocol_name();
      r.assignment = m.assignment;
    }
    // Its session may have lapsed while it waited; it starts afresh now.
    touch_member(group, m);
    cb(std::move(r));
  });
}

void Membership::reset_and_propagate_assignment_error(Group& group, GroupError error) {
  group.assign({});
  propagate_assignment(group, error);
}

void Membership::remove_pending_sync_member(Group& group, const std::string& member_id) {
  group.remove_pending_sync_member(member_id);
  if (group.pending_sync_members().empty()) timers_.cancel(rebalance(group).sync_timer);
}

// ---------------------------------------------------------------------------------------
// Heartbeat and LeaveGroup

GroupError Membership::heartbeat(const HeartbeatArgs& args) {
  Group* group = groups_.find(args.group_id);
  if (group == nullptr) return GroupError::kUnknownMemberId;
  if (group->is(GroupState::kDead)) return GroupError::kCoordinatorNotAvailable;
  if (GroupError e = validate_member(*group, args.member_id, args.group_instance_id); e != GroupError::kNone) {
    return e;
  }
  if (args.generation_id != group->generation_id()) return GroupError::kIllegalGeneration;
  Member& member = *group->find(args.member_id);
  switch (group->state()) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return GroupError::kUnknownMemberId;
    case GroupState::kPreparingRebalance:
      touch_member(*group, member);
      return GroupError::kRebalanceInProgress;
    case GroupState::kCompletingRebalance:  // a member may heartbeat between its JoinGroup and SyncGroup
    case GroupState::kStable:
      touch_member(*group, member);
      return GroupError::kNone;
  }
  return GroupError::kNone;
}

LeaveGroupResult Membership::leave_group(const LeaveGroupArgs& args) {
  LeaveGroupResult result;
  Group* group = groups_.find(args.group_id);
  if (group != nullptr && group->is(GroupState::kDead)) {
    result.error = GroupError::kCoordinatorNotAvailable;
    return result;
  }
  for (const MemberIdentity& who : args.members) {
    LeaveMemberResult& r = result.members.emplace_back();
    r.member_id = who.member_id;
    r.group_instance_id = who.group_instance_id;
    r.error = GroupError::kUnknownMemberId;
    if (group == nullptr) continue;
    const std::string reason = "left the group: " + who.reason.value_or("no reason given");
    if (who.member_id.empty()) {
      // An administrator removing a static member by instance id alone.
      auto current = who.group_instance_id ? group->static_member_id(*who.group_instance_id) : std::nullopt;
      if (current) {
        remove_member_and_update(*group, *current, reason);
        r.error = GroupError::kNone;
      }
    } else if (group->is_pending_member(who.member_id)) {
      remove_pending_member(*group, who.member_id);
      r.error = GroupError::kNone;
    } else {
      r.error = validate_member(*group, who.member_id, who.group_instance_id);
      if (r.error == GroupError::kNone) remove_member_and_update(*group, who.member_id, reason);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Timers

void Membership::touch_member(Group& group, Member& member) {
  if (timers_.pending(member.session_timer)) {
    timers_.reschedule(member.session_timer, clock_() + member.session_timeout_ms);
  } else {
    arm_member_timer(group, member, member.session_timeout_ms);
  }
}

void Membership::arm_member_timer(Group& group, Member& member, int64_t timeout_ms) {
  timers_.cancel(member.session_timer);
  member.session_timer = timers_.schedule(
      clock_() + timeout_ms,
      [this, group_id = group.group_id(), incarnation = group.incarnation(), member_id = member.member_id()] {
        on_member_timer(group_id, incarnation, member_id);
      });
}

void Membership::on_member_timer(const std::string& group_id, uint64_t incarnation,
                                       const std::string& member_id) {
  Group* group = groups_.live(group_id, incarnation);
  Member* member = group ? group->find(member_id) : nullptr;
  if (member == nullptr) return;
  member->session_timer = TimerQueue::kNone;
  // A member with a parked request is alive: its clock restarts when it is answered.
  // A new member is the exception -- it is only ever waiting, and the timeout was long.
  if (!member->is_new() && (member->is_awaiting_join() || member->is_awaiting_sync())) return;
  remove_member_and_update(*group, member_id, member->is_new() ? "join timeout" : "session timeout");
}

void Membership::on_pending_member_timer(const std::string& group_id, uint64_t incarnation,
                                               const std::string& member_id) {
  Group* group = groups_.live(group_id, incarnation);
  if (group == nullptr || !group->remove_pending_member(member_id)) return;  // its timer has fired: nothing to cancel
  log().info("pending member did not rejoin: group={} member={}", group_id, member_id);
  maybe_complete_join(*group);
}

void Membership::schedule_join_timer(Group& group, int64_t delay_ms) {
  Rebalance& r = rebalance(group);
  timers_.cancel(r.join_timer);
  r.join_timer =
      timers_.schedule(clock_() + delay_ms, [this, group_id = group.group_id(), incarnation = group.incarnation()] {
        on_join_timer(group_id, incarnation);
      });
}

void Membership::on_join_timer(const std::string& group_id, uint64_t incarnation) {
  Group* group = groups_.live(group_id, incarnation);
  if (group == nullptr) return;
  Rebalance& r = rebalance(*group);
  r.join_timer = TimerQueue::kNone;
  if (!group->is(GroupState::kPreparingRebalance)) return;
  if (r.initial_delay && r.new_member_added && r.initial_delay_remaining_ms > 0) {
    // Members are still arriving: wait one more delay, within the rebalance timeout.
    r.new_member_added = false;
    const int32_t delay = std::min(options_.initial_rebalance_delay_ms, r.initial_delay_remaining_ms);
    r.initial_delay_remaining_ms = std::max(r.initial_delay_remaining_ms - delay, 0);
    return schedule_join_timer(*group, delay);
  }
  complete_join(*group);
}

void Membership::on_sync_timer(const std::string& group_id, uint64_t incarnation, int32_t generation_id) {
  Group* group = groups_.live(group_id, incarnation);
  if (group == nullptr) return;
  rebalance(*group).sync_timer = TimerQueue::kNone;
  if (group->generation_id() != generation_id || group->pending_sync_members().empty() ||
      !(group->is(GroupState::kCompletingRebalance) || group->is(GroupState::kStable))) {
    return;
  }
  const std::vector<std::string> silent(group->pending_sync_members().begin(), group->pending_sync_members().end());
  log().info("members did not sync in time: group={} generation={} count={}", group_id, generation_id, silent.size());
  for (const std::string& id : silent) {
    if (Member* m = group->find(id)) {
      timers_.cancel(m->session_timer);
      group->fail_parked_requests(*m, GroupError::kUnknownMemberId, "");
    }
    group->remove(id);
  }
  prepare_rebalance(*group, "members did not sync in time");
}

// ---------------------------------------------------------------------------------------
// What the rest of the coordinator asks of a classic group

GroupError Membership::accept_offset_commit(Group& group, const OffsetCommitArgs& args) {
  if (group.is(GroupState::kDead)) return GroupError::kCoordinatorNotAvailable;
  // Generation -1 on an empty group: an admin client or an assign()-only consumer.
  if (args.generation_id < 0 && group.is(GroupState::kEmpty)) return GroupError::kNone;
  if (args.generation_id >= 0 || !args.member_id.empty() || args.group_instance_id) {
    if (GroupError e = validate_member(group, args.member_id, args.group_instance_id); e != GroupError::kNone) return e;
    if (args.generation_id != group.generation_id()) return GroupError::kIllegalGeneration;
  } else if (!group.is(GroupState::kEmpty)) {
    return GroupError::kUnknownMemberId;  // once the group has members, only they may commit
  }
  switch (group.state()) {
    case GroupState::kCompletingRebalance:
      // It has the new generation but no assignment yet: let it sync first.
      return GroupError::kRebalanceInProgress;
    case GroupState::kStable:
    case GroupState::kPreparingRebalance:
      // Allowed while preparing: its heartbeat will tell it to rejoin.
      if (Member* m = group.find(args.member_id)) touch_member(group, *m);
      return GroupError::kNone;
    case GroupState::kEmpty:
    case GroupState::kDead:
      return GroupError::kNone;
  }
  return GroupError::kNone;
}

GroupError Membership::check_txn_offset_commit(const Group* group, int32_t generation_id, const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id) const {
  const bool identified = generation_id >= 0 || !member_id.empty() || group_instance_id;
  if (group == nullptr) return identified ? GroupError::kUnknownMemberId : GroupError::kNone;
  if (group->is(GroupState::kDead)) return GroupError::kCoordinatorNotAvailable;
  // Unlike OffsetCommit, a non-empty group accepts anonymous transactional commits: the
  // protocol carried no member id before TxnOffsetCommit v3.
  if (!identified) return GroupError::kNone;
  if (GroupError e = validate_member(*group, member_id, group_instance_id); e != GroupError::kNone) return e;
  return generation_id == group->generation_id() ? GroupError::kNone : GroupError::kIllegalGeneration;
}

GroupError Membership::check_offset_delete(const Group& group) {
  if (group.is(GroupState::kDead)) return GroupError::kGroupIdNotFound;
  // A live group that is not a consumer group (its topics unknown) keeps its offsets.
  if (!group.is(GroupState::kEmpty) && !group.is_consumer_group()) return GroupError::kNonEmptyGroup;
  return GroupError::kNone;
}

TopicFilter Membership::topics_in_use(const Group& group) {
  // A live consumer group keeps the offsets of topics it still subscribes to.
  if (group.is(GroupState::kEmpty)) return nullptr;
  return [&group](const std::string& topic) { return group.is_subscribed_to(topic); };
}

OffsetRetention Membership::offset_retention(const Group& group) {
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
    r.in_use = topics_in_use(group);
  }
  return r;
}

DescribedGroup Membership::describe(const Group& group) {
  DescribedGroup d;
  d.group_id = group.group_id();
  d.state = group_state_name(group.state());
  d.protocol_type = group.protocol_type().value_or("");
  const bool stable = group.is(GroupState::kStable);
  if (stable) d.protocol_data = group.protocol_name().value_or("");
  for (const auto& [id, m] : group.members()) {
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

// ---------------------------------------------------------------------------------------
// Start-up, removal, shutdown, persistence

void Membership::restore(const StoredGroup& stored) {
  Group& group = groups_.create(stored.group_id, stored.stable ? GroupState::kStable : GroupState::kEmpty, clock_());
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

void Membership::adopt(const StoredGroup& converted, OffsetBook::Mutations batch, bool rebalance,
                       DurableCallback done) {
  restore(converted);
  batch.push_back({encode_group_key(converted.group_id), encode_group_value(converted), false});
  writer_.write(std::move(batch), [group_id = converted.group_id, done = std::move(done)](storage::Status status) {
    if (!status.ok()) log().warn("downgraded group not stored: group={} error={}", group_id, status.to_string());
    if (done) done(status);
  });
  if (!rebalance) return;
  if (Group* group = groups_.find(converted.group_id)) maybe_prepare_rebalance(*group, "group downgraded from the consumer protocol");
}

void Membership::remove(Group& group, OffsetBook::Mutations& out) {
  group.transition_to(GroupState::kDead, clock_());
  out.push_back({encode_group_key(group.group_id()), std::string(), true});
  if (auto r = rebalances_.find(group.group_id()); r != rebalances_.end()) {
    timers_.cancel(r->second.join_timer);
    timers_.cancel(r->second.sync_timer);
    rebalances_.erase(r);
  }
  group.for_each_member([&](Member& m) { timers_.cancel(m.session_timer); });
  for (const auto& [id, expiry] : group.pending_members()) {
    TimerQueue::Id timer = expiry;
    timers_.cancel(timer);
  }
}

void Membership::shutdown() {
  for (Group* group : groups_.snapshot()) group->fail_all_parked_requests(GroupError::kCoordinatorNotAvailable);
  rebalances_.clear();
}

void Membership::store_group(const Group& group, const std::map<std::string, std::string>* assignments,
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
    const std::string* subscription = group.protocol_name() ? m.metadata_for(*group.protocol_name()) : nullptr;
    const std::string* assignment = &m.assignment;
    if (assignments != nullptr) {
      auto it = assignments->find(id);
      assignment = it == assignments->end() ? nullptr : &it->second;
    }
    stored.members.push_back(StoredMember{
        .member_id = id,
        .group_instance_id = m.group_instance_id(),
        .client_id = m.client_id,
        .client_host = m.client_host,
        .rebalance_timeout_ms = m.rebalance_timeout_ms,
        .session_timeout_ms = m.session_timeout_ms,
        .subscription = subscription ? *subscription : std::string(),
        .assignment = assignment ? *assignment : std::string(),
    });
  }
  OffsetBook::Mutations batch;
  batch.push_back({encode_group_key(group.group_id()), encode_group_value(stored), false});
  writer_.write(std::move(batch), std::move(done));
}

}  // namespace rokka::coordinator
