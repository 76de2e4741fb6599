// ConsumerMembership: the consumer group protocol (KIP-848) on the coordinator's strand --
// ConsumerGroupHeartbeat and ConsumerGroupDescribe over the groups of that kind, each a
// ConsumerGroup (pure state, consumer_group.h), plus what Membership does for classic
// groups: timers, durability, and the answers the rest of the coordinator asks of a group
// (may this committer commit, which topics are in use, from when do offsets age, how is
// the group described, listed and dropped).
//
// Timers (the shared TimerQueue, the injected clock):
//  - session: every heartbeat restarts the member's group.consumer.session.timeout.ms;
//    a member that misses it is removed and its partitions go to the others;
//  - revocation: a member asked to give partitions up has its rebalance timeout to say
//    it did; one that does not is removed, so the partitions it holds can move.
//
// Durability: after each heartbeat the group's record ("k/", meta_records.h) is written if
// anything it holds changed, and the heartbeat is answered once that is durable, so what
// a member was told survives kill -9. Whether it changed is the group's revision(): a
// steady heartbeat encodes nothing (bench/consumer_heartbeat_bench.cc). At start-up every member gets one session to come
// back; its next heartbeat carries on at its epoch (no rebalance).
//
// Classic members (KIP-848's migration): a consumer group may hold members that speak the
// classic protocol, as after an online upgrade; their JoinGroup, SyncGroup, Heartbeat and
// LeaveGroup are served here as Kafka's classicGroup*ToConsumerGroup do. A JoinGroup moves
// the member toward its target and answers its epoch as the generation (no leader, no
// member list); SyncGroup answers its assignment in the consumer protocol; Heartbeat
// answers REBALANCE_IN_PROGRESS while the member must rejoin to move on. Their session is
// the one their JoinGroup asked for; one told to rejoin, or that joined, has its rebalance
// timeout to send the next JoinGroup or SyncGroup, else it is removed. When the last
// consumer-protocol member leaves and classic members remain, the group is handed back to
// the classic protocol (set_downgrade), as group.consumer.migration.policy allows; so it is,
// Stable and without a rebalance, when a static member's classic restart replaces the last
// consumer-protocol member. One LeaveGroup moves the group epoch once, however many
// members it names.
//
// Topics come from the injected TopicCatalog: partition counts and partition racks for the
// assignor (racks only asked when a member has a RackId), and the
// topics a regex subscription matches (only those the member may describe), resolved on
// the group's next heartbeat after a regex first appears (the one bringing it gets the
// member's named topics only, as Kafka's asynchronous resolution answers) and again at
// most every consumer_regex_refresh_ms on a heartbeat.
//
// Single-threaded like GroupCoordinator, which calls it only while serving.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/clock.h"
#include "coordinator/consumer_group.h"
#include "coordinator/coordinator_options.h"
#include "coordinator/durable_writer.h"
#include "coordinator/group.h"
#include "coordinator/group_types.h"
#include "coordinator/meta_records.h"
#include "coordinator/offset_book.h"
#include "coordinator/timer_queue.h"

