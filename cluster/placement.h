// Placement: which broker leads each partition of a topic (cluster mode, one copy per
// partition), as stored in the topic record's "placement" and in <root>/coordinators.
//
//   {"ranges":[{"first":0,"start":1,"brokers":[1,2,3]},{"first":6,"start":0,"brokers":[2]}]}
//
// Partition p belongs to the last range whose `first` <= p, and is led by
// brokers[(start + p - first) % brokers.size()]: a topic created over the live brokers is one
// range (round-robin from a start that varies by topic), CreatePartitions appends a range over
// the brokers live then, and an explicit assignment is one range per partition. The text stays
// small for a million partitions (etcd caps a value at 1.5 MiB) and never needs rewriting
// when partitions are added.
//
// A replicated topic (replication factor > 1) is placed on replication groups instead: its
// partitions live in a group's store, led by whichever member the group's state names
// (docs/cluster.md), so the placement names groups, in the same range form:
//
//   {"group_ranges":[{"first":0,"start":0,"groups":["g1"]}]}
//
// A placement has either form, never both.
//
// Written by any broker (or an operator with etcdctl): decoding bounds every count, id and
// group name, and a placement that does not cover the topic's partitions is kMalformed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace rokka::cluster {

struct PlacementRange {
  int32_t first = 0;             // the range's first partition
  int32_t start = 0;             // index into brokers of `first`'s leader
  std::vector<int32_t> brokers;  // non-empty, each >= 0
  bool operator==(const PlacementRange&) const = default;
};

// The group form: partition p is in groups[(start + p - first) % groups.size()].
struct PlacementGroupRange {
  int32_t first = 0;
  int32_t start = 0;
  std::vector<std::string> groups;  // non-empty, each a replication group's name
  bool operator==(const PlacementGroupRange&) const = default;
};

struct Placement {
  std::vector<PlacementRange> ranges;  // `first` strictly increasing from 0
  // Replicated topics only, then instead of `ranges` (one of the two is empty).
  std::vector<PlacementGroupRange> group_ranges;
  bool operator==(const Placement&) const = default;

  bool replicated() const { return !group_ranges.empty(); }
  // Each partition's replication group (the group form), for `partitions` partitions.
  std::vector<std::string> groups(int32_t partitions) const;

  // Round-robin over `brokers` (sorted, non-empty) from brokers[start % size] for
  // partitions [first, ...): appended as one range.
  void add_round_robin(int32_t first, std::vector<int32_t> brokers, int32_t start);
  // Each partition's leader, for `partitions` partitions (the ranges must cover them; -1
  // for each partition of the group form, whose leaders the groups' states name).
  std::vector<int32_t> leaders(int32_t partitions) const;
};

inline constexpr size_t kMaxPlacementBrokers = 65536;  // per range
inline constexpr size_t kMaxPlacementGroups = 1024;    // per group range

std::string encode_placement(const Placement& p);
// `partitions` is the topic's count: the ranges must start at 0 and lie below it.
storage::Result<Placement> decode_placement(std::string_view json, int32_t partitions);

// <root>/coordinators: where each shard of the group and transactional-id space is coordinated
// (a group's shard is its id's Java hash mod shards, as Kafka's partition of __consumer_offsets).
// Two forms, never both:
//   {"shards":50,"placement":<Placement>}  (v1) the broker coordinating each shard: a cluster
//                                          without replication groups;
//   {"shards":50,"groups":["g1",...]}      (v2) shard s is coordinated by whichever member leads
//                                          groups[s % groups.size()] (docs/cluster.md
//                                          "Coordinators in the replication groups").
struct CoordinatorsRecord {
  int32_t shards = 0;  // 1 .. 1000
  Placement placement;               // v1 (broker form only)
  std::vector<std::string> groups;   // v2: 1 .. min(shards, kMaxPlacementGroups) group names
  bool on_groups() const { return !groups.empty(); }
  // v2: shard `shard`'s group.
  const std::string& group_of(int32_t shard) const { return groups[static_cast<size_t>(shard) % groups.size()]; }
};
std::string encode_coordinators(const CoordinatorsRecord& rec);
storage::Result<CoordinatorsRecord> decode_coordinators(std::string_view json);

// Kafka's coordinator shard of a group or transactional id: abs(String.hashCode) % shards,
// over the id's bytes (the same as Java's for ASCII ids).
int32_t coordinator_shard(std::string_view key, int32_t shards);

}  // namespace rokka::cluster
