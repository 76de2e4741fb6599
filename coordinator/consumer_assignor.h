// The server-side assignors of the consumer group protocol (KIP-848): the broker,
// not a client leader, decides which member owns which partition. A client names
// one in ConsumerGroupHeartbeat's ServerAssignor (librdkafka's
// group.remote.assignor); group.consumer.assignors lists those a broker offers,
// the first being the default.
//
//   uniform  every member of the group gets as many partitions as the others, within
//            one, among those of the topics it subscribes to: no member could take a
//            partition it subscribes to from one holding two more. Sticky: a member
//            keeps what it owns unless the balance needs it elsewhere, and then
//            gives up its highest partitions first (as Kafka's does).
//   range    per topic, its subscribers sorted by member id split the partitions
//            into counts that differ by at most one (the first ones get the extra),
//            in partition order: with equal partition counts the same partition
//            numbers of co-partitioned topics go to the same member. Sticky within
//            each member's count.
//
// Racks (a member's RackId, the racks of a partition's replicas): when both are known and
// some member's rack is not that of every partition, either assignor then moves partitions
// so that as many as possible go to a member in one of their racks -- without changing how
// many partitions any member gets (uniform: in all; range: of each topic) nor splitting
// co-partitioned topics (range: topics with the same partition count and subscribers
// move a partition number together, matched when its partitions of all those topics are
// on the member's rack). Balance first, then racks, then stickiness, as Kafka's client-side
// KIP-881 assignors rank them. With no rack on either side, or every partition on the same
// racks, the result is the one without racks. (Kafka 4's server-side assignors ignore
// racks altogether; KAFKA-19909 proposes this ranking for them.)
//
// Pure functions of their input: the coordinator's state machine calls them when
// the group epoch moves (a member joins, leaves or changes its subscription, a
// subscribed topic gains partitions) and reconciles members toward the result.
// Topics are named as the coordinator keys them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rokka::coordinator {

// Partitions by topic, each list ascending and without duplicates.
using TopicPartitionsMap = std::map<std::string, std::vector<int32_t>>;

struct AssignorMember {
  std::string member_id;
  std::optional<std::string> rack_id;
  std::vector<std::string> subscribed_topics;  // any order
  TopicPartitionsMap current;                  // its target assignment of the previous epoch
};

// Partition counts of the topics members subscribe to; a subscribed topic that is
// missing (not created yet, or deleted) has no partitions to give.
using TopicPartitionCounts = std::map<std::string, int32_t>;

// member id -> the partitions it is to own; every member of the input has an entry.
using GroupAssignment = std::map<std::string, TopicPartitionsMap>;

// The racks of each partition's replicas, by topic then partition; a topic missing, or a
// partition past the end of its list, has no known rack.
using PartitionRacks = std::map<std::string, std::vector<std::vector<std::string>>>;

using AssignorFunction = GroupAssignment (*)(const std::vector<AssignorMember>& members,
                                             const TopicPartitionCounts& topics, const PartitionRacks& racks);

GroupAssignment assign_uniform(const std::vector<AssignorMember>& members, const TopicPartitionCounts& topics,
                               const PartitionRacks& racks = {});
GroupAssignment assign_range(const std::vector<AssignorMember>& members, const TopicPartitionCounts& topics,
                             const PartitionRacks& racks = {});

// "uniform" or "range" (Kafka's names); nullptr for any other name.
AssignorFunction find_assignor(std::string_view name);

}  // namespace rokka::coordinator