namespace rokka::coordinator {

inline constexpr std::string_view kConsumerGroupType = "consumer";

// What the coordinator knows of topics, from the broker. Both run on the strand.
struct TopicCatalog {
  PartitionCountFn partition_count;  // 0: no such topic
  // The racks of each partition of a topic (its broker's broker.rack), for rack-aware
  // assignment; unset or empty: not known.
  PartitionRacksFn partition_racks;
  // The topics whose whole name `regex` matches (the caller checked it compiles).
  std::function<std::vector<std::string>(const std::string& regex)> match;
};

// One group's timeouts: the broker's group.consumer.* values unless the group's own
// configs (GROUP config resources) override them.
struct ConsumerGroupTimeouts {
  int32_t session_timeout_ms = 0;
  int32_t heartbeat_interval_ms = 0;
};
using GroupTimeoutsFn = std::function<ConsumerGroupTimeouts(const std::string& group_id)>;

struct ConsumerGroupHeartbeatArgs {
  std::string group_id;
  int16_t api_version = 0;
  ConsumerHeartbeat heartbeat;
  // Whether the member may describe a topic (the broker's ACLs): a regex resolved on
  // this heartbeat matches only those, as in Kafka 4 (KAFKA-18813). Unset: every topic.
  std::function<bool(const std::string& topic)> may_describe;
};

struct ConsumerGroupHeartbeatResult {
  GroupError error = GroupError::kNone;
  std::string message;
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<TopicPartitionsMap> assignment;  // set when it changed
};

// ConsumerGroupDescribe (69), one group.
struct DescribedConsumerMember {
  ConsumerMember member;        // as the coordinator holds it
  TopicPartitionsMap target;    // its target assignment
};
struct DescribedConsumerGroup {
  GroupError error = GroupError::kNone;
  std::string message;
  std::string group_id;
  std::string state;  // "empty", "reconciling", "stable", "dead" (Kafka's, lower case)
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor_name;
  std::vector<DescribedConsumerMember> members;
};

class ConsumerMembership {
 public:
  ConsumerMembership(const CoordinatorOptions& options, const Clock& clock, DurableWriter& writer,
                     TimerQueue& timers);
  ConsumerMembership(const ConsumerMembership&) = delete;
  ConsumerMembership& operator=(const ConsumerMembership&) = delete;

  void set_catalog(TopicCatalog catalog) { catalog_ = std::move(catalog); }
  // Unset: every group has the options' timeouts. Runs on the strand.
  void set_group_timeouts(GroupTimeoutsFn fn) { group_timeouts_ = std::move(fn); }

  // ConsumerGroupHeartbeat for a group that is, or is to become, a consumer group (the
  // coordinator has checked no classic group with members holds the id). `done` once the
  // group's record is durable, or at once when nothing it keeps changed.
  // `first`: mutations written in the same batch as the group's record (an upgrade's
  // tombstone of the classic group's record).
  void heartbeat(ConsumerGroupHeartbeatArgs args, std::function<void(ConsumerGroupHeartbeatResult)> done,
                 OffsetBook::Mutations first = {});

  // ---- classic members of a consumer group (see above) ----
  // REQUIRES (join): the group exists and has members. The others answer for any group of
  // this kind (UNKNOWN_MEMBER_ID for a member it does not hold).
  void classic_join(JoinGroupArgs args, JoinCallback done);
  void classic_sync(SyncGroupArgs args, SyncCallback done);
  GroupError classic_heartbeat(const HeartbeatArgs& args);
  LeaveGroupResult classic_leave(const LeaveGroupArgs& args);

  // ---- migration (group_migration.h) ----
  // An upgraded classic group: it becomes a consumer group here; its record is written by
  // the heartbeat that caused the upgrade. Its members get their classic sessions.
  void adopt(ConsumerGroupSnapshot converted);
  // Called with the classic group to make, and the mutations that drop this group's
  // record, when a consumer group is to become classic again: `rebalance` when a member
  // left (its members rejoin), not when a static member's classic restart replaced the
  // last consumer-protocol member (the group stays Stable); `done` once durable. Unset: never.
  using DowngradeFn =
      std::function<void(StoredGroup classic, OffsetBook::Mutations batch, bool rebalance, DurableCallback done)>;
  void set_downgrade(DowngradeFn fn) { downgrade_ = std::move(fn); }

  const ConsumerGroup* find(std::string_view group_id) const;
  bool contains(std::string_view group_id) const { return find(group_id) != nullptr; }
  size_t size() const { return groups_.size(); }
  template <typename Fn>
  void for_each(Fn&& fn) const {  // fn(const ConsumerGroup&)
    for (const auto& [id, entry] : groups_) fn(static_cast<const ConsumerGroup&>(*entry.group));
  }
  std::vector<std::string> group_ids() const;
  // How many times a group's record was encoded to be written (tests, benches): not for a
  // heartbeat that changed nothing.
  uint64_t records_encoded() const { return records_encoded_; }

