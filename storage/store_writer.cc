// StoreWriter: the writer thread (store_writer.h). OpQueue first, then the thread
// loop, the op handlers in the order of the header's table, and the timers.
#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "storage/logger.h"
#include "storage/meta_keys.h"
#include "storage/partition_records.h"
#include "storage/recovery.h"
#include "storage/store_writer.h"
#include "storage/thread.h"

namespace rokka::storage {

namespace {

// A leader's rewrite goes out as RKW1 rewrite commits of at most `max_units` new batches
// each (so none outgrows the largest batch entry): [from, to) is cut at base offsets of
// the stored batches (`stored_bases`, ascending) that no new batch straddles, so each
// commit's range still matches the stored batches when a follower (or recovery) applies
// the commits in order. Each piece: the index one past its last new batch, and its end
// offset (`to` for the last). nullopt when no such cut keeps a piece within max_units.
struct RewritePiece {
  size_t end_batch = 0;
  int64_t to = 0;
};
std::optional<std::vector<RewritePiece>> split_rewrite(std::span<const std::span<const std::byte>> batches,
                                                       std::span<const int64_t> stored_bases, int64_t to,
                                                       size_t max_units) {
  namespace fb = format::batch;
  auto next_offset = [&](size_t i) {
    return fb::i64(batches[i], fb::kBaseOffset) + fb::i32(batches[i], fb::kLastOffsetDelta) + 1;
  };
  std::vector<RewritePiece> pieces;
  size_t a = 0;
  while (batches.size() - a > max_units) {
    size_t j = a + max_units;  // the next piece's first batch, as far on as allowed
    int64_t cut = -1;
    for (; j > a; --j) {
      const int64_t prev_end = next_offset(j - 1);
      auto it = std::lower_bound(stored_bases.begin(), stored_bases.end(), prev_end);
      if (it != stored_bases.end() && *it <= fb::i64(batches[j], fb::kBaseOffset)) {
        cut = *it;
        break;
      }
    }
    if (j == a) return std::nullopt;
    pieces.push_back({j, cut});
    a = j;
  }
  pieces.push_back({batches.size(), to});
  return pieces;
}

}  // namespace

bool OpQueue::push(WriterOp&& op) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    ops_.push_back(std::move(op));
  }
  cv_.notify_one();
  return true;
}

OpQueue::State OpQueue::take(std::vector<WriterOp>& out, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [this] { return !ops_.empty() || closed_; });
  out.swap(ops_);
  return abandoned_ ? State::kAbandoned : closed_ ? State::kClosed : State::kOpen;
}

bool OpQueue::empty() const {
  std::lock_guard lock(mu_);
  return ops_.empty();
}

void OpQueue::close(bool abandon) {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    abandoned_ = abandoned_ || abandon;
  }
  cv_.notify_one();
}

void fail_op(WriterOp& op, const Status& s) {
  std::visit(
      [&](auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, AppendOp>) {
          if (o.done) o.done(std::vector<Result<AppendInfo>>(o.requests.size(), s));
        } else {
          if (o.done) o.done(s);
        }
      },
      op);
}

StoreWriter::StoreWriter(const StoreState& state, Start start)
    : options_(state.options),
      log_(state.log),
      index_(state.index),
      journal_(state.journal),
      partitions_(state.partitions),
      flusher_(state.log, state.fs(), checkpoint_path(state.options)),
      state_at_(start.state_at),
      restored_confirmed_(start.confirmed),
      next_partition_(start.next_partition),
      checkpoint_pos_(start.checkpoint_pos) {
  publish_confirmed();
  const auto now = Clock::now();
  next_flush_ = now + std::chrono::milliseconds(options_.flush_interval_ms);
  next_checkpoint_ = now + std::chrono::milliseconds(options_.checkpoint_interval_ms);
  next_retention_ = now + std::chrono::milliseconds(options_.retention_check_interval_ms);
  thread_ = start_named_thread("rokka-writer", [this] {
    batch_scheduling();
    run();
  });
}

StoreWriter::~StoreWriter() {
  std::lock_guard lock(close_mu_);
  if (closed_) return;
  queue_.close(/*abandon=*/true);  // no close(): behave like a crash
  thread_.join();
}  // flusher_ stops as it is destroyed, after its queued job

void StoreWriter::submit(WriterOp op) {
  if (!queue_.push(std::move(op))) fail_op(op, Status::shutdown("store is closed"));
}

void StoreWriter::set_append_listener(Listener listener) {
  std::lock_guard lock(listener_mu_);
  listener_ = std::move(listener);
}

void StoreWriter::set_log_listener(LogListener listener) {
  std::lock_guard lock(listener_mu_);
  has_log_listener_.store(static_cast<bool>(listener), std::memory_order_release);
  log_listener_ = std::move(listener);
}

void StoreWriter::set_replicated_meta_listener(std::function<void()> listener) {
  std::lock_guard lock(listener_mu_);
  meta_listener_ = std::move(listener);
}

void StoreWriter::notify_log_listener() {
  if (!has_log_listener_.load(std::memory_order_acquire)) return;  // nobody listens: no lock, no copy
  const int64_t end = log_.readable_end().value;
  if (end == notified_end_) return;
  LogListener listener;
  {
    std::lock_guard lock(listener_mu_);
    listener = log_listener_;
  }
  if (!listener) return;
  notified_end_ = end;
  listener(end);
}

Status StoreWriter::close() {
  std::lock_guard lock(close_mu_);
  if (!closed_) {
    closed_ = true;
    queue_.close(/*abandon=*/false);
    thread_.join();
    flusher_.stop();
  }
  return close_status_;
}

void StoreWriter::run() {
  std::vector<WriterOp> ops;
  for (;;) {
    const OpQueue::State queue = queue_.take(ops, next_deadline());
    if (queue == OpQueue::State::kAbandoned) {
      for (auto& op : ops) fail_op(op, Status::shutdown("store abandoned"));
      return;
    }
    if (!ops.empty()) process(ops);
    ops.clear();
    run_timers();
    notify_log_listener();  // retention's floor entries (kLeader) are published there
    if (queue == OpQueue::State::kClosed && queue_.empty()) {
      close_status_ = shutdown_cleanly();
      return;
    }
  }
}

StoreWriter::Clock::time_point StoreWriter::next_deadline() const {
  auto t = next_retention_;
  if (log_.has_unflushed() && options_.flush_mode == FlushMode::kAsync) t = std::min(t, next_flush_);
  if (changed_since_checkpoint_) t = std::min(t, next_checkpoint_);
  return t;
}

