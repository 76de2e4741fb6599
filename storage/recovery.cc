#include "storage/recovery.h"

#include <algorithm>
#include <optional>

#include "storage/checkpoint.h"
#include "storage/logger.h"
#include "storage/partition_records.h"
#include "storage/replication.h"
#include "storage/store_state.h"

namespace rokka::storage {
namespace {

// A checkpointed ChunkDir must cover the unit range it claims, with allocated chunks.
bool dir_consistent(const ConsumeQueue::State& q, const IndexFiles& ix) {
  const ChunkDir& dir = q.dir;
  for (size_t i = 0; i < dir.chunks.size(); ++i) {
    const bool small = dir.small_first && dir.first_chunk_ordinal + static_cast<int64_t>(i) == 0;
    if (small ? !ix.small_chunk_allocated(dir.chunks[i]) : dir.chunks[i] >= ix.next_chunk()) return false;
  }
  if (dir.first_chunk_ordinal < 0) return false;
  if (q.first_unit == q.unit_end) return true;
  const int64_t first_ordinal = unit_place(ix, dir.small_first, q.first_unit).chunk_ordinal;
  const int64_t last_ordinal = unit_place(ix, dir.small_first, q.unit_end - 1).chunk_ordinal;
  return dir.first_chunk_ordinal <= first_ordinal &&
         last_ordinal - dir.first_chunk_ordinal < static_cast<int64_t>(dir.chunks.size());
}

// One recovery: the steps of recover() in order (recovery.h), sharing what they open.
class Recovery {
 public:
  Recovery(const StoreOptions& options, PartitionTable& partitions)
      : options_(options), fs_(*options.fs), partitions_(partitions) {}
  Result<RecoveredStore> run();

 private:
  Status open_journal_and_log();
  void load_partition_table();
  Result<std::optional<Checkpoint>> read_checkpoint();
  // Opens the index files the checkpoint names and restores the queues from it;
  // else new index files. Returns whether the index must be rebuilt from the log.
  Result<bool> open_index(std::optional<Checkpoint>& cp);
  bool restore_checkpoint(Checkpoint& cp);
  LogPosition reverify_start(LogPosition checkpoint_pos) const;
  LogPosition segment_start_of(LogPosition pos) const;
  LogPosition reverify_floor(LogPosition checkpoint_pos) const;  // reverify_start before alignment
  // `commits_from`: RKW1 entries from there on are applied (earlier ones are in the checkpoint).
  Status replay_log(LogPosition from, bool rebuild, LogPosition commits_from);
  void settle();  // after the replay: units, floors, publish, segment ages
  // C and the high watermarks as the checkpoint had them, capped by the recovered log.
  void restore_confirmed(const Checkpoint& cp);
  // A re-bootstrap (Store::reset_to) whose journal record is durable but whose
  // checkpoint is not: its log restarted at the marker's begin, the checkpoint ignored.
  Status finish_reset(std::optional<Checkpoint>& cp);
  Status erase_reset_marker();

