// Store: the storage engine's facade (DESIGN.md, "Mapping Kafka onto it").
//
// Every partition's record batches append into ONE CommitLog; a ConsumeQueue per
// partition (fixed-size units packed into shared index files) maps Kafka offsets
// to log positions. A small durable key/value journal (MetaStore, storage/meta_store.h)
// holds broker state: the partition table, topics, producer ids, committed offsets.
// The values that cross this interface are in storage/types.h.
//
// Threading contract:
//  - append(), create_partitions(), delete_partition(), delete_records() and
//    meta().write() may be called from any thread. They queue work for the single
//    writer thread and return at once; the callback runs later ON THE WRITER
//    THREAD, so it must only hand the result over (post to an executor), never
//    block or call back into the Store's write paths synchronously.
//  - read(), offsets(), lookup_timestamp(), max_timestamp() and epoch_end_offset() may
//    be called from any thread at any time, concurrently with the writer; they never
//    block on it.
//  - Storage knows the RecordBatch v2 header layout (it must set the base offset,
//    read producer fields and patch LogAppendTime), but not the Kafka codec.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "storage/count_histogram.h"
#include "storage/meta_store.h"
#include "storage/status.h"
#include "storage/types.h"

namespace rokka::storage {

enum class FlushMode { kSync, kAsync };

struct StoreOptions {
  std::filesystem::path dir;                       // created if missing
  int64_t segment_bytes = int64_t{1} << 30;        // log.segment.bytes: one CommitLog file
  FlushMode flush_mode = FlushMode::kAsync;        // store.flush.mode
  int64_t flush_interval_ms = 500;                 // log.flush.interval.ms (async mode)
  int64_t flush_interval_messages = INT64_MAX;     // log.flush.interval.messages (async mode)
  int64_t retention_ms = 7 * 24 * 3600 * 1000LL;   // log.retention.ms; -1 = unlimited
  int64_t retention_bytes = -1;                    // log.retention.bytes, whole log; -1 = unlimited
  int64_t retention_check_interval_ms = 300000;    // log.retention.check.interval.ms
  int64_t max_append_bytes = 64 << 20;             // largest batch accepted (<= segment_bytes / 2)
  // Crash recovery re-reads the log since the last checkpoint (and re-verifies up to
  // recovery_verify_bytes before it), so these bound recovery time: a checkpoint is taken after
  // this much log or this much time. Each checkpoint also fsyncs every index page
  // dirtied since the last one (about one page per active partition), so a short
  // byte interval costs write bandwidth at high partition counts (bench/RESULTS.md).
  int64_t checkpoint_interval_bytes = int64_t{1} << 30;
  int64_t checkpoint_interval_ms = 10000;
  // Every open also re-verifies (CRCs) up to this many log bytes before the
  // checkpoint position, within its segment: a clean stop does not vouch for the disk.
  // Damage further back is not looked for at open (a consumer's CRC check sees it).
  // store.recovery.verify.bytes.
  int64_t recovery_verify_bytes = int64_t{64} << 20;
  // Synced log bytes more than this far behind the end are dropped from the page cache
  // (CommitLogOptions::cache_retain_bytes); -1 leaves the cache to the kernel.
  // store.pagecache.retain.bytes.
  int64_t page_cache_retain_bytes = -1;
  // New CommitLog segments get all their blocks when created (log.preallocate).
  bool preallocate = false;
  // CommitLogOptions::tail_cache_bytes and ::direct_io (store.tail.cache.bytes, store.direct.io).
  int64_t tail_cache_bytes = int64_t{64} << 20;
  bool direct_io = false;
  int64_t producer_id_expiration_ms = 86400000;    // producer.id.expiration.ms
  uint32_t index_chunk_units = 128;                // ConsumeQueue units per index chunk (32 B each: 4 KiB)
  // Units of a partition's first index chunk, a piece of a shared chunk (8: 256 B, 16
  // partitions per page); divides index_chunk_units. A store opened with a geometry
  // other than its checkpoint's rebuilds its index from the log.
  uint32_t index_first_chunk_units = 8;
  uint32_t index_file_chunks = 32768;              // chunks per shared index file (128 MiB)
  class FileSystem* fs = nullptr;                  // IO layer; nullptr = the real one (tests inject faults)
  std::function<int64_t()> clock_ms;               // wall clock in ms; empty = system_clock
};

// What the store counts for operators (broker/metrics.cc exports it). Any thread, at any
// time; the figures are read one by one, not as one snapshot.
struct StoreStats {
  // One observation per group commit (the writer's drained batch of ops, written
  // together and, in sync mode, synced with one flush) that appended entries and ended
  // without a storage failure: the records and the CommitLog entry bytes (entry
  // headers included) appended by Produce, offset commits and transaction markers;
  // compaction's rewritten entries are not counted. Live as long as the Store.
  const CountHistogram* group_commit_records = nullptr;
  const CountHistogram* group_commit_bytes = nullptr;
  // CommitLog segment files retention deleted (by age or total size) since open, and
  // their file sizes.
  int64_t retention_deleted_segments = 0;
  int64_t retention_deleted_bytes = 0;
  // The log bytes the store keeps in the page cache: from the oldest byte it has not
  // dropped (store.pagecache.retain.bytes behind the synced end; with -1 it drops
  // nothing, so the whole log) to the end readers may read.
  int64_t page_cache_log_bytes = 0;
  // The index bytes it keeps: every index chunk handed out so far and those pre-faulted
  // ahead of them (it never drops index pages).
  int64_t page_cache_index_bytes = 0;
};

class Store {
 public:
  // Opens or creates the store in options.dir, recovering after a crash.
  static Result<std::unique_ptr<Store>> open(StoreOptions options);
  virtual ~Store() = default;

