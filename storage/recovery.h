// recover(): Store::open's recovery, a function run before the writer thread starts.
// It opens the store's files in options.dir and rebuilds the in-memory state after a
// clean stop or a crash:
//   1. MetaJournal replay (torn tail cut) -> the partition table (partition_records.h).
//   2. CommitLog segments mapped; the checkpoint (CRC'd) and the index files it needs.
//   3. With a usable checkpoint (after a crash or a clean shutdown): re-read the log
//      from up to recovery_verify_bytes before the checkpoint's position (within its
//      segment), then the tail, verifying every entry's CRCs, re-adding index units
//      and producer state; cut at the first bad entry.
//      No usable checkpoint or index: rebuild every index from the whole log.
//   4. Drop index units that point past the cut (index ahead of log) or before the
//      oldest segment; apply start-offset floors; restore the confirmed position and
//      high watermarks (never above what the log holds); publish; checkpoint if the
//      state on disk does not match the checkpoint; create the "abort" marker.
// RocketMQ's DefaultMessageStore::recover plays this part (STYLE §a.1).
#pragma once

#include <memory>

#include "storage/commit_log.h"
#include "storage/index_file.h"
#include "storage/meta_journal.h"
#include "storage/partition_table.h"
#include "storage/store.h"

namespace rokka::storage {

// The opened files and where the writer starts from.
struct RecoveredStore {
  std::unique_ptr<MetaJournal> journal;
  std::unique_ptr<CommitLog> log;
  std::unique_ptr<IndexFiles> index;
  PartitionId next_partition = 0;  // the next id create_partitions hands out
  LogPosition checkpoint_pos;      // the log the newest durable checkpoint covers
  // The checkpoint's confirmed position, at most the recovered log end; -1 when none.
  // Each partition's Partition::hw is restored with it (at most its next offset).
  int64_t confirmed = -1;
  // l/state_at: entries below it apply no producer, transaction or meta state (0: none).
  int64_t state_at = 0;
};

// How index_entry() took one valid CommitLog entry.
enum class Indexed {
  kUnit,           // RKE1: a ConsumeQueue unit, producer and transaction state added
  kSkipped,        // RKE1 that is not its partition's next batch: stale, never indexed
  kNoPartition,    // RKE1/RKR1 of a deleted (or unknown) partition: waits for retention
  kRewrite,        // RKR1: reachable only through a checkpoint or its RKW1
  kMeta,           // RKM1: the caller applies it (or not)
  kRewriteCommit,  // RKW1: the caller applies it with apply_rewrite_commit() (or not)
};
// Indexes one valid entry (CommitLog::scan checked it) as recovery's replay does at
// open and a follower's append_replicated does live ("continuous recovery"): the one
// copy of that dispatch. `may_jump`: an empty queue may start at the entry's base
// offset (whole-log rebuild). `apply_state`: a batch also updates the producer and
// transaction state (false below a re-bootstrap's E, whose snapshot brought that state); then
// an empty queue also starts at the entry's base offset (FORMAT.md "Re-bootstrap").
// Writer thread, or recovery before it starts; the units are put, not published. A
// non-ok Status is a storage failure (no index chunk left).
Result<Indexed> index_entry(PartitionTable& partitions, IndexFiles& index, const CommitLog::ScannedEntry& e,
                            bool may_jump, bool apply_state = true);
// Re-bootstrap (Store::reset_to): `p` live, empty at the snapshot's next offset (0
// without `start`), floor `floor`, with the snapshot's producer and transaction state
// (none without `start`), published. Writer thread, or recovery before it starts.
void start_partition(Partition& p, int64_t floor, const Store::BootstrapSnapshot::PartitionStart* start);
// RKW1 (FORMAT.md): swaps `partition`'s units [from, to) for the RKR1 units the body
// names, as the leader's apply_rewrites() did, and publishes them. The entries it
// names must already be in the log's mapping (write_out()). A commit that no longer
// matches (the partition deleted, the range changed, an entry missing) is skipped and
// logged; a non-ok Status is a storage failure.
Status apply_rewrite_commit(PartitionTable& partitions, IndexFiles& index, const CommitLog& log, PartitionId partition,
                            std::span<const std::byte> body);

// Fills `partitions` (empty on entry) with every partition the journal names, their
// units published. options.fs and options.clock_ms must be set. The caller holds the
// directory's lock (DirLock).
Result<RecoveredStore> recover(const StoreOptions& options, PartitionTable& partitions);

}  // namespace rokka::storage
