// The transaction coordinator's records in storage::MetaStore, and their encoding.
//
//   "x/" transactional id  ->  the transaction's metadata (TxnMetadata)
//        value: u8 version(0), i64 producer id, i64 last producer id, i16 epoch,
//               i16 last epoch, i32 timeout ms, u8 state, i64 start ms, i64 update ms,
//               u32 partition count, then per partition: topic, i32 partition;
//               u32 group count, then per group: group id, u32 offset count, then per
//               offset: topic, i32 partition, the offset as coordinator/meta_records.h
//               encodes a committed offset (a u32-length string)
// Integers are big-endian; strings are u32 length + bytes. Every transition of a
// transactional id rewrites its record; expiry erases it.
//
// Decoders take bytes from disk as untrusted: lengths and counts are bounded by the
// bytes present, trailing bytes are an error, and a state that is never stored
// (Dead, PrepareEpochFence) is refused. A record that does not decode is skipped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/txn_types.h"
#include "storage/meta_keys.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

inline constexpr std::string_view kTxnKeyPrefix = storage::meta_prefix::kTxns;

std::string encode_txn_key(std::string_view transactional_id);
std::optional<std::string> decode_txn_key(std::string_view key);
std::string encode_txn_value(const TxnMetadata& txn);
// `transactional_id` is taken from the key.
std::optional<TxnMetadata> decode_txn_value(std::string_view transactional_id, std::string_view value);

struct LoadedTxns {
  std::vector<TxnMetadata> txns;
  size_t skipped_records = 0;
};
// Start-up: every "x/" record (any thread; touches no coordinator state).
LoadedTxns load_transactions(const storage::MetaStore& meta);

}  // namespace rokka::coordinator