  // Allocates `count` new empty partitions (no file is created) and records them durably.
  virtual void create_partitions(uint32_t count, std::function<void(Result<std::vector<PartitionId>>)> done) = 0;
  // Forgets a partition durably; its bytes go with retention. Reads then return kNotFound.
  virtual void delete_partition(PartitionId partition, StatusCallback done) = 0;

  virtual void append(std::vector<AppendRequest> requests, AppendCallback done) = 0;

  // Batches from the one holding `offset`, up to about max_bytes (see ReadResult).
  // kOutOfRange when offset < log start or > next offset; an empty result at next offset.
  virtual Result<ReadResult> read(PartitionId partition, int64_t offset, int64_t max_bytes) const = 0;
  virtual Result<PartitionOffsets> offsets(PartitionId partition) const = 0;
  // The first batch whose max timestamp >= ts: its base offset and max timestamp.
  virtual Result<TimestampOffset> lookup_timestamp(PartitionId partition, int64_t ts) const = 0;
  // The batch with the largest max timestamp (ListOffsets MAX_TIMESTAMP).
  virtual Result<TimestampOffset> max_timestamp(PartitionId partition) const = 0;

  // OffsetForLeaderEpoch, as Kafka's leader epoch cache answers it, from the epochs a
  // leader stamped into the partition's batches (PartitionLeaderEpoch) and the store's
  // epochs():
  //  - `leader_epoch` is the store's last epoch: that epoch and the next offset (the
  //    log end offset, on any role), batches of it or not;
  //  - below it: the epoch of the last batch whose epoch is at or below `leader_epoch`
  //    and the offset of the first batch of a later epoch (the next offset when none);
  //    -1 and the start offset when no batch held is at or below `leader_epoch` (the
  //    later epochs cover the whole log, as Kafka's cache moves its first entry up to
  //    the log start);
  //  - -1 / -1 when `leader_epoch` is negative or above the last epoch, and always in a
  //    store that never led nor followed (no epochs(): a kSingle store writes the
  //    producer's field unchanged, so its batches carry no epoch).
  // Offsets are never below the start offset. Any thread, like read(); kNotFound for an
  // unknown or deleted partition. A binary search over the partition's index units (one
  // batch header read per step): a batch's epoch never decreases with its offset --
  // leaders stamp their epoch, which only rises; followers copy it; truncate_to and
  // retention cut whole batches; rewrites keep each batch's header (the cleaner's do) --
  // as long as the store is not appended to in kSingle after it led (every open starts
  // kSingle: set the role before serving). A compaction that drops every batch of an
  // epoch drops the epoch from the answers (Kafka's cache keeps it).
  virtual Result<EpochEndOffset> epoch_end_offset(PartitionId /*partition*/, int32_t /*leader_epoch*/) const {
    return Status::invalid_argument("epoch_end_offset not supported");
  }
  // The bytes of the partition's stored batches, from the one holding the start offset
  // to the end (DescribeLogDirs' partition size; Kafka counts its segment bytes, which
  // are the same batches). Any thread; it reads the partition's index units, one per
  // batch, so it costs O(batches held).
  virtual Result<int64_t> partition_bytes(PartitionId /*partition*/) const {
    return Status::invalid_argument("partition_bytes not supported");
  }
  // The producers the partition holds state for, by producer id (DescribeProducers).
  // The state is the writer's: `done` runs on the writer thread, as for the writes.
  using ProducersCallback = std::function<void(Result<std::vector<ActiveProducer>>)>;
  virtual void active_producers(PartitionId /*partition*/, ProducersCallback done) {
    done(Status::invalid_argument("active_producers not supported"));
  }