void StoreWriter::process(std::vector<WriterOp>& ops) {
  for (auto& op : ops) std::visit([this](auto& o) { handle(o); }, op);
  const Status durable = end_group();
  if (durable.ok() && group_records_ > 0) {
    group_commit_records_.observe(static_cast<uint64_t>(group_records_));
    group_commit_bytes_.observe(static_cast<uint64_t>(group_bytes_));
  }
  group_records_ = group_bytes_ = 0;
  if (durable.ok()) {
    log_.publish();  // bytes first: a reader that sees a unit can read its entry
    for (PartitionId id : grown_) {
      Partition* p = partitions_.get(id);
      if (p->txn_index) p->txn_index->publish();  // before the next offset (txn_index.h)
      p->queue.publish();
      p->touched = false;
    }
  } else {
    for (PartitionId id : grown_) partitions_.get(id)->touched = false;
  }
  apply_rewrites(durable);
  const bool replicated_role = role_ != Role::kSingle;
  if (replicated_role && durable.ok() && !grown_.empty()) {  // its high watermarks wait for a confirmation
    UnconfirmedGroup g{log_.write_end().value, {}};
    for (PartitionId id : grown_) g.next.emplace_back(id, partitions_.get(id)->queue.writer_next_offset());
    unconfirmed_.push_back(std::move(g));
    confirm_groups();
  }
  Listener listener;
  {
    std::lock_guard lock(listener_mu_);
    listener = listener_;
  }
  if (replicated_role) {
    std::sort(hw_moved_.begin(), hw_moved_.end());
    hw_moved_.erase(std::unique(hw_moved_.begin(), hw_moved_.end()), hw_moved_.end());
  }
  const std::vector<PartitionId>& wake = replicated_role ? hw_moved_ : grown_;
  if (durable.ok() && listener && !wake.empty()) listener(wake);  // before the acks
  notify_log_listener();
  if (meta_replicated_) {
    meta_replicated_ = false;
    std::function<void()> meta_listener;
    {
      std::lock_guard lock(listener_mu_);
      meta_listener = meta_listener_;
    }
    if (meta_listener) meta_listener();
  }
  grown_.clear();
  hw_moved_.clear();
  for (auto& c : completions_) c(durable);
  completions_.clear();
}

Status StoreWriter::end_group() {
  if (read_only_) return read_only_status();
  Status s = flusher_.error();
  if (s.ok()) s = log_.write_out();
  const bool sync = options_.flush_mode == FlushMode::kSync;
  if (s.ok() && (sync || unflushed_messages_ >= options_.flush_interval_messages) && log_.has_unflushed()) {
    s = log_.flush();
    unflushed_messages_ = 0;
  }
  if (s.ok() && meta_written_ && (sync || meta_must_sync_)) s = journal_.sync();
  meta_written_ = meta_must_sync_ = false;
  if (s.ok() && log_.write_end().value - checkpoint_pos_.value >= options_.checkpoint_interval_bytes)
    s = checkpoint();
  if (!s.ok()) enter_read_only(s);
  return s;
}

void StoreWriter::enter_read_only(const Status& cause) {
  if (read_only_) return;
  read_only_cause_ = cause;
  read_only_ = true;
  log_error("storage failure, store is read-only from now on: {}", cause.to_string());
}

void StoreWriter::handle(AppendOp& op) {
  auto results = std::make_shared<std::vector<Result<AppendInfo>>>();
  results->reserve(op.requests.size());
  const int64_t now = options_.clock_ms();
  const Status refused = role_refusal();
  if (refused.ok()) prefetch_partitions(op.requests);
  for (size_t i = 0; i < op.requests.size(); ++i) {
    if (!refused.ok()) {
      results->push_back(refused);
    } else if (!op.checked[i].ok()) {
      results->push_back(op.checked[i]);
    } else {
      results->push_back(append_one(op.requests[i], now));
    }
  }
  completions_.push_back([results, done = std::move(op.done)](const Status& durable) {
    if (!durable.ok()) {
      for (auto& r : *results)
        if (r.ok()) r = durable;
    }
    if (done) done(std::move(*results));
  });
}

void StoreWriter::prefetch_partitions(std::span<const AppendRequest> requests) const {
  // Two passes, as each depends on the state the one before loads: the Partition objects,
  // then the unit slots their queues' next put() writes.
  for (const AppendRequest& r : requests) {
    if (const Partition* p = partitions_.get(r.partition)) {
      const auto* bytes = reinterpret_cast<const char*>(p);
      for (size_t at = 0; at < sizeof(Partition); at += 64) __builtin_prefetch(bytes + at, 1);
    }
  }
  for (const AppendRequest& r : requests) {
    if (const Partition* p = partitions_.get(r.partition)) p->queue.prefetch_put(index_);
  }
}

Result<AppendInfo> StoreWriter::append_one(const AppendRequest& req, int64_t now) {
  namespace fb = format::batch;
  if (read_only_) return read_only_status();
  Partition* p = partitions_.live(req.partition);
  if (!p) return Status::not_found("partition " + std::to_string(req.partition));
  const auto in = req.batch;
  const int32_t lod = fb::i32(in, fb::kLastOffsetDelta);
  const bool log_append_time = req.timestamp_type == TimestampType::kLogAppendTime;
  const auto entry_size = static_cast<int64_t>(format::kEntryHeaderSize + in.size());
  if (entry_size > log_.max_entry_size()) return Status::too_large("batch larger than a segment");
  auto producer_check = p->check_producer(in);
  if (!producer_check.ok()) return producer_check.status();
  if (*producer_check) {  // an idempotent retry: the original append
    AppendInfo original = **producer_check;
    original.log_end = log_.write_end().value;
    return original;
  }
  auto r = log_.reserve(static_cast<int32_t>(entry_size), now);
  if (!r.ok()) {
    enter_read_only(r.status());
    return r.status();
  }
  const int64_t base = p->queue.writer_next_offset();
  std::byte* entry = r->bytes.data();
  const std::span<std::byte> stored(entry + format::kEntryHeaderSize, in.size());
  std::copy(in.begin(), in.end(), stored.begin());
  format::put_be(stored.data() + fb::kBaseOffset, static_cast<uint64_t>(base), 8);
  if (role_ == Role::kLeader)  // outside the batch CRC, inside the entry CRC (sealed below)
    format::put_be(stored.data() + fb::kLeaderEpoch, static_cast<uint32_t>(epoch_), 4);
  if (log_append_time) {
    const auto attrs = static_cast<uint16_t>(fb::i16(stored, fb::kAttributes) | fb::kTimestampTypeBit);
    format::put_be(stored.data() + fb::kAttributes, attrs, 2);
    format::put_be(stored.data() + fb::kMaxTimestamp, static_cast<uint64_t>(now), 8);
    seal_batch_crc(stored);
  }
  const int64_t max_timestamp = fb::i64(stored, fb::kMaxTimestamp);
  format::seal_entry(entry, {.magic = format::kEntryMagic,
                             .length = static_cast<uint32_t>(entry_size),
                             .partition = req.partition,
                             .base_offset = base,
                             .record_count = lod + 1,
                             .max_timestamp = max_timestamp,
                             .append_time = now});
  const format::QueueUnit unit{r->pos, static_cast<int32_t>(in.size()), lod, base, max_timestamp};
  if (Status s = p->queue.put(index_, unit); !s.ok()) {
    enter_read_only(s);
    return s;
  }
  p->apply_producer_batch(stored, base, now);
  if (!p->touched) {
    p->touched = true;
    grown_.push_back(req.partition);
  }
  unflushed_messages_ += int64_t{lod} + 1;
  group_records_ += int64_t{lod} + 1;
  group_bytes_ += entry_size;
  changed_since_checkpoint_ = true;
  return AppendInfo{base, log_append_time ? now : -1, p->queue.start_offset(), r->pos.value + entry_size};
}