  const StoreOptions& options_;
  FileSystem& fs_;
  PartitionTable& partitions_;
  RecoveredStore out_;
  std::optional<Store::BootstrapSnapshot> reset_;  // l/reset (no meta keys), when the journal holds one
};

Status Recovery::finish_reset(std::optional<Checkpoint>& cp) {
  auto v = out_.journal->get(std::string(partition_records::kResetKey));
  if (!v) return {};
  auto marker = replication::decode_snapshot({reinterpret_cast<const std::byte*>(v->data()), v->size()});
  if (!marker.ok()) return Status::corruption("re-bootstrap marker does not decode: " + marker.status().to_string());
  reset_ = std::move(*marker);
  if (cp && cp->log_end.value >= reset_->begin) {  // the reset's checkpoint (older ones end below it)
    reset_.reset();
    return erase_reset_marker();
  }
  log_warn("finishing a re-bootstrap at log position {} a crash interrupted", reset_->begin);
  cp.reset();
  const auto segments = out_.log->segments();
  if (segments.empty() || segments.front().start.value != reset_->begin)
    return out_.log->restart_at(LogPosition{reset_->begin}, options_.clock_ms());
  return {};
}

Status Recovery::erase_reset_marker() {
  if (Status s = out_.journal->append({{std::string(partition_records::kResetKey), "", true}}); !s.ok()) return s;
  return out_.journal->sync();
}

Status Recovery::open_journal_and_log() {
  auto journal = MetaJournal::open(fs_, options_.dir / "meta");
  if (!journal.ok()) return journal.status();
  out_.journal = std::move(*journal);
  auto log = CommitLog::open({.dir = options_.dir / "commitlog",
                              .segment_bytes = options_.segment_bytes,
                              .fs = &fs_,
                              .tail_cache_bytes = options_.tail_cache_bytes,
                              .direct_io = options_.direct_io,
                              .cache_retain_bytes = options_.page_cache_retain_bytes,
                              .preallocate = options_.preallocate});
  if (!log.ok()) return log.status();
  out_.log = std::move(*log);
  return {};
}

void Recovery::load_partition_table() {
  namespace pr = partition_records;
  if (auto v = out_.journal->get(std::string(pr::kStateAtKey))) {
    if (auto at = pr::parse_state_at(*v)) out_.state_at = *at;
  }
  for (const auto& [key, value] : out_.journal->scan(pr::kPartitionPrefix)) {
    const auto record = pr::parse_partition(key, value);
    if (!record) {
      log_warn("meta: ignoring malformed partition record key={}", key);
      continue;
    }
    partitions_.add(record->id);
    out_.next_partition = std::max(out_.next_partition, record->id + 1);
  }
  if (auto v = out_.journal->get(std::string(pr::kNextIdKey))) {
    if (auto next = pr::parse_next_id(*v)) out_.next_partition = std::max(out_.next_partition, *next);
  }
}

Result<std::optional<Checkpoint>> Recovery::read_checkpoint() {
  auto bytes = read_file(fs_, checkpoint_path(options_));
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) return std::optional<Checkpoint>{};
    return bytes.status();
  }
  auto decoded = decode_checkpoint(*bytes);
  if (!decoded.ok()) {
    log_warn("checkpoint unusable, rebuilding the index from the log: {}", decoded.status().to_string());
    return std::optional<Checkpoint>{};
  }
  return std::optional<Checkpoint>(std::move(*decoded));
}

Result<bool> Recovery::open_index(std::optional<Checkpoint>& cp) {
  const IndexOptions iopt{options_.dir / "index", &fs_, options_.index_chunk_units, options_.index_file_chunks,
                          options_.index_first_chunk_units};
  // Versions 1-3 record no geometry: their chunks are of the configured size (the
  // uniform layout, no small chunks).
  const bool same_geometry = !cp || cp->chunk_units == 0 ||
                             (cp->chunk_units == options_.index_chunk_units &&
                              cp->first_chunk_units == options_.index_first_chunk_units);
  if (cp && !same_geometry) {
    log_warn("index written with chunks of {}/{} units, configured {}/{}: rebuilding the index from the log",
             cp->first_chunk_units, cp->chunk_units, options_.index_first_chunk_units, options_.index_chunk_units);
  } else if (cp) {
    auto ix = IndexFiles::open(iopt, cp->next_chunk, cp->free_chunks, cp->free_small_chunks);
    if (ix.ok()) {
      out_.index = std::move(*ix);
      if (restore_checkpoint(*cp)) return false;
      log_warn("checkpoint index state inconsistent, rebuilding the index from the log");
    } else {
      log_warn("index files unusable, rebuilding from the log: {}", ix.status().to_string());
    }
  }
  auto ix = IndexFiles::open(iopt, 0, {});
  if (!ix.ok()) return ix.status();
  out_.index = std::move(*ix);
  partitions_.for_each([](PartitionId, Partition& p) {
    p.queue.reset_to(0);
    p.producers.reset();
    p.txns.store(nullptr, std::memory_order_relaxed);  // no reader yet: the store is opening
    p.txn_index.reset();
  });
  if (cp) {  // next offsets of partitions whose data retention already removed
    for (const auto& pc : cp->partitions)
      if (Partition* p = partitions_.get(pc.id)) p->queue.reset_to(pc.queue.next_offset);
  }
  return true;
}

