// The store's own MetaStore records (prefix meta_prefix::kStore, "s/"): the durable
// partition table. One home for their keys and values; the writer thread writes them
// (StoreWriter), recovery reads them (recover()).
//
//   "s/p/" + partition id as 10 decimal digits  ->  int64 LE: the partition's durable
//                                                   start-offset floor (0 when created)
//   "s/next_pid"                                ->  decimal: the next partition id
//   "s/epoch/" + leader epoch as 10 decimal digits ->  int64 LE: the log position where
//                                                   that epoch starts (replicated stores,
//                                                   RocketMQ's EpochFile)
//
// A partition exists while its "s/p/" record does; deleting it erases the record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/meta_keys.h"
#include "storage/meta_store.h"
#include "storage/types.h"

namespace rokka::storage::partition_records {

inline constexpr std::string_view kPartitionPrefix = "s/p/";
inline constexpr std::string_view kNextIdKey = "s/next_pid";
inline constexpr std::string_view kEpochPrefix = "s/epoch/";
static_assert(kPartitionPrefix.starts_with(meta_prefix::kStore) && kNextIdKey.starts_with(meta_prefix::kStore) &&
              kEpochPrefix.starts_with(meta_prefix::kStore));

// The partition exists, and its offsets never go below `floor` again.
MetaStore::Mutation put_partition(PartitionId id, int64_t floor);
MetaStore::Mutation erase_partition(PartitionId id);
MetaStore::Mutation put_next_id(PartitionId next);

struct PartitionRecord {
  PartitionId id = 0;
  int64_t floor = 0;
};
// nullopt for a key or value that is not a partition record's (logged by the caller).
std::optional<PartitionRecord> parse_partition(std::string_view key, std::string_view value);
std::optional<PartitionId> parse_next_id(std::string_view value);

// Leader epoch `epoch` (>= 0) starts at log position `start`.
MetaStore::Mutation put_epoch(int32_t epoch, int64_t start);
MetaStore::Mutation erase_epoch(int32_t epoch);
std::optional<EpochStart> parse_epoch(std::string_view key, std::string_view value);

// Re-bootstrap (Store::reset_to, FORMAT.md "Re-bootstrap"), node-local keys. kResetKey: a
// reset in progress (replication::encode_snapshot of the snapshot without its meta keys),
// written in the same journal record as the snapshot's keys and erased once the reset
// store's checkpoint is durable. kStateAtKey: 8-byte LE log position E below which entries
// apply no producer, transaction or meta state (the snapshot brought it as of E).
inline constexpr std::string_view kResetKey = "l/reset";
inline constexpr std::string_view kStateAtKey = "l/state_at";
static_assert(kResetKey.starts_with(meta_prefix::kLocal) && kStateAtKey.starts_with(meta_prefix::kLocal));
MetaStore::Mutation put_state_at(int64_t position);
std::optional<int64_t> parse_state_at(std::string_view value);

}  // namespace rokka::storage::partition_records
