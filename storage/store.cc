// Store facade (store_impl.h): open, op submission, and the read paths (any thread).
#include <algorithm>
#include <limits>

#include "storage/logger.h"
#include "storage/partition_records.h"
#include "storage/replication.h"
#include "storage/recovery.h"
#include "storage/store_impl.h"

namespace rokka::storage {
namespace {

// Caller-thread checks of one RecordBatch v2 (CPU work stays off the writer). The store
// checks every batch it is given, whoever gives it, because its index units, offsets and
// producer state are built from these header fields: a client's batch has passed Kafka's
// rules in the produce handler (protocol::check_produce_records and check_produced, on
// the same wire::batch checks), but the transaction markers and compaction's rewrites are
// the broker's own and pass only here. The produce handler computes the CRC only of a
// batch it refuses or rewrites: this is where an accepted batch's CRC is verified.
Status check_batch(std::span<const std::byte> b, int64_t max_bytes) {
  namespace fb = format::batch;
  if (static_cast<int64_t>(b.size()) > max_bytes) return Status::too_large("batch larger than max_append_bytes");
  if (const char* why = fb::defect(b)) return Status::invalid_argument(why);
  if (fb::lacks_sequence(b)) return Status::invalid_argument("idempotent batch without a sequence");
  if (!batch_crc_ok(b)) return Status::corruption("batch CRC mismatch");
  return {};
}

}  // namespace

Result<std::unique_ptr<Store>> Store::open(StoreOptions options) {
  if (options.segment_bytes < 64 * 1024 || options.max_append_bytes > options.segment_bytes / 2 ||
      options.index_chunk_units == 0 || options.index_file_chunks == 0 || options.index_first_chunk_units == 0 ||
      options.index_chunk_units % options.index_first_chunk_units != 0)
    return Status::invalid_argument("bad store options");
  auto store = std::make_unique<StoreImpl>(std::move(options));
  if (Status s = store->start(); !s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

StoreImpl::StoreImpl(StoreOptions options) : options_(std::move(options)) {
  if (!options_.fs) options_.fs = &FileSystem::real();
  if (!options_.clock_ms) {
    options_.clock_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

Status StoreImpl::start() {
  if (Status s = options_.fs->create_dirs(options_.dir); !s.ok()) return s;
  auto lock = DirLock::acquire(options_.dir);  // before reading anything: another broker may be writing
  if (!lock.ok()) return lock.status();
  dir_lock_ = std::move(*lock);
  auto recovered = recover(options_, partitions_);
  if (!recovered.ok()) return recovered.status();
  journal_ = std::move(recovered->journal);
  log_ = std::move(recovered->log);
  index_ = std::move(recovered->index);
  writer_ = std::make_unique<StoreWriter>(StoreState{options_, *log_, *index_, *journal_, partitions_},
                                          StoreWriter::Start{recovered->next_partition, recovered->checkpoint_pos,
                                                             recovered->confirmed, recovered->state_at});
  return {};
}

void StoreImpl::create_partitions(uint32_t count, std::function<void(Result<std::vector<PartitionId>>)> done) {
  writer_->submit(CreateOp{count, std::move(done)});
}

void StoreImpl::delete_partition(PartitionId partition, StatusCallback done) {
  writer_->submit(DeleteOp{partition, std::move(done)});
}

void StoreImpl::delete_records(PartitionId partition, int64_t offset, std::function<void(Result<int64_t>)> done) {
  writer_->submit(DeleteRecordsOp{partition, offset, std::move(done)});
}

void StoreImpl::active_producers(PartitionId partition, ProducersCallback done) {
  writer_->submit(ProducersOp{partition, std::move(done)});
}

void StoreImpl::write(std::vector<Mutation> batch, StatusCallback done) {
  writer_->submit(MetaOp{std::move(batch), std::move(done)});
}

std::vector<std::pair<std::string, std::string>> StoreImpl::scan(std::string_view prefix) const {
  return journal_->scan(prefix);
}

void StoreImpl::append(std::vector<AppendRequest> requests, AppendCallback done) {
  AppendOp op{std::move(requests), {}, std::move(done)};
  op.checked.reserve(op.requests.size());
  for (const auto& r : op.requests) op.checked.push_back(check_batch(r.batch, options_.max_append_bytes));
  writer_->submit(std::move(op));
}

void StoreImpl::rewrite(RewriteRequest request, StatusCallback done) {
  for (const auto& b : request.batches) {
    if (Status s = check_batch(b, options_.max_append_bytes); !s.ok()) return done(s);
  }
  writer_->submit(RewriteOp{std::move(request), std::move(done)});
}

std::vector<EpochStart> StoreImpl::epochs() const {
  std::vector<EpochStart> out;
  for (const auto& [key, value] : journal_->scan(partition_records::kEpochPrefix))
    if (auto e = partition_records::parse_epoch(key, value)) out.push_back(*e);
  return out;  // ascending: the keys are zero-padded epochs
}

void StoreImpl::append_replicated(int64_t from, std::span<const std::byte> bytes, StatusCallback done) {
  AppendReplicatedOp op{from, std::vector<std::byte>(bytes.begin(), bytes.end()), {}, std::move(done)};
  auto pieces = replication::split(from, op.bytes, options_.segment_bytes);  // CRCs off the writer
  if (!pieces.ok()) return op.done(pieces.status());
  op.pieces = std::move(*pieces);  // views into op.bytes, whose buffer moves with the op
  writer_->submit(std::move(op));
}

void StoreImpl::truncate_to(int64_t position, StatusCallback done) {
  writer_->submit(TruncateOp{position, std::move(done)});
}

void StoreImpl::bootstrap_snapshot(SnapshotCallback done) { writer_->submit(SnapshotOp{std::move(done)}); }

void StoreImpl::reset_to(BootstrapSnapshot snapshot, StatusCallback done) {
  writer_->submit(ResetOp{std::move(snapshot), std::move(done)});
}

void StoreImpl::set_role(Role role, int32_t epoch, StatusCallback done) {
  writer_->submit(SetRoleOp{role, epoch, std::move(done)});
}

void StoreImpl::set_confirmed(int64_t position) { writer_->submit(ConfirmOp{position, nullptr}); }

void StoreImpl::set_retained(PartitionId partition, bool retained) {
  // Partitions are added on the writer thread only; an unknown id is ignored.
  if (Partition* p = partitions_.get(partition)) p->retained.store(retained, std::memory_order_release);
}

void StoreImpl::set_append_listener(std::function<void(std::span<const PartitionId>)> listener) {
  writer_->set_append_listener(std::move(listener));
}

void StoreImpl::set_log_listener(std::function<void(int64_t)> listener) {
  writer_->set_log_listener(std::move(listener));
}

void StoreImpl::set_replicated_meta_listener(std::function<void()> listener) {
  writer_->set_replicated_meta_listener(std::move(listener));
}

StoreStats StoreImpl::stats() const {
  return {.group_commit_records = &writer_->group_commit_records(),
          .group_commit_bytes = &writer_->group_commit_bytes(),
          .retention_deleted_segments = log_->deleted_segments(),
          .retention_deleted_bytes = log_->deleted_bytes(),
          .page_cache_log_bytes = log_->cache_window_bytes(),
          .page_cache_index_bytes = index_->cache_window_bytes()};
}

Status StoreImpl::close() {
  Status s = writer_->close();
  dir_lock_.reset();  // writer and flusher are gone: another Store may open the directory now
  return s;
}

Result<PartitionOffsets> StoreImpl::offsets(PartitionId partition) const {
  const Partition* p = partitions_.live(partition);
  if (!p) return Status::not_found("partition " + std::to_string(partition));
  // next first: start is published after next, and start <= next must hold in the answer;
  // the first unstable offset is published before next (txn_index.h).
  const int64_t next = p->queue.next_offset();
  const int64_t start = std::min(p->queue.start_offset(), next);
  const TxnIndex* txns = p->txns.load(std::memory_order_acquire);
  const int64_t unstable = txns ? txns->first_unstable() : -1;
  int64_t hw = next;
  if (writer_->replicated()) {
    const int64_t h = p->hw.load(std::memory_order_acquire);
    hw = h < 0 ? start : std::clamp(h, start, next);
  }
  const int64_t stable = unstable < 0 ? hw : std::clamp(unstable, start, hw);
  return PartitionOffsets{start, next, stable, hw};
}

// The unit to read `offset` (>= the start offset) from: the batch holding it, or the
// next one when it lies in a gap compaction left (below the first batch kept, or
// between two), as Kafka serves the next batch present.
int64_t StoreImpl::first_unit_for(const ConsumeQueue& q, const ConsumeQueue::Units& v, int64_t offset) const {
  const int64_t i = q.find_offset(*index_, v, offset);
  if (i < 0) return v.end > v.first ? v.first : -1;
  const auto u = q.unit(*index_, v, i);
  if (u && u->next_offset() <= offset && i + 1 < v.end) return i + 1;
  return i;
}

Result<ReadResult> StoreImpl::read(PartitionId partition, int64_t offset, int64_t max_bytes) const {
  const Partition* p = partitions_.live(partition);
  if (!p) return Status::not_found("partition " + std::to_string(partition));
  ReadResult out;
  out.offsets = *offsets(partition);
  if (offset < out.offsets.log_start_offset || offset > out.offsets.next_offset)
    return Status::out_of_range("offset " + std::to_string(offset));
  if (offset >= out.offsets.high_watermark) return out;  // kSingle: the next offset
  const ConsumeQueue& q = p->queue;
  const auto v = q.units();
  const int64_t first = first_unit_for(q, v, offset);
  if (first < 0) return Status::out_of_range("offset " + std::to_string(offset) + " no longer indexed");
  int64_t bytes = 0, end = offset;
  for (int64_t i = first; i < v.end; ++i) {
    const auto u = q.unit(*index_, v, i);
    if (!u || (!out.batches.empty() && bytes + u->size > max_bytes)) break;
    if (u->base_offset >= out.offsets.high_watermark) break;  // not confirmed yet (replicated roles)
    auto slice = log_->read_batch(u->pos, u->size, partition, u->base_offset);
    if (!slice.ok()) {
      if (out.batches.empty()) return slice.status();
      break;
    }
    out.batches.push_back(std::move(*slice));
    bytes += u->size;
    end = u->next_offset();
    if (bytes >= max_bytes) break;
  }
  // After the offsets: an abort published since is then visible here too (txn_index.h).
  if (const TxnIndex* txns = p->txns.load(std::memory_order_acquire)) out.aborted = txns->aborted_overlapping(offset, end);
  return out;
}

Result<TimestampOffset> StoreImpl::lookup_timestamp(PartitionId partition, int64_t ts) const {
  const Partition* p = partitions_.live(partition);
  if (!p) return Status::not_found("partition " + std::to_string(partition));
  const ConsumeQueue& q = p->queue;
  const int64_t start = q.start_offset();
  const auto v = q.units();
  const int64_t from = std::max(q.find_offset(*index_, v, start), v.first);
  const int64_t i = q.find_timestamp(*index_, v, from, ts);
  const auto u = i >= 0 ? q.unit(*index_, v, i) : std::nullopt;
  if (!u) return TimestampOffset{};
  return TimestampOffset{u->max_timestamp, std::max(u->base_offset, start)};
}

Result<int64_t> StoreImpl::partition_bytes(PartitionId partition) const {
  const Partition* p = partitions_.live(partition);
  if (!p) return Status::not_found("partition " + std::to_string(partition));
  const int64_t start = p->queue.start_offset();
  const auto v = p->queue.units();
  int64_t bytes = 0;
  for (int64_t i = v.end > v.first ? first_unit_for(p->queue, v, start) : -1; i >= 0 && i < v.end; ++i) {
    const auto u = p->queue.unit(*index_, v, i);
    if (!u) break;
    if (u->next_offset() > start) bytes += u->size;  // not a batch wholly below the start offset
  }
  return bytes;
}

Result<EpochEndOffset> StoreImpl::epoch_end_offset(PartitionId partition, int32_t leader_epoch) const {
  const Partition* p = partitions_.live(partition);
  if (!p) return Status::not_found("partition " + std::to_string(partition));
  const std::vector<EpochStart> known = epochs();
  if (known.empty() || leader_epoch < 0 || leader_epoch > known.back().epoch) return EpochEndOffset{};
  const ConsumeQueue& q = p->queue;
  // next first, as offsets() does: the units read below end at or after it.
  const int64_t next = q.next_offset();
  const int64_t start = std::min(q.start_offset(), next);
  if (leader_epoch == known.back().epoch) return EpochEndOffset{leader_epoch, next};
  const auto v = q.units();
  // The epoch a leader stamped into unit i's batch; the lowest int32 when the unit or its
  // bytes went meanwhile (retention drops the oldest first: they count as below every epoch).
  auto epoch_of = [&](int64_t i) -> int32_t {
    constexpr int32_t kGone = std::numeric_limits<int32_t>::min();
    const auto u = q.unit(*index_, v, i);
    if (!u) return kGone;
    auto slice = log_->read_batch(u->pos, u->size, partition, u->base_offset);
    if (!slice.ok()) return kGone;
    return format::batch::i32(slice->bytes, format::batch::kLeaderEpoch);
  };
  // The first unit holding a batch at or after the start offset, and the first after it
  // whose epoch is above the one asked (epochs never decrease with the offset).
  const int64_t lo = v.end > v.first ? first_unit_for(q, v, start) : -1;
  if (lo < 0) return EpochEndOffset{-1, start};  // no batch held
  int64_t a = lo, b = v.end;
  while (a < b) {
    const int64_t mid = a + (b - a) / 2;
    if (epoch_of(mid) > leader_epoch) {
      b = mid;
    } else {
      a = mid + 1;
    }
  }
  if (a == lo) return EpochEndOffset{-1, start};  // the later epochs cover the log from its start
  int64_t end = next;
  if (a < v.end) {
    const auto u = q.unit(*index_, v, a);
    if (u) end = std::clamp(u->base_offset, start, next);
  }
  const int32_t held = epoch_of(a - 1);
  return EpochEndOffset{held < 0 ? -1 : held, end};
}

Result<TimestampOffset> StoreImpl::max_timestamp(PartitionId partition) const {
  const Partition* p = partitions_.live(partition);
  if (!p) return Status::not_found("partition " + std::to_string(partition));
  const auto v = p->queue.units();
  const auto last = v.end > v.first ? p->queue.unit(*index_, v, v.end - 1) : std::nullopt;
  if (!last) return TimestampOffset{};
  return lookup_timestamp(partition, last->max_timestamp);
}

}  // namespace rokka::storage
