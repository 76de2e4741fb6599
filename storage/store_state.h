// StoreState: the objects the store's threads share, by reference. recover() opens
// them, the Store facade (StoreImpl) owns them, the writer (StoreWriter) mutates them
// and readers on any thread read their published side:
//
//   CommitLog       storage/commit_log.h     every partition's entries, one log
//   IndexFiles      storage/index_file.h     the chunks of every ConsumeQueue
//   MetaJournal     storage/meta_journal.h   the MetaStore's file
//   PartitionTable  storage/partition_table.h  PartitionId -> Partition
//
// Each class's header says which of its methods run on which thread.
// Also here: the checkpoint of the whole state, which the writer and recovery share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "storage/commit_log.h"
#include "storage/index_file.h"
#include "storage/meta_journal.h"
#include "storage/partition_table.h"
#include "storage/store.h"

namespace rokka::storage {

struct StoreState {
  const StoreOptions& options;  // options.fs and options.clock_ms are set
  CommitLog& log;
  IndexFiles& index;
  MetaJournal& journal;
  PartitionTable& partitions;

  FileSystem& fs() const { return *options.fs; }
  int64_t now_ms() const { return options.clock_ms(); }
};

// The store's two files in options.dir (beside the commitlog/, index/ and meta/
// directories): the newest checkpoint, and the marker that is present while the store
// is open, so that its presence at open means the last stop was a crash.
inline std::filesystem::path checkpoint_path(const StoreOptions& options) { return options.dir / "checkpoint"; }
inline std::filesystem::path abort_marker_path(const StoreOptions& options) { return options.dir / "abort"; }

// The checkpoint file's bytes for the state as of the log's write end: valid once the
// log up to there, the index files and the journal are durable. `confirmed`: the
// confirmed position C to persist with each partition's high watermark (Partition::hw),
// or -1 for none (kSingle). Writer thread (or recovery, before it starts).
std::vector<std::byte> encode_checkpoint(const StoreState& state, int64_t confirmed);

// A checkpoint taken inline (recovery's end, clean shutdown): flushes the log, syncs
// the index files and the journal, writes the checkpoint file. Returns the log
// position it covers.
Result<LogPosition> checkpoint_inline(const StoreState& state, int64_t confirmed);

}  // namespace rokka::storage