  // Moves the log start offset forward (DeleteRecords); durable before `done`.
  virtual void delete_records(PartitionId partition, int64_t offset, std::function<void(Result<int64_t>)> done) = 0;

  // Compaction: replaces the batches covering offsets [from, to) of `partition` with
  // `batches` (complete RecordBatch v2, CRC valid, each keeping its original base
  // offset: strictly increasing, inside [from, to), not overlapping). `from` must be
  // the base offset of a stored batch at or after the start offset, `to` that of a
  // later stored batch or the next offset, and batches must remain in the partition
  // (never all of it emptied). The new batches are appended to the log as rewrite
  // entries (FORMAT.md, "Compaction"), readers switch to the new unit array at once,
  // and `done` runs once a checkpoint naming it is durable -- on the writer or the
  // flusher thread. Until then a crash serves the original batches. kConflict when
  // the range no longer matches stored batches (retention, delete_records, another
  // rewrite), kNotFound for a deleted partition, kInvalidArgument for bad batches,
  // On a leader the rewrite's commit (RKW1, FORMAT.md) names at most (max_append_bytes -
  // 20) / 32 batches; more go out as several commits, the range cut at stored batches' base
  // offsets no new batch straddles (as new batches that keep their original base offsets
  // allow), and kTooLarge when no such cut exists. The caller keeps the batch bytes alive
  // until `done`.
  struct RewriteRequest {
    PartitionId partition = 0;
    int64_t from = 0, to = 0;
    std::vector<std::span<const std::byte>> batches;
  };
  virtual void rewrite(RewriteRequest /*request*/, StatusCallback done) {
    done(Status::invalid_argument("rewrite not supported"));
  }
  // Retained partitions (compacted topics): retention never deletes a segment one of
  // their batches lives in (their data goes only by rewrite). Any thread; not durable:
  // set it again after open.
  virtual void set_retained(PartitionId /*partition*/, bool /*retained*/) {}

  virtual MetaStore& meta() = 0;

  // Counters and gauges for /metrics (StoreStats). Any thread.
  virtual StoreStats stats() const { return {}; }