bool Recovery::restore_checkpoint(Checkpoint& cp) {
  IndexFiles& index = *out_.index;
  const CommitLog& log = *out_.log;
  for (const auto& pc : cp.partitions) {
    if (!dir_consistent(pc.queue, index)) return false;
  }
  // Units the checkpoint's digest vouches for are not checked against the log's entry
  // headers below the stretch replay_log() re-verifies (reading one header per stored
  // batch made a start cost a read of the whole log); reads check each entry's header.
  const LogPosition entries_from = reverify_floor(cp.log_end);
  for (auto& pc : cp.partitions) {
    Partition* p = partitions_.get(pc.id);
    if (!p) {  // deleted since: its chunks are free again
      release_chunks(index, pc.queue.dir);
      continue;
    }
    p->queue.restore(pc.queue);
    auto holds = [&](const QueueUnit& u) { return log.holds_entry(u.pos, u.size, pc.id, u.base_offset); };
    if (!p->queue.units_consistent(index, cp.log_end, holds, entries_from)) {
      log_warn("index units of partition {} do not match the checkpoint", pc.id);
      return false;
    }
    if (!pc.producers.empty()) p->producers = std::make_unique<ProducerStateTable>(pc.producers);
    if (pc.txns) {
      p->txn_index = std::move(pc.txns);
      p->txns.store(p->txn_index.get(), std::memory_order_release);
    }
  }
  index.recycle();
  for (const auto& [start, ms] : cp.segment_ages) out_.log->set_last_append_ms({start}, ms);
  return true;
}

// Re-verify some log before the checkpoint position too, after a crash and after a
// clean shutdown alike (a clean stop does not vouch for the disk): a log that lost or
// damaged bytes there is cut at the first bad entry, and the units that point past
// the cut are dropped. Entries already indexed are skipped. The window is the
// checkpoint's segment up to recovery_verify_bytes; it starts at an entry boundary,
// the first indexed entry inside it (every unit there was checked against the log).
LogPosition Recovery::segment_start_of(LogPosition from) const {
  LogPosition segment_start = from;
  for (const auto& seg : out_.log->segments())
    if (seg.start < from && from <= seg.end) segment_start = seg.start;
  return segment_start;
}

LogPosition Recovery::reverify_floor(LogPosition from) const {
  const LogPosition segment_start = segment_start_of(from);
  if (from.value - segment_start.value <= options_.recovery_verify_bytes) return segment_start;
  return LogPosition{from.value - options_.recovery_verify_bytes};
}

LogPosition Recovery::reverify_start(LogPosition from) const {
  const LogPosition segment_start = segment_start_of(from);
  if (from.value - segment_start.value <= options_.recovery_verify_bytes) return segment_start;
  const LogPosition target{from.value - options_.recovery_verify_bytes};
  LogPosition start = from;
  partitions_.for_each([&](PartitionId, Partition& p) {
    if (auto pos = p.queue.first_entry_at_or_after(*out_.index, target); pos && *pos < start) start = *pos;
  });
  return start;
}

Status Recovery::replay_log(LogPosition from, bool rebuild, LogPosition commits_from) {
  int64_t entries = 0, skipped = 0, rewritten = 0, commits = 0;
  Status failure;
  const LogPosition end = out_.log->scan(from, [&](const CommitLog::ScannedEntry& e) {
    // Below a re-bootstrap's E the snapshot brought the producer and transaction state, unless
    // the checkpoint that held it is gone (a whole-log rebuild keeps what the log gives).
    auto r = index_entry(partitions_, *out_.index, e, rebuild, rebuild || e.pos.value >= out_.state_at);
    if (!r.ok()) {
      failure = r.status();
      return false;
    }
    switch (*r) {
      case Indexed::kUnit: ++entries; break;
      case Indexed::kSkipped: ++skipped; break;
      case Indexed::kRewrite: ++rewritten; break;  // a rewrite not covered by the checkpoint: see its RKW1
      case Indexed::kNoPartition: break;           // a deleted partition's bytes wait for retention
      case Indexed::kMeta: break;                  // the journal holds it already
      case Indexed::kRewriteCommit:                // after the checkpoint (which holds earlier ones)
        if (e.pos >= commits_from) {
          failure = apply_rewrite_commit(partitions_, *out_.index, *out_.log, e.header.partition, e.batch);
          ++commits;
        }
        break;
    }
    return failure.ok();
  });
  if (!failure.ok()) return failure;
  log_info("recovered commit log: from={} valid_end={} entries={} skipped={} rewritten={} rewrite_commits={} rebuild={}",
           from.value, end.value, entries, skipped, rewritten, commits, rebuild);
  return out_.log->truncate(end);
}

