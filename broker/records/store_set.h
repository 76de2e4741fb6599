// StoreSet: the stores one broker writes to, by slot. Slot 0 is the root store (log.dirs:
// the partitions of RF-1 topics and the node-local MetaStore keys); slots 1.. are reserved
// for the stores of the replication groups this broker is a member of (docs/cluster.md).
// A storage::PartitionId is only meaningful within its store, so a partition is named by
// (slot, pid): PartitionLoc. Every map over partitions of several stores keys by
// partition_key(), never by the pid alone.
//
// Filled while the broker is assembled (Broker::open) and not changed once it serves:
// reads from any thread need no lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "storage/store.h"

namespace rokka::broker {

using StoreSlot = uint16_t;
inline constexpr StoreSlot kRootSlot = 0;

// Where one Kafka partition lives: its store and that store's partition id.
struct PartitionLoc {
  StoreSlot slot = kRootSlot;
  storage::PartitionId pid = 0;
  friend bool operator==(const PartitionLoc&, const PartitionLoc&) = default;
};

// One key per partition over every store of the broker: slot << 32 | pid.
inline uint64_t partition_key(StoreSlot slot, storage::PartitionId pid) { return uint64_t{slot} << 32 | pid; }
inline uint64_t partition_key(PartitionLoc loc) { return partition_key(loc.slot, loc.pid); }

class StoreSet {
 public:
  struct Entry {
    std::string name;  // "root", or the replication group's name
    storage::Store* store = nullptr;
    std::filesystem::path dir;  // the store's directory (DescribeLogDirs, metrics)
  };

  // The next slot: the first store added is the root (slot 0).
  StoreSlot add(std::string name, storage::Store& store, std::filesystem::path dir) {
    entries_.push_back({std::move(name), &store, std::move(dir)});
    return static_cast<StoreSlot>(entries_.size() - 1);
  }

  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  storage::Store& root() const { return *entries_.front().store; }
  // nullptr for a slot this broker has no store in.
  storage::Store* at(StoreSlot slot) const { return slot < entries_.size() ? entries_[slot].store : nullptr; }

  // Store::append for requests that may name partitions of several stores: `slots[i]` is
  // request i's store. One append per store, each queued before this returns (so appends
  // keep their order per store), and `done` once every store answered, with the results
  // in request order. `done` runs on the writer thread of the store that answers last.
  void append(std::span<const StoreSlot> slots, std::vector<storage::AppendRequest> requests,
              storage::AppendCallback done) const;

 private:
  std::vector<Entry> entries_;
};

}  // namespace rokka::broker
