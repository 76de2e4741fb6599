// Group: one consumer group of the classic Kafka group protocol -- its state machine,
// members, generation, selected protocol and leader. It keeps its own invariants (vote
// counts, the static-member map, how many members have a JoinGroup parked) and nothing
// else: timers, persistence and the order of events belong to GroupCoordinator.
//
// States and the transitions allowed into each (checked by transition_to, which aborts
// on any other: a wrong transition is a coordinator bug, never a client's doing):
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

struct Member {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string protocol_type;
  std::vector<Protocol> protocols;  // the member's preference order
  std::string assignment;           // bytes, from the leader's last SyncGroup
  SyncCallback awaiting_sync;       // a parked SyncGroup, if any
  // Joined but not yet answered: such a member cannot heartbeat, so only the (long)
  // new-member join timeout can expire it.
  bool is_new = false;
  uint64_t join_ticket = 0;         // bumped on every parked JoinGroup (see GroupCoordinator)
  TimerQueue::Id session_timer = TimerQueue::kNone;

  bool is_static() const { return group_instance_id.has_value(); }
  bool is_awaiting_join() const { return static_cast<bool>(awaiting_join_); }
  bool is_awaiting_sync() const { return static_cast<bool>(awaiting_sync); }
  // This member's metadata for `protocol`, or nullptr if it does not support it.
  const std::string* metadata_for(std::string_view protocol) const;
  // Same protocols, same order, same metadata.
  bool matches(const std::vector<Protocol>& other) const { return protocols == other; }

 private:
  friend class Group;               // keeps Group's count of parked joins exact
  JoinCallback awaiting_join_;      // a parked JoinGroup, if any
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

  // ---- members ----
  size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  bool has(std::string_view member_id) const { return members_.count(std::string(member_id)) != 0; }
  Member* find(std::string_view member_id);
  const Member* find(std::string_view member_id) const;
  std::map<std::string, Member>& members() { return members_; }
  const std::map<std::string, Member>& members() const { return members_; }
  std::optional<std::string> static_member_id(std::string_view group_instance_id) const;
  size_t num_awaiting_join() const { return num_awaiting_join_; }

  // Whether a member of `protocol_type` offering `protocols` may join: an empty group takes
  // any non-empty offer; otherwise the type must match and one protocol must be one that
  // every member supports.
  bool supports_protocols(std::string_view protocol_type, const std::vector<Protocol>& protocols) const;
  // Adds a member (it becomes leader if there is none) with its JoinGroup parked.
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
  // Answers the member's parked JoinGroup and SyncGroup, if any, with `error`; the
  // JoinGroup answer names `join_member_id`.
  void fail_parked_requests(Member& member, GroupError error, std::string join_member_id);
  // Gives a static member's slot a new member id, keeping its assignment. Parked requests
  // of the old id are answered FENCED_INSTANCE_ID.
  Member& replace_static_member(const std::string& group_instance_id, const std::string& old_member_id,
                                const std::string& new_member_id);

  bool has_all_members_joined() const { return num_awaiting_join_ == members_.size() && pending_members_.empty(); }
  // Keeps the leader if it rejoined, else picks a member that did. False if none did.
  bool maybe_elect_new_joined_leader();
  // The protocol all members support that most members prefer (ties: the leader's order).
  // REQUIRES: !empty().
  std::string select_protocol() const;
  // Ends the join phase: generation + 1, protocol chosen, CompletingRebalance (or Empty).
  void init_next_generation(int64_t now_ms);
  // The largest rebalance timeout of the members: how long the join phase may take.
  int32_t rebalance_timeout_ms() const;
  // Every member with its metadata for the selected protocol (the leader's JoinGroup reply).
  std::vector<JoinGroupMember> current_member_metadata() const;
  // For a group restored from storage.
  void restore_generation(int32_t generation_id, std::optional<std::string> protocol_type,
                          std::optional<std::string> protocol_name, std::optional<std::string> leader_id,
                          int64_t state_timestamp_ms);

  // ---- members that were given an id with MEMBER_ID_REQUIRED and have not rejoined ----
  void add_pending_member(const std::string& member_id, TimerQueue::Id expiry);
  bool is_pending_member(std::string_view member_id) const { return pending_members_.count(std::string(member_id)) != 0; }
  std::map<std::string, TimerQueue::Id>& pending_members() { return pending_members_; }

  // ---- members that got their JoinGroup answer but have not sent SyncGroup ----
  std::set<std::string>& pending_sync_members() { return pending_sync_members_; }

  // Topics the members subscribe to, parsed from consumer-protocol metadata at each new
  // generation; nullopt if not a consumer group or any metadata did not parse.
  const std::optional<std::set<std::string>>& subscribed_topics() const { return subscribed_topics_; }
  bool is_subscribed_to(const std::string& topic) const {
    return subscribed_topics_ && subscribed_topics_->count(topic) != 0;
  }

  // ---- rebalance bookkeeping, kept for GroupCoordinator ----
  struct Rebalance {
    TimerQueue::Id join_timer = TimerQueue::kNone;  // end of the join phase
    TimerQueue::Id sync_timer = TimerQueue::kNone;  // members must SyncGroup by then
    bool initial_delay = false;                     // join_timer is a group.initial.rebalance.delay step
    int32_t initial_delay_remaining_ms = 0;         // what the rebalance timeout still allows
    bool new_member_added = false;                  // a member joined during the initial delay
  };
  Rebalance& rebalance() { return rebalance_; }

 private:
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
  std::set<std::string> pending_sync_members_;
  std::unordered_map<std::string, int> protocol_votes_;        // protocol -> members supporting it
  size_t num_awaiting_join_ = 0;
  std::optional<std::set<std::string>> subscribed_topics_;
  Rebalance rebalance_;
};

}  // namespace rokka::coordinator