void Recovery::settle() {
  IndexFiles& index = *out_.index;
  const LogPosition end = out_.log->write_end(), begin = out_.log->begin();
  // Below a re-bootstrap's E the producer and transaction state is E's (the snapshot's), not
  // the log's: it is cut only where the log reaches that far.
  const bool state_of_log = end.value >= out_.state_at;
  partitions_.for_each([&](PartitionId, Partition& p) {
    p.queue.truncate_after(index, end);  // index ahead of log
    if (p.producers && state_of_log) p.producers->truncate(p.queue.writer_next_offset());
    if (p.txn_index && state_of_log) p.txn_index->truncate(p.queue.writer_next_offset());
    p.queue.drop_before(index, begin);   // segments deleted after the checkpoint
  });
  for (const auto& [key, value] : out_.journal->scan(partition_records::kPartitionPrefix)) {
    const auto record = partition_records::parse_partition(key, value);
    if (Partition* p = record ? partitions_.get(record->id) : nullptr) p->queue.set_floor(record->floor);
  }
  partitions_.for_each([](PartitionId, Partition& p) {
    if (p.txn_index) {
      p.txns.store(p.txn_index.get(), std::memory_order_release);
      p.txn_index->publish();
    }
    p.queue.publish();
  });
  const int64_t now = options_.clock_ms();
  for (const auto& seg : out_.log->segments())
    if (seg.last_append_ms == 0) out_.log->set_last_append_ms(seg.start, now);  // age unknown: keep it a full period
}

void Recovery::restore_confirmed(const Checkpoint& cp) {
  if (cp.confirmed < 0) return;  // a kSingle store's, or an older version's
  out_.confirmed = std::min(cp.confirmed, out_.log->write_end().value);
  for (const auto& pc : cp.partitions) {
    Partition* p = partitions_.get(pc.id);
    if (p && pc.high_watermark >= 0)
      p->hw.store(std::min(pc.high_watermark, p->queue.writer_next_offset()), std::memory_order_relaxed);
  }
}

Result<RecoveredStore> Recovery::run() {
  if (Status s = open_journal_and_log(); !s.ok()) return s;
  load_partition_table();
  const bool crashed = fs_.exists(abort_marker_path(options_));
  auto cp = read_checkpoint();
  if (!cp.ok()) return cp.status();
  if (Status s = finish_reset(*cp); !s.ok()) return s;
  auto rebuild = open_index(*cp);
  if (!rebuild.ok()) return rebuild.status();
  if (reset_) {  // the reset's partitions, as its checkpoint would have had them
    for (const auto& ps : reset_->partitions)
      if (Partition* p = partitions_.get(ps.id)) start_partition(*p, p->queue.floor(), &ps);
  }

  const auto segments = out_.log->segments();
  const LogPosition log_limit = segments.empty() ? LogPosition{} : segments.back().end;
  LogPosition from = *rebuild ? out_.log->begin() : std::min((*cp)->log_end, log_limit);
  if (segments.empty()) from = *rebuild ? LogPosition{} : (*cp)->log_end;
  if (!*rebuild) from = reverify_start(from);
  const LogPosition commits_from = *rebuild ? LogPosition{} : (*cp)->log_end;
  if (Status s = replay_log(from, *rebuild, commits_from); !s.ok()) return s;
  settle();
  if (*cp) restore_confirmed(**cp);

  const LogPosition end = out_.log->write_end();
  out_.checkpoint_pos = *cp && !*rebuild ? std::min((*cp)->log_end, end) : LogPosition{};
  if (*rebuild || crashed || !*cp || end < (*cp)->log_end) {
    const StoreState state{options_, *out_.log, *out_.index, *out_.journal, partitions_};
    auto pos = checkpoint_inline(state, out_.confirmed);
    if (!pos.ok()) return pos.status();
    out_.checkpoint_pos = *pos;
  }
  if (reset_) {
    if (Status s = erase_reset_marker(); !s.ok()) return s;
  }
  auto marker = fs_.open(abort_marker_path(options_), true);
  if (!marker.ok()) return marker.status();
  if (Status s = fs_.sync_dir(options_.dir); !s.ok()) return s;
  return std::move(out_);
}

}  // namespace