  // Called on the writer thread after appended data becomes readable, with the
  // partitions that grew (fetch long-poll wake-up). Set once, before serving.
  virtual void set_append_listener(std::function<void(std::span<const PartitionId>)> listener) = 0;
  // Replication's own hook, beside the append listener (which in the replicated roles
  // fires on high watermark moves, not on appends): called on the writer thread, after
  // the bytes are readable, with the log's new readable end whenever it moved -- data,
  // RKM1/RKW1 entries, segment blanks, retention's floor entries alike. The durable end
  // moving alone (the async flusher's fdatasync) does not call it. Any thread, at any
  // time; an empty function removes it. Like every writer-thread callback it must only
  // hand the news over (ReplicationServer::notify_appended posts it).
  virtual void set_log_listener(std::function<void(int64_t readable_end)> /*listener*/) {}
  // Follower role: called on the writer thread once the replicated meta writes of an
  // operation are in the journal and the partition table -- RKM1 entries applied by
  // append_replicated(), a truncate_to() that undid some, a reset_to(): the MetaStore and the
  // partitions now show what the leader wrote (the broker's TopicRegistry re-reads its `t/`
  // records). Any thread, at any time; an empty function removes it. It must only hand the
  // news over.
  virtual void set_replicated_meta_listener(std::function<void()> /*listener*/) {}