Status StoreWriter::write_meta(const std::vector<MetaStore::Mutation>& batch, bool must_sync) {
  if (read_only_) return read_only_status();
  if (role_ == Role::kLeader) {  // the log first: followers apply it in order with the data
    // With each key's value before it, so that a member cutting this entry off can undo it.
    std::vector<MetaStore::Mutation> undo;
    std::unordered_set<std::string_view> seen;  // views into `batch`
    for (const auto& m : batch) {
      if (!seen.insert(m.key).second) continue;
      auto before = journal_.get(m.key);
      undo.push_back({m.key, before.value_or(std::string()), !before.has_value()});
    }
    const auto payload = replication::encode_meta_entry(batch, undo);
    if (payload.size() > format::kMaxJournalRecord) return Status::too_large("meta batch too large");
    if (Status s = append_payload_entry(format::kMetaMagic, 0, static_cast<uint32_t>(batch.size()), payload); !s.ok())
      return s;
  }
  if (Status s = journal_.append(batch); !s.ok()) {
    enter_read_only(s);
    return s;
  }
  meta_written_ = true;
  meta_must_sync_ = meta_must_sync_ || must_sync;
  return {};
}

Status StoreWriter::append_payload_entry(uint32_t magic, PartitionId partition, uint32_t count,
                                        std::span<const std::byte> payload) {
  const auto entry_size = static_cast<int64_t>(format::kEntryHeaderSize + payload.size());
  if (entry_size > log_.max_entry_size()) return Status::too_large("entry larger than a segment");
  const int64_t now = options_.clock_ms();
  auto r = log_.reserve(static_cast<int32_t>(entry_size), now);
  if (!r.ok()) {
    enter_read_only(r.status());
    return r.status();
  }
  std::copy(payload.begin(), payload.end(), r->bytes.data() + format::kEntryHeaderSize);
  format::seal_payload_entry(r->bytes.data(), {.magic = magic,
                                               .length = static_cast<uint32_t>(entry_size),
                                               .partition = partition,
                                               .record_count = static_cast<int32_t>(count),
                                               .append_time = now});
  changed_since_checkpoint_ = true;
  return {};
}

void StoreWriter::forget_partition(Partition& p) {
  p.live.store(false, std::memory_order_release);
  p.queue.release_all(index_);
  p.producers.reset();
  changed_since_checkpoint_ = true;
}

void StoreWriter::handle(CreateOp& op) {
  if (Status s = role_refusal(); !s.ok()) {
    completions_.push_back([s, done = std::move(op.done)](const Status&) {
      if (done) done(s);
    });
    return;
  }
  std::vector<PartitionId> ids;
  std::vector<MetaStore::Mutation> batch;
  for (uint32_t i = 0; i < op.count; ++i) {
    ids.push_back(next_partition_ + i);
    batch.push_back(partition_records::put_partition(next_partition_ + i, 0));
  }
  batch.push_back(partition_records::put_next_id(next_partition_ + op.count));
  Status s = write_meta(batch, true);
  if (s.ok()) {
    next_partition_ += op.count;
    for (PartitionId id : ids) partitions_.add(id);
    changed_since_checkpoint_ = true;
  }
  completions_.push_back([s, ids = std::move(ids), done = std::move(op.done)](const Status& durable) {
    if (!done) return;
    if (!s.ok()) return done(s);
    if (!durable.ok()) return done(durable);
    done(ids);
  });
}

void StoreWriter::handle(DeleteOp& op) {
  Partition* p = partitions_.live(op.partition);
  Status s = role_refusal();
  if (!s.ok()) {
  } else if (!p) {
    s = Status::not_found("partition " + std::to_string(op.partition));
  } else {
    s = write_meta({partition_records::erase_partition(op.partition)}, true);
    if (s.ok()) forget_partition(*p);
  }
  completions_.push_back([s, done = std::move(op.done)](const Status& durable) {
    if (done) done(s.ok() ? durable : s);
  });
}

void StoreWriter::handle(DeleteRecordsOp& op) {
  Partition* p = partitions_.live(op.partition);
  Result<int64_t> result = Status::not_found("partition " + std::to_string(op.partition));
  if (Status refused = role_refusal(); !refused.ok()) {
    result = refused;
  } else if (p) {
    ConsumeQueue& q = p->queue;
    const int64_t next = q.writer_next_offset();
    const int64_t target = op.offset == -1 ? next : op.offset;
    if (target < 0 || target > next) {
      result = Status::out_of_range("delete_records offset " + std::to_string(op.offset));
    } else if (target <= q.floor()) {
      result = std::max(q.floor(), q.start_offset());
    } else if (Status s = write_meta({partition_records::put_partition(op.partition, target)}, true); !s.ok()) {
      result = s;
    } else {
      q.set_floor(target);
      changed_since_checkpoint_ = true;
      result = std::max(target, q.start_offset());
    }
  }
  completions_.push_back([result, done = std::move(op.done)](const Status& durable) {
    if (!done) return;
    done(result.ok() && !durable.ok() ? Result<int64_t>(durable) : result);
  });
}