Result<Indexed> index_entry(PartitionTable& partitions, IndexFiles& index, const CommitLog::ScannedEntry& e,
                            bool may_jump, bool apply_state) {
  if (e.header.magic == format::kMetaMagic) return Indexed::kMeta;
  if (e.header.magic == format::kRewriteCommitMagic) return Indexed::kRewriteCommit;
  Partition* p = partitions.get(e.header.partition);
  if (!p || !p->live.load(std::memory_order_relaxed)) return Indexed::kNoPartition;
  if (e.header.magic == format::kRewriteMagic) return Indexed::kRewrite;
  ConsumeQueue& q = p->queue;
  const bool jump = q.unit_count() == 0 && (may_jump || !apply_state);
  if (!jump && e.header.base_offset != q.writer_next_offset())
    return Indexed::kSkipped;  // not the partition's next batch: stale or inconsistent, never index it
  const int32_t lod = format::batch::i32(e.batch, format::batch::kLastOffsetDelta);
  const format::QueueUnit unit{e.pos, static_cast<int32_t>(e.batch.size()), lod, e.header.base_offset,
                               e.header.max_timestamp};
  if (Status s = q.put(index, unit); !s.ok()) return s;
  if (apply_state) p->apply_producer_batch(e.batch, e.header.base_offset, e.header.append_time);
  return Indexed::kUnit;
}

void start_partition(Partition& p, int64_t floor, const Store::BootstrapSnapshot::PartitionStart* start) {
  ProducerStateTable producers;
  TxnIndex txns;
  const bool have = start && replication::decode_partition_state(start->state, producers, txns);
  ConsumeQueue::State empty;  // no units, no chunk
  empty.floor = floor;
  empty.next_offset = have ? start->next_offset : 0;
  empty.running_max_ts = have ? start->running_max_ts : -1;
  p.queue.restore(empty);
  p.producers.reset();
  if (have && !producers.empty()) p.producers = std::make_unique<ProducerStateTable>(std::move(producers));
  if (p.txn_index) p.txn_index->truncate(0);  // readers may hold it: emptied, never freed
  if (have && !txns.empty()) {
    ProducerStateTable skipped;
    (void)replication::decode_partition_state(start->state, skipped, p.writer_txns());  // decoded once above
  }
  if (p.txn_index) p.txn_index->publish();
  p.queue.publish();
  p.hw.store(-1, std::memory_order_release);
  p.live.store(true, std::memory_order_release);
}

Status apply_rewrite_commit(PartitionTable& partitions, IndexFiles& index, const CommitLog& log, PartitionId partition,
                            std::span<const std::byte> body) {
  const auto c = replication::decode_rewrite_commit(body);
  Partition* p = partitions.live(partition);
  if (!c || !p) return {};
  const auto range = p->queue.batch_range(index, c->from, c->to);
  bool ok = range && !(c->units.empty() && range->whole);
  int64_t expected = c->from;
  for (const auto& u : c->units) {
    if (!ok) break;
    ok = u.base_offset >= expected && u.next_offset() <= c->to &&
         log.holds_entry(u.pos, u.size, partition, u.base_offset);
    expected = u.next_offset();
  }
  if (!ok) {
    log_warn("rewrite commit of partition {} [{}, {}) no longer matches: skipped", partition, c->from, c->to);
    return {};
  }
  return p->queue.replace_range(index, range->first, range->last, c->units);
}

Result<RecoveredStore> recover(const StoreOptions& options, PartitionTable& partitions) {
  return Recovery(options, partitions).run();
}

}  // namespace rokka::storage