  // ---- what the rest of the coordinator asks of a consumer group ----
  // OffsetCommit: Kafka's rules -- member epoch -1 with no member id commits only while the
  // group is empty; otherwise the member must exist (UNKNOWN_MEMBER_ID), must use v9+
  // (UNSUPPORTED_VERSION) and its epoch must be the member's: a newer one is
  // FENCED_MEMBER_EPOCH, an older one STALE_MEMBER_EPOCH. A commit counts as a heartbeat.
  GroupError accept_offset_commit(const std::string& group_id, const OffsetCommitArgs& args);
  // The same checks without the heartbeat (TxnOffsetCommit: `transactional`, any version).
  GroupError check_commit(const std::string& group_id, int32_t member_epoch, const std::string& member_id,
                          int16_t api_version, bool transactional) const;
  // OffsetFetch v9+ with a member id: the member must exist and its epoch match.
  GroupError check_offset_fetch(const std::string& group_id, const std::optional<std::string>& member_id,
                                int32_t member_epoch) const;
  TopicFilter topics_in_use(const std::string& group_id) const;
  OffsetRetention offset_retention(const std::string& group_id) const;
  DescribedConsumerGroup describe(const std::string& group_id) const;
  static std::string_view state_name(ConsumerGroup::State state);

  // ---- start-up, removal, shutdown ----
  void restore(ConsumerGroupSnapshot stored);
  // The group goes: its timers are cancelled and its record's tombstone appended to `out`.
  void remove(const std::string& group_id, OffsetBook::Mutations& out);
  void shutdown();

 private:
  struct Entry {
    std::unique_ptr<ConsumerGroup> group;
    uint64_t incarnation = 0;
    std::map<std::string, TimerQueue::Id> session_timers;     // member -> its session
    std::map<std::string, TimerQueue::Id> revocation_timers;  // member -> its deadline to revoke
    std::map<std::string, TimerQueue::Id> classic_timers;     // classic member -> its deadline to join or sync
    std::string stored;                                       // the record as last written
    uint64_t stored_revision = 0;                             // the group's revision() when `stored` was made
    int64_t empty_since_ms = -1;
    int64_t regexes_resolved_ms = -1;
  };

  Entry& create(const std::string& group_id);
  Entry* live(const std::string& group_id, uint64_t incarnation);
  void resolve_regexes(Entry& entry, const std::optional<std::string>& new_regex,
                       const std::function<bool(const std::string&)>& may_describe);
  // After the group changed: member timers follow the members, the record is written
  // if it changed; `done` once durable (at once if nothing changed).
  void after_change(Entry& entry, DurableCallback done, OffsetBook::Mutations first = {});
  ConsumerGroupTimeouts timeouts(const std::string& group_id) const;
  void arm_session(Entry& entry, const std::string& member_id);
  void on_session_timeout(const std::string& group_id, uint64_t incarnation, const std::string& member_id);
  void on_revocation_timeout(const std::string& group_id, uint64_t incarnation, const std::string& member_id);
  void drop_member(Entry& entry, const std::string& member_id, std::string_view reason);
  // A classic member's deadline to send its next JoinGroup (`if_absent`: unless one runs)
  // or SyncGroup; cancel_classic_timer when it did.
  void arm_classic_timer(Entry& entry, const ConsumerMember& m, bool if_absent, std::string_view reason);
  void cancel_classic_timer(Entry& entry, const std::string& member_id);
  // If `leaving` is the last consumer-protocol member and the policy allows, the group
  // becomes classic (downgrade_ is called, the entry is gone): true. Else false.
  bool maybe_downgrade(Entry& entry, const std::string& leaving);

  const CoordinatorOptions& options_;
  const Clock& clock_;
  DurableWriter& writer_;
  TimerQueue& timers_;
  TopicCatalog catalog_;
  GroupTimeoutsFn group_timeouts_;
  DowngradeFn downgrade_;
  std::unordered_map<std::string, Entry> groups_;
  uint64_t next_incarnation_ = 1;
  uint64_t records_encoded_ = 0;
};

}  // namespace rokka::coordinator
