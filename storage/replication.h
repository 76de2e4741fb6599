// Replication's log-level pieces (SCALE-OUT.md §3.5-3.6, FORMAT.md "Replicated
// stores"): the check of log bytes a follower receives, and the RKW1 body.
//
// A leader's CommitLog bytes reach a follower verbatim (Store::read_log ->
// Store::append_replicated). split() checks them before anything is written, on the
// caller's thread: every length is bounded by the bytes received and by the segment
// the entry must fit in, every CRC is checked, and RKM1/RKW1 bodies must decode. The
// segment geometry is a function of the position (segment N starts at N *
// segment_bytes), so a blank or tail that does not end exactly where this store's
// segment ends means the leader's segments have another size: refused.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "storage/format.h"
#include "storage/meta_store.h"
#include "storage/producer_state.h"
#include "storage/status.h"
#include "storage/store.h"
#include "storage/txn_index.h"
#include "storage/types.h"

namespace rokka::storage::replication {

// One piece of replicated log bytes: a whole entry, or a segment's tail (a blank
// entry, or the fewer than 8 zero bytes where no blank fits).
struct Piece {
  LogPosition pos;
  bool tail = false;
  format::EntryHeader header;        // entries only
  std::span<const std::byte> bytes;  // the whole entry or tail
  std::span<const std::byte> body() const { return bytes.subspan(format::kEntryHeaderSize); }  // batch or payload
};

// The pieces of `bytes`, entries starting at log position `from` in a log of
// `segment_bytes` segments. kCorruption for a bad CRC, magic or body, or bytes that
// end inside an entry; kInvalidArgument for what cannot be placed at the same
// position here (an entry crossing this store's segment end, a blank or tail not
// ending it).
Result<std::vector<Piece>> split(int64_t from, std::span<const std::byte> bytes, int64_t segment_bytes);

// RKM1's body (FORMAT.md): the mutation batch, then the batch that undoes it -- each key
// it writes with its value before the entry (a put, or an erase where it was absent), so
// that a member cutting the entry off its log (Store::truncate_to) can restore them.
// Entries written before the undo part existed have none.
struct MetaEntry {
  std::vector<MetaStore::Mutation> batch;
  std::optional<std::vector<MetaStore::Mutation>> undo;
};
std::vector<std::byte> encode_meta_entry(const std::vector<MetaStore::Mutation>& batch,
                                         const std::vector<MetaStore::Mutation>& undo);
std::optional<MetaEntry> decode_meta_entry(std::span<const std::byte> body);

// RKW1's body: the rewrite of `partition`'s offsets [from, to) into `units`, which
// point at the RKR1 entries before it.
struct RewriteCommit {
  int64_t from = 0, to = 0;
  std::vector<format::QueueUnit> units;
};
inline constexpr int64_t kRewriteCommitFixedBytes = 20;  // from, to, count
// The most units an RKW1 body of at most `max_body_bytes` holds: a leader writes a rewrite
// into more batches than max_rewrite_units(max_append_bytes) as several commits, so no
// rewrite commit is larger than the largest batch entry.
inline int64_t max_rewrite_units(int64_t max_body_bytes) {
  return std::max<int64_t>(0, (max_body_bytes - kRewriteCommitFixedBytes) / format::kUnitSize);
}
std::vector<std::byte> encode_rewrite_commit(const RewriteCommit& c);
std::optional<RewriteCommit> decode_rewrite_commit(std::span<const std::byte> body);

// A re-bootstrap snapshot (Store::bootstrap_snapshot, FORMAT.md "Re-bootstrap") as bytes:
// what a leader sends a follower below its log_begin. decode_snapshot() takes hostile
// input: every length and count is bounded by the bytes left before anything is
// allocated, and each partition state must decode (kCorruption otherwise).
inline constexpr uint32_t kSnapshotMagic = 0x31534B52;  // "RKS1" in file order
std::vector<std::byte> encode_snapshot(const Store::BootstrapSnapshot& snapshot);
Result<Store::BootstrapSnapshot> decode_snapshot(std::span<const std::byte> bytes);
// Decodes one partition state (producer, then transaction state) into `producers` and
// `txns` (both empty on entry); false if malformed or followed by other bytes.
bool decode_partition_state(std::span<const std::byte> state, ProducerStateTable& producers, TxnIndex& txns);
std::vector<std::byte> encode_partition_state(const ProducerStateTable* producers, const TxnIndex* txns);

}  // namespace rokka::storage::replication
