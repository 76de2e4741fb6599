// Group: one consumer group of the classic Kafka group protocol -- its state machine,
// members, generation, selected protocol and leader. It keeps its own invariants (vote
// counts, the static-member map, how many members have a JoinGroup parked, who still owes
// a SyncGroup) and hands out nothing they rest on: every edit is a named method. Timers,
// persistence and the order of events belong to Membership.
//
// States and the states each may be entered from (the table kValidPrevious in group.cc;
// transition_to aborts on any other: a wrong transition is a coordinator bug, never a
// client's doing):
//   Empty               <- PreparingRebalance                      (no members left)
//   PreparingRebalance  <- Empty, Stable, CompletingRebalance      (join/leave/failure)
//   CompletingRebalance <- PreparingRebalance                      (join phase done)
//   Stable              <- CompletingRebalance                     (leader's assignment stored)
//   Dead                <- any                                     (deleted / expired)
// A group loaded at start-up begins in Stable or Empty.
//
// Not thread-safe: lives on the coordinator's strand.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/group_types.h"
#include "coordinator/timer_queue.h"

namespace rokka::coordinator {

enum class GroupState : uint8_t { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };

// Kafka's names: "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead".
std::string_view group_state_name(GroupState state);
// Case-insensitive inverse of group_state_name (ListGroups' states filter).
std::optional<GroupState> parse_group_state(std::string_view name);

using JoinCallback = std::function<void(JoinGroupResult)>;
using SyncCallback = std::function<void(SyncGroupResult)>;

// One member of a classic group. What the group's invariants rest on -- the member's ids,
// its protocols, its parked requests and whether it is new -- only Group changes; the
// public fields are the caller's to edit.
class Member {
 public:
  Member(std::string member_id, std::optional<std::string> group_instance_id, std::vector<Protocol> protocols)
      : member_id_(std::move(member_id)),
        group_instance_id_(std::move(group_instance_id)),
        protocols_(std::move(protocols)) {}

  const std::string& member_id() const { return member_id_; }
  const std::optional<std::string>& group_instance_id() const { return group_instance_id_; }
  const std::vector<Protocol>& protocols() const { return protocols_; }  // the member's preference order
  bool is_static() const { return group_instance_id_.has_value(); }
  // Joined but not yet answered: such a member cannot heartbeat, so only the (long)
  // new-member join timeout can expire it. Cleared when the join phase ends.
  bool is_new() const { return is_new_; }
  // Bumped on every parked JoinGroup, so a late completion can tell its request from a newer one.
  uint64_t join_ticket() const { return join_ticket_; }
  bool is_awaiting_join() const { return static_cast<bool>(awaiting_join_); }
  bool is_awaiting_sync() const { return static_cast<bool>(awaiting_sync_); }
  // This member's metadata for `protocol`, or nullptr if it does not support it.
  const std::string* metadata_for(std::string_view protocol) const;
  // Same protocols, same order, same metadata.
  bool matches(const std::vector<Protocol>& other) const { return protocols_ == other; }

  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string protocol_type;
  std::string assignment;                            // bytes, from the leader's last SyncGroup
  TimerQueue::Id session_timer = TimerQueue::kNone;  // the caller's deadline for this member

 private:
  friend class Group;
  std::string member_id_;
  std::optional<std::string> group_instance_id_;
  std::vector<Protocol> protocols_;
  bool is_new_ = false;
  uint64_t join_ticket_ = 0;
  JoinCallback awaiting_join_;  // a parked JoinGroup, if any
  SyncCallback awaiting_sync_;  // a parked SyncGroup, if any
};

class Group {
 public:
  // `incarnation` tells apart two groups of the same name, one deleted and one new.
  Group(std::string group_id, GroupState initial, int64_t now_ms, uint64_t incarnation);

  const std::string& group_id() const { return group_id_; }
  uint64_t incarnation() const { return incarnation_; }
  GroupState state() const { return state_; }
  bool is(GroupState s) const { return state_ == s; }
  // When the state last changed; -1 if unknown (a group known only from committed offsets).
  int64_t state_timestamp_ms() const { return state_timestamp_ms_; }
  int32_t generation_id() const { return generation_id_; }
  const std::optional<std::string>& protocol_type() const { return protocol_type_; }
  const std::optional<std::string>& protocol_name() const { return protocol_name_; }
  const std::optional<std::string>& leader_id() const { return leader_id_; }
  bool is_leader(std::string_view member_id) const { return leader_id_ && *leader_id_ == member_id; }
  bool is_consumer_group() const { return protocol_type_ == "consumer"; }

  // ---- state machine ----
  bool can_transition_to(GroupState next) const;
  void transition_to(GroupState next, int64_t now_ms);  // aborts on a transition not listed above
  bool can_rebalance() const { return can_transition_to(GroupState::kPreparingRebalance); }
  // Starts a join phase: PreparingRebalance, and nobody owes a SyncGroup any more.
  void start_rebalance(int64_t now_ms);
  // Ends the join phase: generation + 1, protocol chosen, CompletingRebalance (or Empty);
  // no member is new any more, and every member owes a SyncGroup.
  void init_next_generation(int64_t now_ms);

  // ---- members ----
  size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  bool has(std::string_view member_id) const { return members_.count(std::string(member_id)) != 0; }
  Member* find(std::string_view member_id);
  const Member* find(std::string_view member_id) const;
  const std::map<std::string, Member>& members() const { return members_; }
  // Calls fn(Member&) for every member, in id order. `fn` may edit the member's public
  // fields; it must not add or remove members.
  template <typename Fn>
  void for_each_member(Fn&& fn) {
    for (auto& [id, m] : members_) fn(m);
  }
  std::optional<std::string> static_member_id(std::string_view group_instance_id) const;
  size_t num_awaiting_join() const { return num_awaiting_join_; }

