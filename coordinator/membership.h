// Membership: the classic group protocol -- JoinGroup, SyncGroup, Heartbeat and LeaveGroup,
// with static members (KIP-345), member ids handed out first (KIP-394) and skipped
// assignments (KIP-814) -- and its timers: each member's session (or, while its first
// JoinGroup is parked, the new-member join timeout), the join phase (the rebalance
// timeout, group.initial.rebalance.delay.ms for a group starting from Empty) and the
// SyncGroup deadline. It writes a classic group's record ("g/", coordinator/meta_records.h)
// when the group becomes Stable or Empty, and restores it at start-up.
//
// It also answers what the rest of the coordinator asks of a classic group: may this
// committer commit offsets now (a member's commit counts as its heartbeat), which topics
// does the group still use, from when do its offsets age, how DescribeGroups shows it, and
// how it is dropped.
//
// GroupCoordinator calls it only while serving (installed, not shut down); the groups
// live in the GroupMap it shares. Single-threaded like GroupCoordinator: the strand, the
// injected clock, timers in the shared TimerQueue, every callback called exactly once
// and never re-entering.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/clock.h"
#include "coordinator/coordinator_options.h"
#include "coordinator/durable_writer.h"
#include "coordinator/group.h"
#include "coordinator/group_map.h"
#include "coordinator/group_types.h"
#include "coordinator/meta_records.h"
#include "coordinator/offset_book.h"
#include "coordinator/timer_queue.h"

namespace rokka::coordinator {

class Membership {
 public:
  // All must outlive the Membership.
  Membership(const CoordinatorOptions& options, const Clock& clock, DurableWriter& writer, TimerQueue& timers,
             GroupMap& groups);
  Membership(const Membership&) = delete;
  Membership& operator=(const Membership&) = delete;

  // ---- the classic protocol (answers as GroupCoordinator documents them) ----
  void join_group(JoinGroupArgs args, JoinCallback done);
  void sync_group(SyncGroupArgs args, SyncCallback done);
  GroupError heartbeat(const HeartbeatArgs& args);
  LeaveGroupResult leave_group(const LeaveGroupArgs& args);

  // ---- what the rest of the coordinator asks of a classic group ----
  // OffsetCommit: whether `args`' committer may commit to `group` now. A member's commit
  // restarts its session, as a heartbeat would.
  GroupError accept_offset_commit(Group& group, const OffsetCommitArgs& args);
  // TxnOffsetCommit: a generation, member id or instance id given must match; without
  // them anyone may commit. `group` is nullptr for a group not known here.
  GroupError check_txn_offset_commit(const Group* group, int32_t generation_id, const std::string& member_id,
                                     const std::optional<std::string>& group_instance_id) const;
  // OffsetDelete: kNone, or why the group's offsets may not be deleted now.
  static GroupError check_offset_delete(const Group& group);
  // Topics whose offsets the group keeps (OffsetDelete refuses them; expiry spares them).
  static TopicFilter topics_in_use(const Group& group);
  // From when the group's committed offsets age.
  static OffsetRetention offset_retention(const Group& group);
  static DescribedGroup describe(const Group& group);
  // Rebalances completed since start: a group went CompletingRebalance -> Stable with the
  // leader's assignment stored (Kafka's group-completed-rebalance-count). Not counted: a
  // rebalance abandoned before that (a member joined or left meanwhile, the store failed).
  uint64_t completed_rebalances() const { return completed_rebalances_; }

  // ---- start-up, removal, shutdown ----
  // Makes a group from its stored record; its members get one session to come back.
  void restore(const StoredGroup& stored);
  // A consumer group handed back to the classic protocol (group_migration.h): made as if
  // restored, its record written (with `batch`, the consumer group's removal, in one
  // write), and, if `rebalance`, a rebalance started so its members rejoin as classic
  // members (a member left); without, the group stays Stable at its generation (a static
  // member was replaced by its classic restart, as Kafka's convertToClassicGroup does).
  // `done` once the write is durable.
  void adopt(const StoredGroup& converted, OffsetBook::Mutations batch, bool rebalance = true,
             DurableCallback done = nullptr);
  // The group becomes Dead: its timers are cancelled and its record's tombstone is
  // appended to `out`. The caller erases it from the GroupMap.
  void remove(Group& group, OffsetBook::Mutations& out);
  // Answers every parked JoinGroup and SyncGroup with kCoordinatorNotAvailable and
  // forgets the rebalance timing (the caller drops the timers themselves).
  void shutdown();