void StoreWriter::handle(ProducersOp& op) {
  const Partition* p = partitions_.live(op.partition);
  Result<std::vector<ActiveProducer>> result = Status::not_found("partition " + std::to_string(op.partition));
  if (p) {
    std::vector<ActiveProducer> producers = p->producers ? p->producers->active() : std::vector<ActiveProducer>{};
    if (p->txn_index)
      for (ActiveProducer& a : producers) a.txn_start_offset = p->txn_index->open_first_offset(a.producer_id);
    result = std::move(producers);
  }
  completions_.push_back([result = std::move(result), done = std::move(op.done)](const Status&) mutable {
    if (done) done(std::move(result));
  });
}

void StoreWriter::handle(MetaOp& op) {
  Status s = role_refusal();
  if (s.ok()) s = write_meta(op.batch, false);
  completions_.push_back([s, done = std::move(op.done)](const Status& durable) {
    if (done) done(s.ok() ? durable : s);
  });
}

void StoreWriter::handle(RewriteOp& op) {
  if (Status s = stage_rewrite(op); !s.ok()) {
    completions_.push_back([s, done = std::move(op.done)](const Status&) {
      if (done) done(s);
    });
  }
}

// Checks the request against the writer's view of the partition and appends the new
// batches as rewrite entries; the units are swapped in by apply_rewrites().
Status StoreWriter::stage_rewrite(RewriteOp& op) {
  namespace fb = format::batch;
  const Store::RewriteRequest& rq = op.request;
  if (read_only_) return read_only_status();
  if (Status s = role_refusal(); !s.ok()) return s;
  Partition* p = partitions_.live(rq.partition);
  if (!p) return Status::not_found("partition " + std::to_string(rq.partition));
  for (const auto& st : staged_rewrites_)
    if (st.partition == rq.partition) return Status::conflict("another rewrite of the partition is in progress");
  const auto range = p->queue.batch_range(index_, rq.from, rq.to);
  if (!range) return Status::conflict("rewrite range no longer matches the stored batches");
  if (rq.batches.empty() && range->whole) return Status::invalid_argument("a rewrite must leave batches in the partition");
  int64_t expected = rq.from;
  for (const auto& b : rq.batches) {
    const int64_t base = fb::i64(b, fb::kBaseOffset);
    const int64_t end = base + fb::i32(b, fb::kLastOffsetDelta) + 1;
    if (base < expected || end > rq.to) return Status::invalid_argument("rewritten batch outside the range or out of order");
    if (int64_t{format::kEntryHeaderSize} + static_cast<int64_t>(b.size()) > log_.max_entry_size())
      return Status::too_large("batch larger than a segment");
    expected = end;
  }
  // A leader's RKW1 entries name every new batch (FORMAT.md), each no larger than the
  // largest batch entry, which is what a follower's DATA frames are bounded by: more
  // batches than one may name go out as several, cut between stored batches.
  std::vector<RewritePiece> pieces{{rq.batches.size(), rq.to}};
  if (role_ == Role::kLeader) {
    const int64_t max_units = replication::max_rewrite_units(options_.max_append_bytes);
    if (static_cast<int64_t>(rq.batches.size()) > max_units) {
      const auto bases = p->queue.base_offsets(index_, *range);
      auto split = split_rewrite(rq.batches, bases, rq.to, static_cast<size_t>(max_units));
      if (!split) {
        return Status::too_large("a rewrite into " + std::to_string(rq.batches.size()) +
                                 " batches cannot be cut, between stored batches, into rewrite commits of at most " +
                                 std::to_string(max_units) + " batches (max_append_bytes " +
                                 std::to_string(options_.max_append_bytes) + ")");
      }
      pieces = std::move(*split);
    }
  }
  StagedRewrite staged{rq.partition, range->first, range->last, {}, {}};
  const int64_t now = options_.clock_ms();
  for (const auto& b : rq.batches) {
    auto unit = append_rewritten(rq.partition, b, now);
    if (!unit.ok()) return unit.status();  // entries staged so far are never indexed
    staged.units.push_back(*unit);
  }
  if (role_ == Role::kLeader) {  // followers swap the same units in at these entries (RKW1), in order
    size_t a = 0;
    int64_t from = rq.from;
    for (const auto& piece : pieces) {
      const auto first = staged.units.begin() + static_cast<std::ptrdiff_t>(a);
      const auto last = staged.units.begin() + static_cast<std::ptrdiff_t>(piece.end_batch);
      const auto body = replication::encode_rewrite_commit({from, piece.to, std::vector<format::QueueUnit>(first, last)});
      if (Status s = append_payload_entry(format::kRewriteCommitMagic, rq.partition, 0, body); !s.ok()) return s;
      a = piece.end_batch;
      from = piece.to;
    }
  }
  staged.done = std::move(op.done);
  staged_rewrites_.push_back(std::move(staged));
  changed_since_checkpoint_ = true;
  return {};
}

Result<format::QueueUnit> StoreWriter::append_rewritten(PartitionId id, std::span<const std::byte> batch, int64_t now) {
  namespace fb = format::batch;
  const auto entry_size = static_cast<int64_t>(format::kEntryHeaderSize + batch.size());
  auto r = log_.reserve(static_cast<int32_t>(entry_size), now);
  if (!r.ok()) {
    enter_read_only(r.status());
    return r.status();
  }
  std::byte* entry = r->bytes.data();
  std::copy(batch.begin(), batch.end(), entry + format::kEntryHeaderSize);
  const int64_t base = fb::i64(batch, fb::kBaseOffset);
  const int32_t lod = fb::i32(batch, fb::kLastOffsetDelta);
  const int64_t max_timestamp = fb::i64(batch, fb::kMaxTimestamp);
  format::seal_entry(entry, {.magic = format::kRewriteMagic,
                             .length = static_cast<uint32_t>(entry_size),
                             .partition = id,
                             .base_offset = base,
                             .record_count = lod + 1,
                             .max_timestamp = max_timestamp,
                             .append_time = now});
  return format::QueueUnit{r->pos, static_cast<int32_t>(batch.size()), lod, base, max_timestamp};
}

// After the group's bytes are readable: swaps each staged rewrite's units in, then
// takes a checkpoint whose completion completes the rewrites.
void StoreWriter::apply_rewrites(const Status& durable) {
  if (staged_rewrites_.empty()) return;
  std::vector<StatusCallback> after;
  for (auto& st : staged_rewrites_) {
    auto done = st.done ? std::move(st.done) : StatusCallback([](Status) {});
    Partition* p = partitions_.get(st.partition);
    Status s = durable;
    if (s.ok() && !p->live.load(std::memory_order_relaxed)) s = Status::not_found("partition deleted");
    if (s.ok()) s = p->queue.replace_range(index_, st.first, st.last, st.units);
    if (!s.ok()) {
      done(s);
      continue;
    }
    rewrites_in_flight_.fetch_add(1, std::memory_order_relaxed);
    after.push_back([this, done = std::move(done)](Status result) {
      rewrites_in_flight_.fetch_sub(1, std::memory_order_relaxed);
      done(std::move(result));
    });
  }
  staged_rewrites_.clear();
  if (after.empty()) return;
  if (Status s = checkpoint(std::move(after)); !s.ok()) enter_read_only(s);
}