  // Whether a member of `protocol_type` offering `protocols` may join: an empty group takes
  // any non-empty offer; otherwise the type must match and one protocol must be one that
  // every member supports.
  bool supports_protocols(std::string_view protocol_type, const std::vector<Protocol>& protocols) const;
  // Adds a member (it becomes leader if there is none) with its JoinGroup parked; with a
  // parked JoinGroup it is new (see Member::is_new).
  // REQUIRES: supports_protocols(member); no member with its id or instance id.
  Member& add(Member member, JoinCallback join);
  // Loads a member as persisted (no parked request).
  Member& restore(Member member);
  // Removes a member, a pending member or both. If it led, the first remaining member leads.
  void remove(const std::string& member_id);
  // A known member rejoins with (possibly new) protocols and timeouts; `join` is parked
  // (a previous parked JoinGroup is handed back to be answered by the caller).
  JoinCallback update_member(Member& member, std::vector<Protocol> protocols, int32_t rebalance_timeout_ms,
                             int32_t session_timeout_ms, JoinCallback join);
  // The parked JoinGroup of `member`, removed (empty function if none).
  JoinCallback take_join_callback(Member& member);
  // Parks the member's SyncGroup; returns the one parked before, if any, to be answered.
  SyncCallback park_sync(Member& member, SyncCallback sync);
  // The parked SyncGroup of `member`, removed (empty function if none).
  SyncCallback take_sync_callback(Member& member);
  // Answers the member's parked JoinGroup and SyncGroup, if any, with `error`; the
  // JoinGroup answer names `join_member_id`.
  void fail_parked_requests(Member& member, GroupError error, std::string join_member_id);
  // The same for every member, each JoinGroup answer naming the member's own id.
  void fail_all_parked_requests(GroupError error);
  // Gives a static member's slot a new member id, keeping its assignment. Parked requests
  // of the old id are answered FENCED_INSTANCE_ID.
  Member& replace_static_member(const std::string& group_instance_id, const std::string& old_member_id,
                                const std::string& new_member_id);
  // Every member's assignment becomes its entry in `assignments`, or empty if it has none.
  void assign(const std::map<std::string, std::string>& assignments);

  bool has_all_members_joined() const { return num_awaiting_join_ == members_.size() && pending_members_.empty(); }
  // Keeps the leader if it rejoined, else picks a member that did. False if none did.
  bool maybe_elect_new_joined_leader();
  // The protocol all members support that most members prefer (ties: the leader's order).
  // REQUIRES: !empty().
  std::string select_protocol() const;
  // The largest rebalance timeout of the members: how long the join phase may take.
  int32_t rebalance_timeout_ms() const;
  // Every member with its metadata for the selected protocol (the leader's JoinGroup reply).
  std::vector<JoinGroupMember> current_member_metadata() const;
  // For a group restored from storage.
  void restore_generation(int32_t generation_id, std::optional<std::string> protocol_type,
                          std::optional<std::string> protocol_name, std::optional<std::string> leader_id,
                          int64_t state_timestamp_ms);

  // ---- members that were given an id with MEMBER_ID_REQUIRED and have not rejoined ----
  // Each with the caller's deadline for its return.
  void add_pending_member(const std::string& member_id, TimerQueue::Id expiry);
  bool is_pending_member(std::string_view member_id) const {
    return pending_members_.count(std::string(member_id)) != 0;
  }
  // Forgets a pending member; returns its deadline (nullopt if it was not pending).
  std::optional<TimerQueue::Id> remove_pending_member(const std::string& member_id);
  const std::map<std::string, TimerQueue::Id>& pending_members() const { return pending_members_; }

  // ---- members that got their JoinGroup answer but have not sent SyncGroup ----
  const std::set<std::string>& pending_sync_members() const { return pending_sync_members_; }
  void remove_pending_sync_member(const std::string& member_id) { pending_sync_members_.erase(member_id); }

  // Topics the members subscribe to, parsed from consumer-protocol metadata at each new
  // generation; nullopt if not a consumer group or any metadata did not parse.
  const std::optional<std::set<std::string>>& subscribed_topics() const { return subscribed_topics_; }
  bool is_subscribed_to(const std::string& topic) const {
    return subscribed_topics_ && subscribed_topics_->count(topic) != 0;
  }

 private:
  void park_join(Member& member, JoinCallback join);
  void add_votes(const Member& member, int delta);
  bool is_candidate(const std::string& protocol) const;  // every member supports it
  void compute_subscribed_topics();

  std::string group_id_;
  uint64_t incarnation_;
  GroupState state_;
  int64_t state_timestamp_ms_;
  int32_t generation_id_ = 0;
  std::optional<std::string> protocol_type_;
  std::optional<std::string> protocol_name_;
  std::optional<std::string> leader_id_;
  std::map<std::string, Member> members_;                      // by member id
  std::unordered_map<std::string, std::string> static_members_;  // instance id -> member id
  std::map<std::string, TimerQueue::Id> pending_members_;
  std::set<std::string> pending_sync_members_;                 // members of the current generation only
  std::unordered_map<std::string, int> protocol_votes_;        // protocol -> members supporting it
  size_t num_awaiting_join_ = 0;
  std::optional<std::set<std::string>> subscribed_topics_;
};

}  // namespace rokka::coordinator
