// GroupCoordinator: every consumer group of the broker and their committed offsets --
// the classic Kafka group protocol (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) plus
// OffsetCommit/OffsetFetch/OffsetDelete, DescribeGroups/ListGroups/DeleteGroups.
//
// The router: it owns the groups (GroupMap), the start-up and shutdown state, the timers
// and the MetaStore writer, checks that the coordinator is serving, and sends each API to
// the part whose job it is -- Membership (the classic protocol and its timers) and
// OffsetBook (committed offsets). What depends on a group's kind (who may commit now,
// which topics it still uses, from when its offsets age, how it is described and
// dropped) it asks of Membership, so a second kind of group can answer the same
// questions beside it.
//
// PURE LOGIC, single-threaded: every method runs on one strand (GroupService provides
// it). Time comes from the injected clock; deadlines live in timers() and fire only
// from run_due_timers(), which the owner calls when next_deadline() is reached. MetaStore
// completions come back through the injected `post` (which must defer to the strand).
//
// Answers: operations that can wait (join_group: until the join phase ends; sync_group:
// until the leader's assignment is durable; commits and deletions: until durable) take a
// callback, called exactly once, possibly before the method returns. The others return
// their answer. Callbacks must not call back into the coordinator synchronously.
//
// Kafka's semantics (GroupCoordinator/GroupMetadata, KIP-345 static membership, KIP-394
// member id required, KIP-814 skip assignment), including start-up: until install() the
// group APIs answer kCoordinatorLoadInProgress -- except Heartbeat, which answers kNone
// (the member learns of any change at its next call), and SyncGroup, which answers
// kRebalanceInProgress (old clients do not expect the load error there).
//
// Durability: committed offsets are acknowledged once durable. A group's generation,
// members and assignment are written when it becomes Stable (the leader's SyncGroup is
// answered after that write) or Empty, so after a restart members carry on with their
// member ids and generation; a rebalance in progress at a crash is forgotten and its
// members rejoin (they get ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/clock.h"
#include "coordinator/consumer_membership.h"
#include "coordinator/coordinator_options.h"
#include "coordinator/durable_writer.h"
#include "coordinator/group.h"
#include "coordinator/group_map.h"
#include "coordinator/group_types.h"
#include "coordinator/membership.h"
#include "coordinator/offset_book.h"
#include "coordinator/state_loader.h"
#include "coordinator/timer_queue.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

class GroupCoordinator {
 public:
  using Clock = coordinator::Clock;  // milliseconds

  GroupCoordinator(CoordinatorOptions options, storage::MetaStore& meta, Clock clock_ms, Post post);
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // ---- start-up and shutdown ----
  bool loaded() const { return loaded_; }
  // Takes the state read by load_coordinator_state() and starts serving.
  void install(LoadedState state);
  // Answers every parked request with kCoordinatorNotAvailable, drops all timers; every
  // later call gets kCoordinatorNotAvailable. Writes in flight still complete.
  void shutdown();

  // ---- membership (Membership) ----
  void join_group(JoinGroupArgs args, JoinCallback done);
  void sync_group(SyncGroupArgs args, SyncCallback done);
  GroupError heartbeat(const HeartbeatArgs& args);
  LeaveGroupResult leave_group(const LeaveGroupArgs& args);

  // ---- the consumer group protocol (ConsumerMembership, KIP-848) ----
  // A group id names one group of one kind. A heartbeat for the id of a classic group
  // with members is GROUP_ID_NOT_FOUND ("not a consumer group"); an empty classic group
  // (offsets only) becomes a consumer group, keeping its offsets. JoinGroup for the id of
  // a consumer group with members is GROUP_ID_NOT_FOUND; an empty one becomes classic.
  void consumer_group_heartbeat(ConsumerGroupHeartbeatArgs args,
                                std::function<void(ConsumerGroupHeartbeatResult)> done);
  DescribedConsumerGroup consumer_group_describe(const std::string& group_id) const;
  // Where partition counts and regex matches come from; set before serving.
  void set_topic_catalog(TopicCatalog catalog) { consumer_.set_catalog(std::move(catalog)); }
  // Each consumer group's session timeout and heartbeat interval (its GROUP configs); set
  // before serving. Unset: the options' values.
  void set_group_timeouts(GroupTimeoutsFn fn) { consumer_.set_group_timeouts(std::move(fn)); }