// ---- replication ----

int32_t StoreWriter::last_epoch() const {
  int32_t last = -1;
  for (const auto& [key, value] : journal_.scan(partition_records::kEpochPrefix))
    if (auto e = partition_records::parse_epoch(key, value)) last = std::max(last, e->epoch);
  return last;
}

void StoreWriter::handle(SetRoleOp& op) {
  Status s;
  if (read_only_) {
    s = read_only_status();
  } else if (op.role != Role::kLeader) {
    change_role(op.role);
    epoch_ = op.epoch;
    if (op.role != Role::kFenced) led_epoch_ = -1;
  } else if (role_ == Role::kLeader && epoch_ == op.epoch) {
    // already leading this epoch
  } else if (role_ == Role::kFenced && epoch_ == op.epoch && led_epoch_ == op.epoch && op.epoch == last_epoch()) {
    // A fenced leader resuming its own epoch: its start is written already, and nothing was
    // written or cut since (a fenced store refuses writes; a cut forgets led_epoch_).
    change_role(Role::kLeader);
    log_info("store leads epoch {} again", op.epoch);
  } else if (op.epoch < 0 || op.epoch <= last_epoch()) {
    s = Status::conflict("leader epoch " + std::to_string(op.epoch) + " not above the last one");
  } else {
    const Role old_role = role_;
    const int32_t old_epoch = epoch_;
    change_role(Role::kLeader);  // so that the epoch's record is its first entry (RKM1)
    epoch_ = op.epoch;
    const int64_t start = log_.write_end().value;
    s = write_meta({partition_records::put_epoch(op.epoch, start)}, /*must_sync=*/true);
    if (!s.ok()) {
      change_role(old_role);
      epoch_ = old_epoch;
    } else {
      led_epoch_ = op.epoch;
      log_info("store leads epoch {} from log position {}", op.epoch, start);
    }
  }
  completions_.push_back([s, done = std::move(op.done)](const Status& durable) {
    if (done) done(s.ok() ? durable : s);
  });
}

void StoreWriter::change_role(Role role) {
  const bool was = role_ != Role::kSingle, now = role != Role::kSingle;
  role_ = role;
  replicated_.store(now, std::memory_order_release);
  if (!now) {
    unconfirmed_.clear();
    confirmed_ = 0;
    restored_confirmed_ = -1;
  } else if (!was) {
    // What is stored so far becomes readable once a confirmation covers it; the part
    // below the checkpoint's C (first time after open) is readable at once, with the high
    // watermarks recovery restored.
    const int64_t end = log_.write_end().value;
    const bool restored = restored_confirmed_ >= 0;
    confirmed_ = restored ? std::min(restored_confirmed_, end) : 0;
    restored_confirmed_ = -1;
    UnconfirmedGroup g{end, {}};
    partitions_.for_each([&](PartitionId id, Partition& p) {
      if (!restored) p.hw.store(-1, std::memory_order_release);
      if (p.live.load(std::memory_order_relaxed)) g.next.emplace_back(id, p.queue.writer_next_offset());
    });
    unconfirmed_.push_back(std::move(g));
    confirm_groups();
  }
  publish_confirmed();
}

void StoreWriter::confirm_groups() {
  while (!unconfirmed_.empty() && unconfirmed_.front().end <= confirmed_) {
    for (const auto& [id, next] : unconfirmed_.front().next) {
      Partition* p = partitions_.get(id);
      if (p && p->hw.load(std::memory_order_relaxed) < next) {
        p->hw.store(next, std::memory_order_release);
        hw_moved_.push_back(id);
      }
    }
    unconfirmed_.pop_front();
  }
}

void StoreWriter::handle(ConfirmOp& op) {
  if (role_ == Role::kSingle) return;
  confirmed_ = std::max(confirmed_, std::min(op.position, log_.write_end().value));
  confirm_groups();
  publish_confirmed();
}

void StoreWriter::handle(AppendReplicatedOp& op) {
  const Status s = apply_replicated(op);
  completions_.push_back([s, done = std::move(op.done)](const Status& durable) {
    if (done) done(s.ok() ? durable : s);
  });
}

Status StoreWriter::apply_replicated(const AppendReplicatedOp& op) {
  if (read_only_) return read_only_status();
  if (role_ != Role::kFollower) return Status::not_leader("append_replicated needs the follower role");
  if (op.from != log_.write_end().value)
    return Status::conflict("replicated bytes from " + std::to_string(op.from) + ", log ends at " +
                            std::to_string(log_.write_end().value));
  for (const auto& piece : op.pieces) {
    if (Status s = apply_piece(piece); !s.ok()) {
      enter_read_only(s);
      return s;
    }
  }
  return {};
}

// One checked piece at the write position: the bytes verbatim, then its dispatch.
Status StoreWriter::apply_piece(const replication::Piece& piece) {
  if (piece.tail) return log_.seal_segment(options_.clock_ms());  // writes the same blank (or nothing)
  auto r = log_.reserve(static_cast<int32_t>(piece.bytes.size()), piece.header.append_time);
  if (!r.ok()) return r.status();
  if (r->pos != piece.pos) return Status::corruption("replicated entry placed at another position");  // split() rules it out
  std::copy(piece.bytes.begin(), piece.bytes.end(), r->bytes.begin());
  changed_since_checkpoint_ = true;
  const CommitLog::ScannedEntry e{piece.pos, piece.header, piece.body()};
  const bool below_snapshot = piece.pos.value < state_at_;  // its state came with a re-bootstrap
  auto indexed = index_entry(partitions_, index_, e, /*may_jump=*/false, /*apply_state=*/!below_snapshot);
  if (!indexed.ok()) return indexed.status();
  switch (*indexed) {
    case Indexed::kUnit: {
      Partition* p = partitions_.get(e.header.partition);
      if (!p->touched) {
        p->touched = true;
        grown_.push_back(e.header.partition);
      }
      unflushed_messages_ += e.header.record_count;
      return {};
    }
    case Indexed::kMeta:
      return below_snapshot ? Status{} : apply_replicated_meta(e.batch);
    case Indexed::kRewriteCommit:
      // Its RKR1 entries must be readable before readers switch to them.
      if (Status s = log_.write_out(); !s.ok()) return s;
      log_.publish();
      return apply_rewrite_commit(partitions_, index_, log_, e.header.partition, e.batch);
    case Indexed::kSkipped:
    case Indexed::kNoPartition:
    case Indexed::kRewrite:
      return {};
  }
  return {};
}

