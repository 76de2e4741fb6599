// ConsumerGroup: one group of the consumer group protocol (KIP-848), as pure state: the
// group epoch, the target assignment a server-side assignor computed for it, and each
// member's epoch and reconciliation toward its target (Kafka's GroupMetadataManager and
// CurrentAssignmentBuilder). ConsumerMembership (consumer_membership.h) gives it timers,
// durability and the coordinator's strand.
//
// The rules:
//  - The group epoch moves when a member joins or leaves, a subscription changes (topic
//    names or regex), the topics a regex matches change, or a subscribed topic's
//    partition count changes; the target assignment is recomputed for that epoch (the
//    assignment epoch) from the members' previous targets, so it stays sticky.
//  - A member moves toward its target in steps. Partitions it owns that are no longer
//    its target are revoked first: its assignment shrinks, its epoch stays, and it
//    stays in kUnrevokedPartitions until a heartbeat reports it owns none of them.
//    Then it takes the new epoch and the target partitions no other member still holds
//    (assigned or being revoked); the rest come at later heartbeats, once released
//    (kUnreleasedPartitions). A partition never has two owners.
//  - A heartbeat's epoch must be the member's; the member's previous epoch is accepted
//    when what it says it owns is within its assignment (a lost response). Otherwise
//    FENCED_MEMBER_EPOCH; an unknown member id is UNKNOWN_MEMBER_ID.
//  - Static members (an instance id): a static leave (epoch -2) keeps the member and its
//    partitions, the group epoch stays; a new member joining with that instance id takes
//    its place, epoch and assignment. An instance id held by a consumer-protocol member
//    that has not left is UNRELEASED_INSTANCE_ID (one held by a classic member is taken
//    over at once: a static member switching protocols); a heartbeat naming another
//    member's instance id is FENCED_INSTANCE_ID.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/consumer_assignor.h"
#include "coordinator/consumer_protocol.h"
#include "coordinator/group_error.h"
#include "coordinator/group_types.h"

namespace rokka::coordinator {

struct ConsumerHeartbeat {
  static constexpr int32_t kJoinEpoch = 0;
  static constexpr int32_t kLeaveEpoch = -1;
  static constexpr int32_t kStaticLeaveEpoch = -2;
  std::string member_id;  // empty at a v0 join: the group makes one
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;    // from the request header, for ConsumerGroupDescribe
  std::string client_host;  // the peer's address
  int32_t rebalance_timeout_ms = -1;                          // -1: unchanged
  std::optional<std::vector<std::string>> subscribed_topics;  // null: unchanged
  std::optional<std::string> subscribed_regex;                // null: unchanged; "": none
  std::optional<std::string> server_assignor;                 // null: unchanged
  std::optional<TopicPartitionsMap> owned;                    // null: unchanged since the last heartbeat
};

struct ConsumerHeartbeatResult {
  GroupError error = GroupError::kNone;
  std::string message;  // Kafka's error message, when there is one
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<TopicPartitionsMap> assignment;  // set when it changed since the member was last told
};

// A member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat) in a consumer
// group (KIP-848's migration): what its JoinGroup said.
struct ClassicMemberMetadata {
  int32_t session_timeout_ms = 0;
  std::vector<Protocol> protocols;  // its order of preference; the first is the one it is told
  bool operator==(const ClassicMemberMetadata&) const = default;
};

// A classic member's JoinGroup to a consumer group, its subscription parsed.
struct ClassicJoin {
  std::string member_id;  // made by the caller if the request had none
  bool member_id_was_given = true;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  ClassicMemberMetadata metadata;
  ConsumerSubscription subscription;  // from the first protocol's metadata
};

struct ConsumerMember {
  enum class State { kStable, kUnrevokedPartitions, kUnreleasedPartitions };
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = -1;
  State state = State::kStable;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  std::vector<std::string> subscribed_topics;  // sorted, unique
  std::optional<std::string> subscribed_regex;
  std::optional<std::string> server_assignor;
  TopicPartitionsMap assigned;    // what it may own now
  TopicPartitionsMap revoking;    // what it must give up before it moves on
  bool assignment_sent = false;   // whether `assigned` as it is now was in a response
  std::optional<ClassicMemberMetadata> classic;  // set for a member using the classic protocol
  bool left_static() const { return member_epoch == -2; }
  bool uses_classic() const { return classic.has_value(); }
  bool operator==(const ConsumerMember&) const = default;
};

// Everything a group keeps across a restart (consumer_group_record.h encodes it).
struct ConsumerGroupSnapshot {
  std::string group_id;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::vector<ConsumerMember> members;  // assignment_sent is not kept: each is told again
  GroupAssignment target;
  TopicPartitionCounts topics_seen;
  std::map<std::string, std::vector<std::string>> regex_topics;
};

// Partition count of a topic as the broker knows it now; 0 for a topic that does not exist.
using PartitionCountFn = std::function<int32_t(const std::string& topic)>;
// The racks of each partition's replicas of a topic (by partition; empty: none known).
using PartitionRacksFn = std::function<std::vector<std::vector<std::string>>(const std::string& topic)>;

class ConsumerGroup {
 public:
  enum class State { kEmpty, kReconciling, kStable };  // Kafka's, but for Assigning (computed at once)

  // `assignor`: the group's default (group.consumer.assignors' first); `max_size`:
  // group.consumer.max.size.
  ConsumerGroup(std::string group_id, AssignorFunction assignor, int32_t max_size);

  // The checks Kafka makes of a heartbeat before looking at the group (INVALID_REQUEST
  // with its message): `api_version` 1+ requires the member id.
  static ConsumerHeartbeatResult validate(const ConsumerHeartbeat& hb, int16_t api_version);

