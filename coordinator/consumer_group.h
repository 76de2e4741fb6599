// ConsumerGroup: one group of the consumer group protocol (KIP-848), as pure state: the
// group epoch, the target assignment a server-side assignor computed for it, and each
// member's epoch and reconciliation toward its target (Kafka's GroupMetadataManager and
// CurrentAssignmentBuilder). Not wired to the wire yet (issue 19): the coordinator's
// timers, durability and ConsumerGroupHeartbeat's handler come next.
//
// The rules:
//  - The group epoch moves when a member joins or leaves, a subscription changes, or a
//    subscribed topic's partition count changes; the target assignment is recomputed
//    for that epoch (the assignment epoch) from the members' previous targets, so it
//    stays sticky.
//  - A member moves toward its target in steps. Partitions it owns that are no longer
//    its target are revoked first: its assignment shrinks, its epoch stays, and it
//    stays in kUnrevokedPartitions until a heartbeat reports it owns none of them.
//    Then it takes the new epoch and the target partitions no other member still holds
//    (assigned or being revoked); the rest come at later heartbeats, once released
//    (kUnreleasedPartitions). A partition never has two owners.
//  - A heartbeat's epoch must be the member's; the member's previous epoch is accepted
//    when what it says it owns is within its assignment (a lost response). Otherwise
//    FENCED_MEMBER_EPOCH; an unknown member id is UNKNOWN_MEMBER_ID.
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

namespace rokka::coordinator {

// What a ConsumerGroupHeartbeat answers, beyond kNone (Kafka's codes beside).
enum class ConsumerGroupError : uint8_t {
  kNone = 0,
  kInvalidRequest,       // INVALID_REQUEST (42): a join without its subscription, ...
  kUnknownMemberId,      // UNKNOWN_MEMBER_ID (25)
  kFencedMemberEpoch,    // FENCED_MEMBER_EPOCH (110)
  kGroupMaxSizeReached,  // GROUP_MAX_SIZE_REACHED (81)
  kUnsupportedAssignor,  // UNSUPPORTED_ASSIGNOR (112)
};

struct ConsumerHeartbeat {
  static constexpr int32_t kJoinEpoch = 0;
  static constexpr int32_t kLeaveEpoch = -1;
  std::string member_id;  // empty at a v0 join: the group makes one
  int32_t member_epoch = 0;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;                          // -1: unchanged
  std::optional<std::vector<std::string>> subscribed_topics;  // null: unchanged
  std::optional<std::string> server_assignor;                 // null: unchanged
  std::optional<TopicPartitionsMap> owned;                    // null: unchanged since the last heartbeat
};

struct ConsumerHeartbeatResult {
  ConsumerGroupError error = ConsumerGroupError::kNone;
  std::string message;  // with kInvalidRequest
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<TopicPartitionsMap> assignment;  // set when it changed since the member was last told
};

struct ConsumerMember {
  enum class State { kStable, kUnrevokedPartitions, kUnreleasedPartitions };
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = -1;
  State state = State::kStable;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = 0;
  std::vector<std::string> subscribed_topics;  // sorted, unique
  std::optional<std::string> server_assignor;
  TopicPartitionsMap assigned;    // what it may own now
  TopicPartitionsMap revoking;    // what it must give up before it moves on
  bool assignment_sent = false;   // whether `assigned` as it is now was in a response
};

class ConsumerGroup {
 public:
  enum class State { kEmpty, kReconciling, kStable };  // Kafka's, but for Assigning (computed at once)

  // `assignor`: the group's default (group.consumer.assignors' first); `max_size`:
  // group.consumer.max.size.
  ConsumerGroup(std::string group_id, AssignorFunction assignor, int32_t max_size);

  // One heartbeat. `topics`: the partition counts of the topics the members subscribe
  // to, as the broker knows them now (a topic missing has none). `new_member_id` makes
  // an id for a v0 join.
  ConsumerHeartbeatResult heartbeat(const ConsumerHeartbeat& hb, const TopicPartitionCounts& topics,
                                    const std::function<std::string()>& new_member_id);

  // A member leaves (session or rebalance timeout): its partitions are free, the group
  // epoch moves. False if there is no such member.
  bool remove_member(const std::string& member_id);

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  int32_t assignment_epoch() const { return assignment_epoch_; }
  const std::map<std::string, ConsumerMember>& members() const { return members_; }
  const TopicPartitionsMap& target(const std::string& member_id) const;
  State state() const;
  // Every topic a member subscribes to (what the caller looks up for `topics`).
  std::set<std::string> subscribed_topics() const;

 private:
  ConsumerHeartbeatResult join(const ConsumerHeartbeat& hb, const std::function<std::string()>& new_member_id);
  void bump_epoch() { ++group_epoch_; }
  void maybe_assign(const TopicPartitionCounts& topics);
  void reconcile(ConsumerMember& m, const std::optional<TopicPartitionsMap>& owned);
  void drop_ownership(const ConsumerMember& m);
  void own(const std::string& member_id, const TopicPartitionsMap& partitions);

  std::string group_id_;
  AssignorFunction assignor_;
  int32_t max_size_;
  int32_t group_epoch_ = 0;
  int32_t assignment_epoch_ = 0;
  std::map<std::string, ConsumerMember> members_;
  GroupAssignment target_;                   // per member, for assignment_epoch_
  TopicPartitionCounts topics_seen_;         // the partition counts target_ was made with
  std::map<std::pair<std::string, int32_t>, std::string> owner_;  // assigned or revoking -> member
};

}  // namespace rokka::coordinator