// RKM1 on a follower: the leader's meta write, applied to this store's partition table
// as the leader's handlers did, then to its journal.
Status StoreWriter::apply_replicated_meta(std::span<const std::byte> payload) {
  auto entry = replication::decode_meta_entry(payload);
  if (!entry) return Status::corruption("RKM1 body does not decode");
  const bool store_keys = apply_store_records(entry->batch, /*undo=*/false);
  meta_replicated_ = true;
  return write_meta(entry->batch, store_keys);  // not the leader: the journal only
}

// The storage keys of a meta batch (s/p/, s/next_pid) applied to the partition table as
// the leader's handlers did; with `undo` (a cut's undo batch) floors and the next id may
// go down, and a partition the cut had deleted cannot come back: its mutation is dropped
// from `batch` (logged). Returns whether the batch holds storage keys (journal synced).
bool StoreWriter::apply_store_records(std::vector<MetaStore::Mutation>& batch, bool undo) {
  namespace pr = partition_records;
  bool store_keys = false;
  std::erase_if(batch, [&](const MetaStore::Mutation& m) {
    if (!m.key.starts_with(meta_prefix::kStore)) return false;
    store_keys = true;
    if (m.key.starts_with(pr::kPartitionPrefix)) {
      const auto record = pr::parse_partition(m.key, m.erase ? std::string(8, '\0') : m.value);
      if (!record) return false;
      Partition* p = partitions_.get(record->id);
      const bool live = p && p->live.load(std::memory_order_relaxed);
      if (m.erase) {
        if (live) forget_partition(*p);
        return false;
      }
      if (undo && p && !live) {
        log_error("partition {} was deleted by a log entry a truncation cut; its index is gone, it stays deleted "
                  "on this member", record->id);
        return true;
      }
      if (!p) {
        p = partitions_.add(record->id);
        changed_since_checkpoint_ = true;
      } else if (!live) {  // an id a cut's undo took back, created again
        p->queue.reset_to(record->floor);
        p->queue.restore_floor(record->floor);
        p->queue.publish();
        p->producers.reset();
        p->hw.store(-1, std::memory_order_release);  // as a new partition's
        p->live.store(true, std::memory_order_release);
        changed_since_checkpoint_ = true;
      }
      if (undo) {
        p->queue.restore_floor(record->floor);
      } else {
        p->queue.set_floor(record->floor);
      }
      next_partition_ = std::max(next_partition_, record->id + 1);
    } else if (m.key == pr::kNextIdKey && !m.erase) {
      if (auto next = pr::parse_next_id(m.value)) next_partition_ = undo ? *next : std::max(next_partition_, *next);
    }
    return false;
  });
  return store_keys;
}

void StoreWriter::handle(TruncateOp& op) {
  StatusCallback done = std::move(op.done);
  Status s = truncate_log(op.position, done);
  if (!s.ok() || done) {  // done was not handed to a checkpoint
    completions_.push_back([s, done = std::move(done)](const Status& durable) {
      if (done) done(s.ok() ? durable : s);
    });
  }
}

// The recovery cut, live: units (published at once, before the bytes go), producer
// and transaction state, the log, the epochs from there on; then a checkpoint, whose
// completion runs `done` (moved from) once durable.
Status StoreWriter::truncate_log(int64_t position, StatusCallback& done) {
  if (read_only_) return read_only_status();
  if (role_ != Role::kFollower && role_ != Role::kFenced)
    return Status::not_leader("truncate_to needs the follower or fenced role");
  const LogPosition end = log_.write_end();
  if (position == end.value) return {};
  if (position > end.value || position < log_.first_position().value)
    return Status::out_of_range("truncate_to " + std::to_string(position) + " outside the log");
  if (Status s = log_.write_out(); !s.ok()) {
    enter_read_only(s);
    return s;
  }
  const LogPosition cut{position};
  if (!log_.entry_boundary(cut)) return Status::invalid_argument("truncate_to " + std::to_string(position) + " is not an entry boundary");
  led_epoch_ = -1;  // its log is no longer what it led: it may lead only a new epoch
  // High watermarks: never above the cut's next offsets; the groups cut are replaced
  // by one ending at the cut (the partitions' entries below it still wait for it).
  while (!unconfirmed_.empty() && unconfirmed_.back().end > position) unconfirmed_.pop_back();
  confirmed_ = std::min(confirmed_, position);
  publish_confirmed();
  UnconfirmedGroup at_cut{position, {}};
  partitions_.for_each([&](PartitionId id, Partition& p) {
    p.queue.truncate_after(index_, cut);
    const int64_t next = p.queue.writer_next_offset();
    if (p.producers) p.producers->truncate(next);
    if (p.txn_index) {
      p.txn_index->truncate(next);
      p.txn_index->publish();
    }
    if (p.hw.load(std::memory_order_relaxed) > next) p.hw.store(next, std::memory_order_release);
    if (p.live.load(std::memory_order_relaxed)) at_cut.next.emplace_back(id, next);
  });
  if (role_ != Role::kSingle) unconfirmed_.push_back(std::move(at_cut));
  std::vector<MetaStore::Mutation> undo = meta_undo(cut, end);  // read before the bytes go
  Status s = log_.truncate(cut);
  if (s.ok() && !undo.empty()) {
    apply_store_records(undo, /*undo=*/true);
    meta_replicated_ = true;
    if (!undo.empty()) s = write_meta(undo, true);
  }
  if (s.ok() && position < state_at_) {  // entries from the cut on apply their state again
    state_at_ = position;
    s = write_meta({partition_records::put_state_at(position)}, true);
  }
  if (s.ok()) {  // epochs of cut entries that carried no undo part
    std::vector<MetaStore::Mutation> erase;
    for (const auto& [key, value] : journal_.scan(partition_records::kEpochPrefix))
      if (auto e = partition_records::parse_epoch(key, value); e && e->start >= position)
        erase.push_back(partition_records::erase_epoch(e->epoch));
    if (!erase.empty()) s = write_meta(erase, true);
  }
  if (!s.ok()) {
    enter_read_only(s);
    return s;
  }
  log_warn("log truncated from {} to {}", end.value, position);
  changed_since_checkpoint_ = true;
  std::vector<StatusCallback> after;
  if (done) after.push_back(std::move(done));
  done = nullptr;
  if (Status c = checkpoint(std::move(after)); !c.ok()) enter_read_only(c);  // `after` got the failure
  return {};
}

