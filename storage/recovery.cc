// Store::open's recovery, before the writer thread starts:
//   1. MetaJournal replay (torn tail cut) -> the partition table.
//   2. CommitLog segments mapped; the checkpoint (CRC'd) and the index files it needs.
//   3. With a usable checkpoint (after a crash or a clean shutdown): re-read the log
//      from up to recovery_verify_bytes before the checkpoint's position (within its
//      segment), then the tail, verifying every entry's CRCs, re-adding index units
//      and producer state; cut at the first bad entry.
//      No usable checkpoint or index: rebuild every index from the whole log.
//   4. Drop index units that point past the cut (index ahead of log) or before the
//      oldest segment; apply start-offset floors; publish; checkpoint; "abort" marker.
#include <algorithm>

#include "storage/logger.h"
#include "storage/partition_records.h"
#include "storage/store_impl.h"

namespace rokka::storage {
namespace {

// A checkpointed ChunkDir must cover the unit range it claims, with allocated chunks.
bool dir_consistent(const ConsumeQueue::State& q, uint32_t chunk_units, uint32_t next_chunk) {
  for (uint32_t c : q.dir.chunks)
    if (c >= next_chunk) return false;
  if (q.first_unit == q.unit_end) return true;
  const int64_t first_ordinal = q.first_unit / chunk_units;
  const int64_t last_ordinal = (q.unit_end - 1) / chunk_units;
  return q.dir.first_chunk_ordinal <= first_ordinal &&
         last_ordinal - q.dir.first_chunk_ordinal < static_cast<int64_t>(q.dir.chunks.size());
}

}  // namespace

Status StoreImpl::load_partition_table() {
  namespace pr = partition_records;
  for (const auto& [key, value] : journal_->scan(pr::kPartitionPrefix)) {
    const auto record = pr::parse_partition(key, value);
    if (!record) {
      log_warn("meta: ignoring malformed partition record key={}", key);
      continue;
    }
    partitions_.add(record->id);
    next_partition_ = std::max(next_partition_, record->id + 1);
  }
  if (auto v = journal_->get(std::string(pr::kNextIdKey))) {
    if (auto next = pr::parse_next_id(*v)) next_partition_ = std::max(next_partition_, *next);
  }
  return {};
}

bool StoreImpl::restore_checkpoint(Checkpoint& cp) {
  for (const auto& pc : cp.partitions) {
    if (!dir_consistent(pc.queue, options_.index_chunk_units, cp.next_chunk)) return false;
  }
  for (auto& pc : cp.partitions) {
    Partition* p = partitions_.get(pc.id);
    if (!p) {  // deleted since: its chunks are free again
      index_->release(pc.queue.dir.chunks);
      continue;
    }
    p->queue.restore(pc.queue);
    auto holds = [&](const QueueUnit& u) { return log_->holds_entry(u.pos, u.size, pc.id, u.base_offset); };
    if (!p->queue.units_consistent(*index_, cp.log_end, holds)) {
      log_warn("index units of partition {} do not match the checkpoint", pc.id);
      return false;
    }
    if (!pc.producers.empty()) p->producers = std::make_unique<ProducerStateTable>(pc.producers);
    if (pc.txns) {
      p->txn_index = std::move(pc.txns);
      p->txns.store(p->txn_index.get(), std::memory_order_release);
    }
  }
  index_->recycle();
  for (const auto& [start, ms] : cp.segment_ages) log_->set_last_append_ms({start}, ms);
  return true;
}

// Re-verify some log before the checkpoint position too, after a crash and after a
// clean shutdown alike (a clean stop does not vouch for the disk): a log that lost or
// damaged bytes there is cut at the first bad entry, and the units that point past
// the cut are dropped. Entries already indexed are skipped. The window is the
// checkpoint's segment up to recovery_verify_bytes; it starts at an entry boundary,
// the first indexed entry inside it (every unit was checked against the log).
LogPosition StoreImpl::reverify_start(LogPosition from) const {
  LogPosition segment_start = from;
  for (const auto& seg : log_->segments())
    if (seg.start < from && from <= seg.end) segment_start = seg.start;
  if (from.value - segment_start.value <= options_.recovery_verify_bytes) return segment_start;
  const LogPosition target{from.value - options_.recovery_verify_bytes};
  LogPosition start = from;
  partitions_.for_each([&](PartitionId, Partition& p) {
    if (auto pos = p.queue.first_entry_at_or_after(*index_, target); pos && *pos < start) start = *pos;
  });
  return start;
}

Status StoreImpl::replay_log(LogPosition from, bool rebuild) {
  int64_t entries = 0, skipped = 0, rewritten = 0;
  Status failure;
  const LogPosition end = log_->scan(from, [&](const CommitLog::ScannedEntry& e) {
    Partition* p = partitions_.get(e.header.partition);
    if (!p) return true;  // a deleted partition's bytes wait for retention
    if (e.header.magic == format::kRewriteMagic) {
      ++rewritten;  // a rewrite not covered by the checkpoint: the original units stand
      return true;
    }
    ConsumeQueue& q = p->queue;
    const bool may_jump = rebuild && q.unit_count() == 0;
    if (!may_jump && e.header.base_offset != q.writer_next_offset()) {
      ++skipped;  // not the partition's next batch: stale or inconsistent, never index it
      return true;
    }
    const int32_t lod = format::batch::i32(e.batch, format::batch::kLastOffsetDelta);
    const format::QueueUnit unit{e.pos, static_cast<int32_t>(e.batch.size()), lod, e.header.base_offset,
                                 e.header.max_timestamp};
    if (failure = q.put(*index_, unit); !failure.ok()) return false;
    p->apply_producer_batch(e.batch, e.header.base_offset, e.header.append_time);
    ++entries;
    return true;
  });
  if (!failure.ok()) return failure;
  log_info("recovered commit log: from={} valid_end={} entries={} skipped={} rewritten={} rebuild={}",
           from.value, end.value, entries, skipped, rewritten, rebuild);
  return log_->truncate(end);
}

Status StoreImpl::recover() {
  const auto& dir = options_.dir;
  auto journal = MetaJournal::open(*fs_, dir / "meta");
  if (!journal.ok()) return journal.status();
  journal_ = std::move(*journal);
  auto log = CommitLog::open({.dir = dir / "commitlog",
                               .segment_bytes = options_.segment_bytes,
                               .fs = fs_,
                               .cache_retain_bytes = options_.page_cache_retain_bytes,
                               .preallocate = options_.preallocate});
  if (!log.ok()) return log.status();
  log_ = std::move(*log);
  if (Status s = load_partition_table(); !s.ok()) return s;
  const bool crashed = fs_->exists(dir / "abort");

  std::optional<Checkpoint> cp;
  if (auto bytes = read_file(*fs_, dir / "checkpoint"); bytes.ok()) {
    auto decoded = decode_checkpoint(*bytes);
    if (decoded.ok()) {
      cp = std::move(*decoded);
    } else {
      log_warn("checkpoint unusable, rebuilding the index from the log: {}", decoded.status().to_string());
    }
  } else if (bytes.status().code() != StatusCode::kNotFound) {
    return bytes.status();
  }

  const IndexOptions iopt{dir / "index", fs_, options_.index_chunk_units, options_.index_file_chunks};
  bool rebuild = true;
  if (cp) {
    auto ix = IndexFiles::open(iopt, cp->next_chunk, cp->free_chunks);
    if (ix.ok()) {
      index_ = std::move(*ix);
      rebuild = !restore_checkpoint(*cp);
      if (rebuild) log_warn("checkpoint index state inconsistent, rebuilding the index from the log");
    } else {
      log_warn("index files unusable, rebuilding from the log: {}", ix.status().to_string());
    }
  }
  const auto segments = log_->segments();
  const LogPosition log_limit = segments.empty() ? LogPosition{} : segments.back().end;
  if (rebuild) {
    auto ix = IndexFiles::open(iopt, 0, {});
    if (!ix.ok()) return ix.status();
    index_ = std::move(*ix);
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
  }
  LogPosition from = rebuild ? log_->begin() : std::min(cp->log_end, log_limit);
  if (segments.empty()) from = rebuild ? LogPosition{} : cp->log_end;
  if (!rebuild) from = reverify_start(from);
  if (Status s = replay_log(from, rebuild); !s.ok()) return s;

  const LogPosition end = log_->write_end(), begin = log_->begin();
  partitions_.for_each([&](PartitionId, Partition& p) {
    p.queue.truncate_after(*index_, end);  // index ahead of log
    if (p.producers) p.producers->truncate(p.queue.writer_next_offset());
    if (p.txn_index) p.txn_index->truncate(p.queue.writer_next_offset());
    p.queue.drop_before(*index_, begin);   // segments deleted after the checkpoint
  });
  for (const auto& [key, value] : journal_->scan(partition_records::kPartitionPrefix)) {
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
  const int64_t now = now_ms();
  for (const auto& seg : log_->segments())
    if (seg.last_append_ms == 0) log_->set_last_append_ms(seg.start, now);  // age unknown: keep it a full period

  checkpoint_pos_ = cp && !rebuild ? std::min(cp->log_end, end) : LogPosition{};
  if (rebuild || crashed || !cp || end < cp->log_end) {
    if (Status s = checkpoint_now(); !s.ok()) return s;
  }
  auto marker = fs_->open(dir / "abort", true);
  if (!marker.ok()) return marker.status();
  return fs_->sync_dir(dir);
}

}  // namespace rokka::storage