 private:
  // A group's rebalance timing: its join-phase and sync-phase deadlines and the
  // group.initial.rebalance.delay.ms bookkeeping, kept here by group id.
  struct Rebalance {
    TimerQueue::Id join_timer = TimerQueue::kNone;  // end of the join phase
    TimerQueue::Id sync_timer = TimerQueue::kNone;  // members must SyncGroup by then
    bool initial_delay = false;                     // join_timer is a group.initial.rebalance.delay step
    int32_t initial_delay_remaining_ms = 0;         // what the rebalance timeout still allows
    bool new_member_added = false;                  // a member joined during the initial delay
  };
  // What a static member had before it rejoined, to put back if the new id cannot be stored.
  struct StaticRejoinUndo {
    std::string member_id;
    std::string group_instance_id;
    std::vector<Protocol> protocols;
    int32_t rebalance_timeout_ms = 0;
    int32_t session_timeout_ms = 0;
    std::string client_id;
    std::string client_host;
  };

  Rebalance& rebalance(const Group& group) { return rebalances_[group.group_id()]; }
  std::string new_member_id(std::string_view prefix);
  GroupError validate_member(const Group& group, const std::string& member_id,
                             const std::optional<std::string>& group_instance_id) const;

  // JoinGroup
  bool accept_joining_member(const Group& group, const std::string& member_id) const;
  void join_new_member(Group& group, JoinGroupArgs& args, JoinCallback& done);
  void join_current_member(Group& group, JoinGroupArgs& args, JoinCallback& done);
  void add_member_and_rebalance(Group& group, JoinGroupArgs& args, std::string member_id, JoinCallback done);
  void update_member_and_rebalance(Group& group, Member& member, JoinGroupArgs& args, JoinCallback done);
  void rejoin_static_member(Group& group, JoinGroupArgs& args, const std::string& old_member_id,
                            std::string new_member_id, JoinCallback done);
  void on_static_rejoin_stored(const std::string& group_id, uint64_t incarnation, const std::string& member_id,
                               uint64_t ticket, const StaticRejoinUndo& previous, const std::string& old_leader,
                               int16_t api_version, const storage::Status& status);
  JoinGroupResult current_generation(const Group& group, const std::string& member_id, bool with_members) const;

  // Rebalance
  void maybe_prepare_rebalance(Group& group, std::string_view reason);
  void prepare_rebalance(Group& group, std::string_view reason);
  void maybe_complete_join(Group& group);
  void complete_join(Group& group);
  void remove_member_and_update(Group& group, const std::string& member_id, std::string_view reason);
  void remove_pending_member(Group& group, const std::string& member_id);

  // SyncGroup
  void remove_pending_sync_member(Group& group, const std::string& member_id);
  void on_assignment_stored(const std::string& group_id, uint64_t incarnation, int32_t generation_id,
                            const std::map<std::string, std::string>& assignments, const storage::Status& status);
  void propagate_assignment(Group& group, GroupError error);
  void reset_and_propagate_assignment_error(Group& group, GroupError error);

  // Timers
  void touch_member(Group& group, Member& member);  // heartbeat received: now + session timeout
  void arm_member_timer(Group& group, Member& member, int64_t timeout_ms);
  void on_member_timer(const std::string& group_id, uint64_t incarnation, const std::string& member_id);
  void on_pending_member_timer(const std::string& group_id, uint64_t incarnation, const std::string& member_id);
  void schedule_join_timer(Group& group, int64_t delay_ms);
  void on_join_timer(const std::string& group_id, uint64_t incarnation);
  void on_sync_timer(const std::string& group_id, uint64_t incarnation, int32_t generation_id);

  // Persistence: the group's record as of now, with `assignments` if given (else the
  // members' own).
  void store_group(const Group& group, const std::map<std::string, std::string>* assignments, DurableCallback done);

  const CoordinatorOptions& options_;
  const Clock& clock_;
  DurableWriter& writer_;
  TimerQueue& timers_;
  GroupMap& groups_;
  std::unordered_map<std::string, Rebalance> rebalances_;
  uint64_t completed_rebalances_ = 0;
};

}  // namespace rokka::coordinator