// The meta writes of the RKM1 entries in [from, end), undone: each key they wrote with its
// value before the first of them that wrote it (their undo parts). An entry without one
// (written before it existed) cannot be undone: logged, its keys stay.
std::vector<MetaStore::Mutation> StoreWriter::meta_undo(LogPosition from, LogPosition end) const {
  std::vector<MetaStore::Mutation> undo;
  std::set<std::string> seen;
  int64_t without = 0;
  log_.scan(from, [&](const CommitLog::ScannedEntry& e) {
    if (e.pos >= end) return false;
    if (e.header.magic != format::kMetaMagic) return true;
    auto entry = replication::decode_meta_entry(e.batch);
    if (!entry || !entry->undo) {
      ++without;
      return true;
    }
    for (auto& u : *entry->undo)
      if (seen.insert(u.key).second) undo.push_back(std::move(u));
    return true;
  });
  if (without > 0) log_warn("{} meta entries cut from the log carry no undo part: their writes stay", without);
  return undo;
}

void StoreWriter::handle(SnapshotOp& op) {
  Store::BootstrapSnapshot snap;
  snap.begin = log_.begin().value;
  snap.end = log_.write_end().value;
  for (auto& kv : journal_.scan(""))
    if (!meta_prefix::node_local(kv.first)) snap.meta.push_back(std::move(kv));
  partitions_.for_each([&](PartitionId id, const Partition& p) {
    if (!p.live.load(std::memory_order_relaxed)) return;
    // Retention drops the units below log_begin: the first one left is the partition's
    // first batch at or after it (in log order, unless compaction moved it: FORMAT.md).
    const ConsumeQueue::State q = p.queue.state();
    int64_t next = q.next_offset, running = q.running_max_ts;
    if (p.queue.unit_count() > 0) {
      next = q.first_base;
      const auto v = p.queue.units();
      if (const auto first = p.queue.unit(index_, v, v.first)) running = first->max_timestamp;  // max up to it
    }
    snap.partitions.push_back(
        {id, next, running, replication::encode_partition_state(p.producers.get(), p.txn_index.get())});
  });
  Result<Store::BootstrapSnapshot> result = std::move(snap);
  completions_.push_back([result = std::move(result), done = std::move(op.done)](const Status&) mutable {
    if (done) done(std::move(result));
  });
}

void StoreWriter::handle(ResetOp& op) {
  const Status s = reset_store(op.snapshot);
  if (!s.ok()) log_error("re-bootstrap at log position {} refused or failed: {}", op.snapshot.begin, s.to_string());
  completions_.push_back([s, done = std::move(op.done)](const Status& durable) {
    if (done) done(s.ok() ? durable : s);
  });
}

// Re-bootstrap (FORMAT.md "Re-bootstrap"). The commit point is one synced journal record:
// the snapshot's keys, the erasure of every other replicated key, l/state_at and the
// marker l/reset; recovery finishes a reset whose marker it finds (recovery.cc). Then the
// in-memory state, the log restarted at `begin`, and a checkpoint written inline once the
// flusher is idle (no older checkpoint may land after it); last the marker goes.
Status StoreWriter::reset_store(const Store::BootstrapSnapshot& snap) {
  namespace pr = partition_records;
  if (read_only_) return read_only_status();
  if (role_ != Role::kFollower) return Status::not_leader("reset_to needs the follower role");
  if (snap.begin % options_.segment_bytes != 0 || snap.begin <= log_.write_end().value || snap.end < snap.begin)
    return Status::invalid_argument("reset_to " + std::to_string(snap.begin) + ": not a segment start above the log end " +
                                    std::to_string(log_.write_end().value));
  std::set<std::string_view> keep;
  for (const auto& [key, value] : snap.meta) {
    if (meta_prefix::node_local(key)) return Status::invalid_argument("snapshot holds a node-local key: " + key);
    if (!keep.insert(key).second) return Status::invalid_argument("snapshot holds a key twice: " + key);
  }
  std::unordered_map<PartitionId, const Store::BootstrapSnapshot::PartitionStart*> starts;
  for (const auto& ps : snap.partitions) {
    ProducerStateTable producers;
    TxnIndex txns;
    if (!replication::decode_partition_state(ps.state, producers, txns) || ps.next_offset < 0)
      return Status::corruption("snapshot state of partition " + std::to_string(ps.id) + " does not decode");
    if (!starts.emplace(ps.id, &ps).second) return Status::invalid_argument("snapshot names a partition twice");
  }
  std::vector<MetaStore::Mutation> batch;
  for (const auto& [key, value] : journal_.scan(""))
    if (!meta_prefix::node_local(key) && !keep.contains(key)) batch.push_back({key, "", true});
  for (const auto& [key, value] : snap.meta) batch.push_back({key, value, false});
  Store::BootstrapSnapshot marker{snap.begin, snap.end, {}, snap.partitions};
  const auto marker_bytes = replication::encode_snapshot(marker);
  batch.push_back({std::string(pr::kResetKey),
                   std::string(reinterpret_cast<const char*>(marker_bytes.data()), marker_bytes.size()), false});
  batch.push_back(pr::put_state_at(snap.end));
  if (Status s = log_.write_out(); !s.ok()) {
    enter_read_only(s);
    return s;
  }
  if (Status s = journal_.append(batch); !s.ok()) {  // the commit point
    if (s.code() == StatusCode::kTooLarge) return s;  // nothing written
    enter_read_only(s);
    return s;
  }
  if (Status s = journal_.sync(); !s.ok()) {
    enter_read_only(s);
    return s;
  }
  // The partition table as the snapshot says: every partition forgotten, the journal's
  // back, empty at their next offsets, with the snapshot's producer and transaction state.
  partitions_.for_each([&](PartitionId, Partition& p) {
    if (p.live.load(std::memory_order_relaxed)) forget_partition(p);
    p.hw.store(-1, std::memory_order_release);
  });
  next_partition_ = 0;
  for (const auto& [key, value] : journal_.scan(pr::kPartitionPrefix)) {
    const auto record = pr::parse_partition(key, value);
    if (!record) continue;
    Partition* p = partitions_.get(record->id);
    if (!p) p = partitions_.add(record->id);
    const auto it = starts.find(record->id);
    start_partition(*p, record->floor, it == starts.end() ? nullptr : it->second);
    next_partition_ = std::max(next_partition_, record->id + 1);
  }
  if (auto v = journal_.get(std::string(pr::kNextIdKey)))
    if (auto n = pr::parse_next_id(*v)) next_partition_ = std::max(next_partition_, *n);
  state_at_ = snap.end;
  // The log, empty from `begin`; confirmations start over there.
  if (Status s = log_.restart_at(LogPosition{snap.begin}, options_.clock_ms()); !s.ok()) {
    enter_read_only(s);
    return s;
  }
  led_epoch_ = -1;
  unconfirmed_.clear();
  confirmed_ = 0;
  UnconfirmedGroup at_begin{snap.begin, {}};
  partitions_.for_each([&](PartitionId id, Partition& p) {
    if (p.live.load(std::memory_order_relaxed)) at_begin.next.emplace_back(id, p.queue.writer_next_offset());
  });
  unconfirmed_.push_back(std::move(at_begin));
  publish_confirmed();
  changed_since_checkpoint_ = true;
  flusher_.wait_idle();
  Status s = flusher_.error();
  if (s.ok()) s = checkpoint_now();
  if (s.ok()) s = journal_.append({{std::string(pr::kResetKey), "", true}});
  if (s.ok()) s = journal_.sync();
  if (!s.ok()) {
    enter_read_only(s);
    return s;
  }
  log_warn("store re-bootstrapped: its log starts at {} (the leader's end was {}), {} meta keys, {} partitions",
           snap.begin, snap.end, snap.meta.size(), snap.partitions.size());
  meta_replicated_ = true;
  return {};
}