  // One heartbeat (validated). `partitions` gives the partition count of every topic
  // the members subscribe to; `new_member_id` makes an id for a v0 join.
  ConsumerHeartbeatResult heartbeat(const ConsumerHeartbeat& hb, const PartitionCountFn& partitions,
                                    const std::function<std::string()>& new_member_id);
  // The same with the counts given as a map (tests).
  ConsumerHeartbeatResult heartbeat(const ConsumerHeartbeat& hb, const TopicPartitionCounts& topics,
                                    const std::function<std::string()>& new_member_id);

  // Where partitions are, for rack-aware assignment (consumer_assignor.h): asked when the
  // target is computed and some member has a rack. Unset: no racks.
  void set_partition_racks(PartitionRacksFn fn) { partition_racks_ = std::move(fn); }

  // A member leaves (session or rebalance timeout): its partitions are free, the group
  // epoch moves. False if there is no such member.
  bool remove_member(const std::string& member_id);
  // Several leave at once (one LeaveGroup naming several classic members): the group epoch
  // moves once, as Kafka's classicGroupLeaveToConsumerGroup bumps it once per request.
  // The number of members removed (ids it does not hold are skipped).
  size_t remove_members(const std::vector<std::string>& member_ids);

  // ---- classic members (KIP-848's migration: Kafka's classicGroup*ToConsumerGroup) ----
  // JoinGroup: the member is created or updated from its subscription and moves toward its
  // target as a heartbeat would, its owned partitions being the subscription's. Errors:
  // GROUP_MAX_SIZE_REACHED, FENCED_INSTANCE_ID (another member id holds the instance id
  // and this one was given). The result carries the member's epoch (its generation) and
  // its assignment.
  ConsumerHeartbeatResult classic_join(const ClassicJoin& join, const PartitionCountFn& partitions);
  // The member a classic request names: UNKNOWN_MEMBER_ID (no such member, or it does not
  // use the classic protocol), FENCED_INSTANCE_ID; else kNone and *out set.
  GroupError classic_member(const std::string& member_id, const std::optional<std::string>& instance_id,
                            const ConsumerMember** out) const;
  // Whether the member must rejoin (Heartbeat answers REBALANCE_IN_PROGRESS): the group
  // moved past its epoch, it has partitions to revoke, or what it waits for is free.
  bool classic_must_rejoin(const ConsumerMember& m) const;
  // Whether a member of `protocol_type` offering `protocols` may join: the consumer
  // protocol type, and a protocol name every classic member offers.
  bool supports_classic_protocols(std::string_view protocol_type, const std::vector<Protocol>& protocols) const;
  // Whether every member but `member_id` uses the classic protocol, and `member_id` does not.
  bool all_classic_except(const std::string& member_id) const;

  // Regex subscriptions: the caller resolves each regex against the broker's topics and
  // says what it matched; a change moves the group epoch. regexes() lists those in use,
  // has_regex() whether one was resolved already.
  std::set<std::string> regexes() const;
  bool has_regex(const std::string& regex) const { return regex_topics_.contains(regex); }
  void set_regex_topics(const std::string& regex, std::vector<std::string> topics);

  ConsumerGroupSnapshot snapshot() const;
  // Moves whenever something snapshot() holds may have changed (epochs, members and what
  // each keeps, targets, topics seen, regex matches), and only then: the group's record
  // need not be encoded again while it stays (a steady heartbeat changes nothing).
  uint64_t revision() const { return revision_; }
  // REQUIRES: `s` came from snapshot() (or a record of it).
  void restore(ConsumerGroupSnapshot s);

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  int32_t assignment_epoch() const { return assignment_epoch_; }
  const std::map<std::string, ConsumerMember>& members() const { return members_; }
  const TopicPartitionsMap& target(const std::string& member_id) const;
  State state() const;
  // Every topic a member subscribes to, by name or through its regex.
  std::set<std::string> subscribed_topics() const;
  // The member holding `instance_id`, or nullptr.
  const ConsumerMember* static_member(const std::string& instance_id) const;
  // The assignor the members ask for most, else the group's default (Kafka's name).
  std::string assignor_name() const;

 private:
  ConsumerHeartbeatResult heartbeat_member(const ConsumerHeartbeat& hb, const PartitionCountFn& partitions,
                                           const std::function<std::string()>& new_member_id);
  ConsumerHeartbeatResult join(const ConsumerHeartbeat& hb, const std::function<std::string()>& new_member_id);
  ConsumerHeartbeatResult replace_static_member(const ConsumerHeartbeat& hb, const std::string& old_id);
  void bump_epoch() {
    ++group_epoch_;
    ++revision_;
  }
  std::vector<std::string> member_topics(const ConsumerMember& m) const;
  void maybe_assign(const PartitionCountFn& partitions);
  void reconcile(ConsumerMember& m, const std::optional<TopicPartitionsMap>& owned);
  void drop_ownership(const ConsumerMember& m);
  void own(const std::string& member_id, const TopicPartitionsMap& partitions);

  std::string group_id_;
  AssignorFunction assignor_;
  int32_t max_size_;
  PartitionRacksFn partition_racks_;
  int32_t group_epoch_ = 0;
  int32_t assignment_epoch_ = 0;
  uint64_t revision_ = 0;
  std::map<std::string, ConsumerMember> members_;
  GroupAssignment target_;                   // per member, for assignment_epoch_
  TopicPartitionCounts topics_seen_;         // the partition counts target_ was made with
  std::map<std::string, std::vector<std::string>> regex_topics_;  // regex -> topics it matched, sorted
  std::map<std::pair<std::string, int32_t>, std::string> owner_;  // assigned or revoking -> member
};

}  // namespace rokka::coordinator
