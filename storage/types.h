// The storage room's vocabulary: the values that cross its interfaces (Store, the
// CommitLog, the MetaStore, the transaction index). Plain data, no behaviour; every
// storage header may include it, and so may other rooms, without pulling in the
// Store facade (storage/store.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "storage/status.h"

namespace rokka::storage {

// Identifies one Kafka topic-partition inside the store. Allocated by the store,
// never reused, even after the partition is deleted.
using PartitionId = uint32_t;

// A byte position in the CommitLog (not a Kafka offset: never mix the two).
struct LogPosition {
  int64_t value = 0;
  auto operator<=>(const LogPosition&) const = default;
};

enum class TimestampType { kCreateTime, kLogAppendTime };

struct AppendRequest {
  PartitionId partition = 0;
  // One complete RecordBatch v2 (header + records) as received. The caller keeps
  // these bytes alive until the callback runs; the store copies them into the log.
  // append() checks the header (size, Length, magic 2) and the batch CRC on the
  // caller's thread; a bad batch gets kInvalidArgument (kTooLarge above max_append_bytes).
  std::span<const std::byte> batch;
  TimestampType timestamp_type = TimestampType::kCreateTime;
};

// Replication (SCALE-OUT.md §3.6). kSingle: one broker, nothing replicated (the
// default). kLeader: takes writes, stamps its epoch into every batch and logs meta
// writes as RKM1 entries. kFollower: takes only replicated log bytes
// (Store::append_replicated). kFenced: takes nothing. kFollower and kFenced refuse
// the write calls with kNotLeader.
enum class Role { kSingle, kLeader, kFollower, kFenced };

// A leader epoch and the log position of its first byte (Store::epochs()).
struct EpochStart {
  int32_t epoch = 0;
  int64_t start = 0;
  bool operator==(const EpochStart&) const = default;
};

struct AppendInfo {
  int64_t base_offset = -1;       // offset given to the batch's first record
  int64_t log_append_time = -1;   // the broker time written, for LogAppendTime; else -1
  int64_t log_start_offset = 0;   // the partition's start offset after the append
  // The CommitLog position after the entry (what replication must confirm before an
  // acks=all answer). For an idempotent retry, the log's end when it was answered: at or
  // after the original entry's end.
  int64_t log_end = -1;
};

// One result per request, in request order. Errors per partition:
//   kNotFound (no such partition), kReadOnly/kIoError (storage failure: nothing stored),
//   kTooLarge, kInvalidArgument (bad batch), kOutOfOrderSequence, kInvalidProducerEpoch,
//   kUnknownProducerId. An idempotent retry of a batch already stored (one of the last
//   five of that producer on that partition) is NOT an error: it returns the original
//   AppendInfo and stores nothing.
using AppendCallback = std::function<void(std::vector<Result<AppendInfo>>)>;
using StatusCallback = std::function<void(Status)>;

// A view of stored bytes, valid as long as `hold` is kept (it pins the mapped file).
struct LogSlice {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> hold;
};

struct PartitionOffsets {
  int64_t log_start_offset = 0;
  int64_t next_offset = 0;  // the log end offset (LEO): after the last stored batch
  // Transactions: the first offset of the earliest transaction still open on the
  // partition (no COMMIT/ABORT marker yet), else next_offset; never below
  // log_start_offset. read_committed consumers stop here.
  int64_t last_stable_offset = 0;
  // What consumers may read: next_offset in Role::kSingle; in the replicated roles the
  // next offset of the partition's last batch wholly below the confirmed log position
  // (Store::set_confirmed), never below log_start_offset. last_stable_offset <= it.
  int64_t high_watermark = 0;
};

// A transaction closed by an ABORT marker: its producer and the offsets of its first
// batch and of the marker, on one partition.
struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  bool operator==(const AbortedTxn&) const = default;
};

struct ReadResult {
  // Whole record batches, in offset order, starting with the batch that holds the
  // requested offset. The first batch is returned even when larger than max_bytes.
  std::vector<LogSlice> batches;
  PartitionOffsets offsets;
  // Aborted transactions overlapping the offsets read (marker at or after the requested
  // offset, first batch before the end of the batches returned), in marker order:
  // what Fetch at read_committed returns. Transactional and control batches are among
  // `batches` as stored; telling them apart is the reader's job.
  std::vector<AbortedTxn> aborted;
};

// OffsetForLeaderEpoch's answer for one partition (Store::epoch_end_offset): the largest
// leader epoch at or below the one asked that the partition's log holds and the offset
// where it ends; -1 / -1 when unknown (end_offset alone, the start offset, when the
// epoch asked is below every epoch the partition holds).
struct EpochEndOffset {
  int32_t leader_epoch = -1;
  int64_t end_offset = -1;
  bool operator==(const EpochEndOffset&) const = default;
};

struct TimestampOffset {
  int64_t timestamp = -1;
  int64_t offset = -1;  // -1 when nothing matches
};

// An idempotent or transactional producer a partition holds state for
// (DescribeProducers): its epoch, the last sequence it wrote, when (broker clock, ms),
// and the first offset of its open transaction here, -1 when none is open.
struct ActiveProducer {
  int64_t producer_id = -1;
  int16_t epoch = -1;
  int32_t last_sequence = -1;
  int64_t last_append_ms = -1;
  int64_t txn_start_offset = -1;
  bool operator==(const ActiveProducer&) const = default;
};

}  // namespace rokka::storage