void StoreWriter::run_timers() {
  const auto now = Clock::now();
  Status s = flusher_.error();
  if (options_.flush_mode == FlushMode::kAsync && now >= next_flush_) {
    next_flush_ = now + std::chrono::milliseconds(options_.flush_interval_ms);
    if (!read_only_ && log_.has_unflushed()) {
      s = log_.mark_for_sync();
      if (s.ok()) flusher_.submit({});  // fdatasync on the flusher thread: appends go on meanwhile
      unflushed_messages_ = 0;
    }
    if (s.ok() && !read_only_) s = journal_.sync();
  }
  if (s.ok() && !read_only_ && now >= next_retention_) {
    next_retention_ = now + std::chrono::milliseconds(options_.retention_check_interval_ms);
    s = enforce_retention();
  }
  if (s.ok() && !read_only_ && changed_since_checkpoint_ && now >= next_checkpoint_) s = checkpoint();
  if (s.ok() && !read_only_) s = journal_.maybe_compact();
  if (!s.ok()) enter_read_only(s);
}

Status StoreWriter::checkpoint(std::vector<StatusCallback> after) {
  next_checkpoint_ = Clock::now() + std::chrono::milliseconds(options_.checkpoint_interval_ms);
  Status s = log_.mark_for_sync();
  if (s.ok()) s = journal_.sync();
  if (!s.ok()) {
    for (auto& cb : after) cb(s);
    return s;
  }
  unflushed_messages_ = 0;
  flusher_.submit({index_.take_dirty(), encode_checkpoint(state(), confirmed_to_persist()), std::move(after)});
  checkpoint_pos_ = log_.write_end();
  changed_since_checkpoint_ = false;
  return {};
}

Status StoreWriter::checkpoint_now() {
  next_checkpoint_ = Clock::now() + std::chrono::milliseconds(options_.checkpoint_interval_ms);
  auto pos = checkpoint_inline(state(), confirmed_to_persist());
  if (!pos.ok()) return pos.status();
  checkpoint_pos_ = *pos;
  changed_since_checkpoint_ = false;
  return {};
}

Status StoreWriter::enforce_retention() {
  index_.recycle();  // chunks released a full retention interval ago
  const int64_t now = options_.clock_ms();
  const auto segs = log_.segments();
  const int64_t end = log_.write_end().value;
  size_t drop = 0;
  // Nothing while a rewrite's checkpoint is pending; never a retained partition's data.
  const LogPosition keep_from =
      rewrites_in_flight_.load(std::memory_order_relaxed) > 0 ? LogPosition{} : retained_limit();
  while (drop + 1 < segs.size() && segs[drop].end <= keep_from) {
    const auto& seg = segs[drop];
    const bool too_old = options_.retention_ms >= 0 && now - seg.last_append_ms > options_.retention_ms;
    const bool too_big =
        options_.retention_bytes >= 0 && end - segs[drop + 1].start.value >= options_.retention_bytes;
    if (!too_old && !too_big) break;
    ++drop;
  }
  std::vector<MetaStore::Mutation> floors;
  if (drop > 0) {
    const LogPosition begin = segs[drop].start;
    partitions_.for_each([&](PartitionId id, Partition& p) {
      if (!p.live.load(std::memory_order_relaxed) || !p.queue.drop_before(index_, begin)) return;
      // A partition emptied by retention keeps its next offset only in the
      // checkpoint; record it durably too, so a lost checkpoint cannot reuse offsets.
      if (p.queue.unit_count() == 0) floors.push_back(partition_records::put_partition(id, p.queue.writer_next_offset()));
    });
    if (Status s = log_.drop_oldest(drop); !s.ok()) return s;
    changed_since_checkpoint_ = true;
  }
  partitions_.for_each([&](PartitionId, Partition& p) {
    if (p.producers) p.producers->expire(now, options_.producer_id_expiration_ms);
    if (p.txn_index) p.txn_index->trim(p.queue.start_offset());
  });
  if (floors.empty()) return {};
  if (Status s = write_meta(floors, false); !s.ok()) return s;
  if (role_ == Role::kLeader) {  // its RKM1 is outside any group: make it readable for followers now
    if (Status s = log_.write_out(); !s.ok()) return s;
    log_.publish();
  }
  return {};
}

LogPosition StoreWriter::retained_limit() const {
  LogPosition limit{INT64_MAX};
  partitions_.for_each([&](PartitionId, const Partition& p) {
    if (!p.live.load(std::memory_order_relaxed) || !p.retained.load(std::memory_order_acquire)) return;
    if (const auto oldest = p.queue.oldest_entry(index_)) limit = std::min(limit, *oldest);
  });
  return limit;
}

Status StoreWriter::shutdown_cleanly() {
  flusher_.stop();  // its jobs done, the last checkpoint below is the newest
  if (Status s = flusher_.error(); !s.ok()) enter_read_only(s);
  if (read_only_) return read_only_status();
  Status s = checkpoint_now();
  if (s.ok()) s = options_.fs->remove(abort_marker_path(options_));
  if (s.ok()) s = options_.fs->sync_dir(options_.dir);
  if (!s.ok()) enter_read_only(s);
  return s;
}

}  // namespace rokka::storage