  // ---- replication (SCALE-OUT.md §3.5-3.6; FORMAT.md "Replicated stores") ----
  // A group leader's CommitLog bytes are copied verbatim to its followers, which write
  // them at the same positions and index them as recovery does.
  //
  // Any thread: the first log position still held, the end of the readable entries,
  // and the end fdatasync'ed (what is synced, whatever the flush mode).
  virtual int64_t log_begin() const { return 0; }
  virtual int64_t log_end() const { return 0; }
  virtual int64_t durable_end() const { return 0; }
  // Any thread: the (epoch, start position) list, ascending (meta keys s/epoch/).
  virtual std::vector<EpochStart> epochs() const { return {}; }
  // Any thread: whole entries from `from` (an entry boundary) in ONE segment, a
  // segment's tail (a blank with its zero padding, or the < 8 bytes where no blank
  // fits) counting as one entry: bytes [from, from + size) of the log, at most
  // max_bytes unless the first entry alone is larger. Empty at log_end(); kOutOfRange
  // below log_begin() or above log_end(). Pass max_bytes = next epoch start - from to
  // stop at an epoch boundary (entries never straddle one).
  virtual Result<LogSlice> read_log(int64_t /*from*/, int64_t /*max_bytes*/) const {
    return Status::invalid_argument("read_log not supported");
  }
  // Follower role only (else kNotLeader). `from` must be log_end() when applied (else
  // kConflict); `bytes` are whole entries as read_log() gave them. Everything is
  // checked first (CRCs, bodies, that each entry lands at the same position in this
  // store's segments: kCorruption / kInvalidArgument) and nothing is written unless
  // all of it passes; those refusals may call `done` on the caller's thread. Then the
  // bytes are written verbatim, segments rolled where the leader rolled, each entry
  // dispatched as recovery dispatches it (units, producer and transaction state, RKM1
  // meta writes, RKW1 rewrite commits); readable (and durable in sync mode) before
  // `done`, on the writer thread. The caller's bytes are copied before return.
  virtual void append_replicated(int64_t /*from*/, std::span<const std::byte> /*bytes*/, StatusCallback done) {
    done(Status::invalid_argument("append_replicated not supported"));
  }
  // Follower or fenced role only: cuts the log at `position` (an entry boundary between
  // log_begin() and log_end()) as recovery cuts a torn tail -- CommitLog, ConsumeQueues,
  // producer and transaction state, epochs starting at or after it, and the meta writes
  // of the RKM1 entries it cuts (each key back at its value before the cut; FORMAT.md
  // says what cannot be undone) -- then `done` once a checkpoint of the result is durable.
  virtual void truncate_to(int64_t /*position*/, StatusCallback done) {
    done(Status::invalid_argument("truncate_to not supported"));
  }
  // Re-bootstrap (FORMAT.md "Re-bootstrap"): a follower whose log ends below the leader's
  // log_begin() cannot be sent the bytes it lacks; it starts its log at the leader's
  // log_begin() instead, from this snapshot of the leader's state.
  struct BootstrapSnapshot {
    int64_t begin = 0;  // the leader's log_begin(): the first position the follower will hold
    int64_t end = 0;    // the leader's log end when the snapshot was taken (E)
    // Every journal key as of E except the node-local ones (meta_prefix::node_local).
    std::vector<std::pair<std::string, std::string>> meta;
    struct PartitionStart {
      PartitionId id = 0;
      // At `begin`: the base offset of the partition's first stored batch, or its next
      // offset when it holds none.
      int64_t next_offset = 0;
      // The running max timestamp before `begin` (its first batch's stored one, or the queue's
      // when it holds none; -1: none): the follower's index units carry the same column.
      int64_t running_max_ts = -1;
      // Its producer and transaction state as of E, encoded as in the checkpoint.
      std::vector<std::byte> state;
    };
    std::vector<PartitionStart> partitions;  // every live partition, by id
  };
  // Queued on the writer (any role): the snapshot above, as of the writer's log end.
  // replication::encode_snapshot() gives its bytes for the wire.
  using SnapshotCallback = std::function<void(Result<BootstrapSnapshot>)>;
  virtual void bootstrap_snapshot(SnapshotCallback done) {
    done(Status::invalid_argument("bootstrap_snapshot not supported"));
  }
  // Follower role only (else kNotLeader). `snapshot.begin` must be a segment start above
  // log_end() (else kInvalidArgument). Replaces this store's replicated state with the
  // snapshot: every journal key but the node-local ones, the partition table (partitions
  // the snapshot lacks are deleted; each of its partitions is empty, its next offset the
  // snapshot's), no producer or transaction state; the log is emptied and starts at
  // snapshot.begin, where append_replicated() continues with the leader's bytes. Crash-atomic:
  // a crash leaves either the old store or the reset one (FORMAT.md). `done` once durable.
  virtual void reset_to(BootstrapSnapshot /*snapshot*/, StatusCallback done) {
    done(Status::invalid_argument("reset_to not supported"));
  }
  // Queued on the writer in order with the writes. kLeader: `epoch` must be above
  // every epoch in epochs() (else kConflict), unless already leading it; its (epoch,
  // log end) is persisted (an RKM1 entry and the journal, synced) before `done`, and
  // writes queued after this op are stamped with it. One exception to "above": a leader
  // fenced at its epoch (set_role(kFenced, E) after leading E) may lead E again while E
  // is still the last epoch and its log was not cut since (no truncate_to, no follower
  // role in between; not across a reopen): nothing new is written, writes resume
  // stamped with E. The caller must know the group still names it leader of E. kFollower / kFenced: the write
  // calls are refused with kNotLeader from the next op on. kSingle (the default at
  // every open): today's single-broker behaviour.
  virtual void set_role(Role /*role*/, int32_t /*epoch*/, StatusCallback done) {
    done(Status::invalid_argument("set_role not supported"));
  }
  // Any thread, replicated roles: the log up to `position` is held by every member that
  // must hold it (SCALE-OUT.md §3.7's C). Queued on the writer: each partition's high
  // watermark moves to the next offset of its last batch appended by a group that ended
  // at or below it, and the append listener fires with the partitions whose high
  // watermark moved (in the replicated roles it fires on that, not on appends). C and the
  // high watermarks are persisted in every checkpoint taken in a replicated role (and
  // kept by a kSingle store that has not taken a replicated role since open): the first
  // role change into a replicated role after open starts from them, capped by the log
  // the store recovered; without them (a store that never left kSingle, an older
  // checkpoint) high watermarks start at the start offset. Either way the entries after
  // C wait for a confirmation reaching the log end of that moment.
  virtual void set_confirmed(int64_t /*position*/) {}
  // Any thread: C as this store knows it (the highest set_confirmed applied, at most its
  // log end, or the checkpoint's until a replicated role starts; 0 when none): the
  // start of ReplicationServerOptions::confirmed for a leader.
  virtual int64_t confirmed_position() const { return 0; }

  // Flushes everything, writes the clean-shutdown marker and stops the writer.
  // Destroying a Store without close() abandons it like a crash (no flush, no
  // checkpoint, no marker; queued requests fail with kShutdown): the next open recovers.
  virtual Status close() = 0;
};

}  // namespace rokka::storage