  // ---- offsets (OffsetBook, with the group's kind deciding who may commit) ----
  void commit_offsets(OffsetCommitArgs args, std::function<void(OffsetCommitResult)> done);
  OffsetFetchResult fetch_offsets(const OffsetFetchArgs& args) const;
  void delete_offsets(OffsetDeleteArgs args, std::function<void(OffsetDeleteResult)> done);
  // A topic was deleted: every group forgets its offsets of it (Kafka does the same), and
  // groups left Empty with no offsets go. `done` runs once that is durable. Before
  // install() the removal is remembered and applied to the loaded offsets.
  void remove_topic_offsets(const std::string& topic, DurableCallback done);
  // Tells install() which topics exist: loaded offsets of any other topic are removed
  // durably (a crash after a topic's deletion but before its offsets' left them behind).
  // Unset, every topic counts as existing. Set before install().
  void set_topic_exists(std::function<bool(const std::string& topic)> exists) { topic_exists_ = std::move(exists); }

  // ---- transactional offsets (the TransactionCoordinator, on the same strand) ----
  // A transaction stages offsets with the transaction coordinator; the group coordinator
  // only validates the committer, reports staged partitions as unstable, and commits them
  // when the transaction commits.
  //
  // Kafka's TxnOffsetCommit checks: a generation, member id or instance id given must
  // match the group's member and generation; without them anyone may commit.
  GroupError check_txn_offset_commit(const std::string& group_id, int32_t generation_id, const std::string& member_id,
                                     const std::optional<std::string>& group_instance_id) const;
  // OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT for a staged partition
  // until it is released (once per stage).
  void stage_txn_offsets(const std::string& group_id, const std::vector<TopicPartition>& partitions) {
    offsets_.stage_txn(group_id, partitions);
  }
  void release_txn_offsets(const std::string& group_id, const std::vector<TopicPartition>& partitions) {
    offsets_.release_txn(group_id, partitions);
  }
  // Commits a transaction's offsets (creating the group if needed); `done` once durable.
  void commit_txn_offsets(const std::string& group_id, std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
                          DurableCallback done);
  // Runs `fn` once the state is loaded: now if it is, else right after install().
  void when_loaded(std::function<void()> fn);
  bool has_txn_staged(const std::string& group_id, const TopicPartition& tp) const {
    return offsets_.has_txn_staged(group_id, tp);
  }

  // ---- administration ----
  DescribedGroup describe_group(const std::string& group_id) const;
  ListGroupsResult list_groups(const ListGroupsArgs& args) const;
  void delete_groups(std::vector<std::string> group_ids, std::function<void(DeleteGroupsResult)> done);

  // ---- timers ----
  std::optional<int64_t> next_deadline() const { return timers_.next_deadline(); }
  // Fires every timer due at clock_ms(); returns how many fired.
  size_t run_due_timers() { return timers_.run_due(clock_()); }
  const TimerQueue& timers() const { return timers_; }

  // ---- introspection (tests, metrics) ----
  const Group* find_group(std::string_view group_id) const { return groups_.find(group_id); }
  const ConsumerGroup* find_consumer_group(std::string_view group_id) const { return consumer_.find(group_id); }
  // How many times a consumer group's record was encoded (tests, benches).
  uint64_t consumer_records_encoded() const { return consumer_.records_encoded(); }
  size_t group_count() const { return groups_.size() + consumer_.size(); }
  uint64_t completed_rebalances() const { return membership_.completed_rebalances(); }  // Membership's
  const OffsetBook& offsets() const { return offsets_; }

 private:
  // kNone while serving; else what every group API answers (see above for Heartbeat's and
  // SyncGroup's exceptions while loading).
  GroupError check_group_status(const std::string& group_id, bool require_id) const;
  void schedule_offset_expiry();
  void expire_offsets();
  // Drops an Empty group with no offsets and no commit in flight (Kafka: -> Dead).
  bool maybe_remove_empty_group(Group& group, OffsetBook::Mutations& out);
  // The group becomes Dead and goes; its record's tombstone is appended to `out`.
  void drop_group(Group& group, OffsetBook::Mutations& out);
  // The same for a consumer group: an empty one with no offsets goes.
  bool maybe_remove_empty_consumer_group(const std::string& group_id, OffsetBook::Mutations& out);
  // A group id changes kind: the other kind's empty group goes (its offsets stay).
  void drop_for_kind_change(const std::string& group_id, bool classic);

  CoordinatorOptions options_;
  Clock clock_;
  DurableWriter writer_;
  TimerQueue timers_;
  GroupMap groups_;
  OffsetBook offsets_;
  Membership membership_;
  ConsumerMembership consumer_;
  bool loaded_ = false;
  bool shut_down_ = false;
  TimerQueue::Id expiry_timer_ = TimerQueue::kNone;
  std::vector<std::string> topics_deleted_while_loading_;
  std::function<bool(const std::string&)> topic_exists_;
  std::vector<std::function<void()>> on_loaded_;
};

}  // namespace rokka::coordinator
