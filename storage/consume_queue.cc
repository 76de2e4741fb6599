#include "storage/consume_queue.h"

#include <algorithm>

namespace rokka::storage {

ConsumeQueue::Units ConsumeQueue::units() const {
  for (;;) {
    const uint64_t gen = generation_.load(std::memory_order_acquire);
    Units v;
    v.end = unit_end_.load(std::memory_order_acquire);
    v.dir = dir_.load(std::memory_order_acquire);
    v.first = first_unit_.load(std::memory_order_acquire);
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((gen & 1) == 0 && generation_.load(std::memory_order_relaxed) == gen) return v;
  }
}

uint64_t ConsumeQueue::unit_digest(int64_t ordinal, const QueueUnit& u) {
  auto mix = [](uint64_t x) {  // splitmix64's finalizer
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  uint64_t h = mix(static_cast<uint64_t>(ordinal) + 0x9e3779b97f4a7c15ULL);
  h = mix(h ^ static_cast<uint64_t>(u.pos.value));
  h = mix(h ^ (static_cast<uint64_t>(static_cast<uint32_t>(u.size)) << 32 | static_cast<uint32_t>(u.last_offset_delta)));
  h = mix(h ^ static_cast<uint64_t>(u.base_offset));
  return mix(h ^ static_cast<uint64_t>(u.max_timestamp));
}

void release_chunks(IndexFiles& ix, const ChunkDir& dir) {
  if (dir.small_first && dir.first_chunk_ordinal == 0 && !dir.chunks.empty()) {
    ix.release({dir.chunks.begin() + 1, dir.chunks.end()}, {dir.chunks.front()});
  } else {
    ix.release(dir.chunks);
  }
}

std::byte* ConsumeQueue::unit_ptr(const IndexFiles& ix, const ChunkDir& dir, int64_t ordinal) {
  const UnitPlace at = unit_place(ix, dir.small_first, ordinal);
  const uint32_t chunk = dir.chunks[static_cast<size_t>(at.chunk_ordinal - dir.first_chunk_ordinal)];
  return dir.small_first && at.chunk_ordinal == 0 ? ix.small_unit(chunk, at.slot) : ix.unit(chunk, at.slot);
}

std::byte* ConsumeQueue::unit_ptr_for_write(IndexFiles& ix, const ChunkDir& dir, int64_t ordinal) {
  const UnitPlace at = unit_place(ix, dir.small_first, ordinal);
  const uint32_t chunk = dir.chunks[static_cast<size_t>(at.chunk_ordinal - dir.first_chunk_ordinal)];
  return dir.small_first && at.chunk_ordinal == 0 ? ix.small_unit_for_write(chunk, at.slot)
                                                  : ix.unit_for_write(chunk, at.slot);
}

QueueUnit ConsumeQueue::unit_at(const IndexFiles& ix, const ChunkDir& dir, int64_t ordinal) const {
  return format::decode_unit(unit_ptr(ix, dir, ordinal));
}

std::optional<QueueUnit> ConsumeQueue::unit(const IndexFiles& ix, const Units& v, int64_t ordinal) const {
  if (!v.dir || ordinal < v.first || ordinal >= v.end) return std::nullopt;
  const int64_t idx = unit_place(ix, v.dir->small_first, ordinal).chunk_ordinal - v.dir->first_chunk_ordinal;
  if (idx < 0 || idx >= static_cast<int64_t>(v.dir->chunks.size())) return std::nullopt;
  return unit_at(ix, *v.dir, ordinal);
}

int64_t ConsumeQueue::find_offset(const IndexFiles& ix, const Units& v, int64_t offset) const {
  int64_t lo = v.first, hi = v.end - 1, found = -1;
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const auto u = unit(ix, v, mid);
    if (!u) return -1;
    if (u->base_offset <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

int64_t ConsumeQueue::find_timestamp(const IndexFiles& ix, const Units& v, int64_t from, int64_t ts) const {
  int64_t lo = std::max(from, v.first), hi = v.end - 1, found = -1;
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const auto u = unit(ix, v, mid);
    if (!u) return -1;
    if (u->max_timestamp >= ts) {
      found = mid;
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  return found;
}

Status ConsumeQueue::put(IndexFiles& ix, const QueueUnit& in) {
  const int64_t ordinal = w_unit_end_;
  if (w_room_ == 0 || w_next_ordinal_ != ordinal) {  // find the unit's place in the ChunkDir
    const ChunkDir* dir = w_dir_.get();
    // A queue holding no chunk (new, emptied, or rebuilt) starts over in the small-first
    // layout; one that holds chunks keeps its layout.
    const bool fresh = !dir || dir->chunks.empty();
    const bool small_first = fresh || dir->small_first;
    const UnitPlace at = unit_place(ix, small_first, ordinal);
    const bool small = small_first && at.chunk_ordinal == 0;
    if (fresh || at.chunk_ordinal - dir->first_chunk_ordinal >= static_cast<int64_t>(dir->chunks.size())) {
      auto chunk = small ? ix.allocate_small_chunk() : ix.allocate_chunk();
      if (!chunk.ok()) return chunk.status();
      auto next = std::make_shared<ChunkDir>();
      next->small_first = small_first;
      next->first_chunk_ordinal = fresh ? at.chunk_ordinal : dir->first_chunk_ordinal;
      if (!fresh) next->chunks = dir->chunks;
      next->chunks.push_back(*chunk);
      set_dir(std::move(next));
      dir = w_dir_.get();
    }
    const uint32_t chunk = dir->chunks[static_cast<size_t>(at.chunk_ordinal - dir->first_chunk_ordinal)];
    w_next_ = small ? ix.small_place(chunk, at.slot) : IndexFiles::Place{chunk, at.slot};
    w_room_ = (small ? ix.first_chunk_units() : ix.chunk_units()) - at.slot;
    w_next_ordinal_ = ordinal;
  }
  QueueUnit u = in;
  running_max_ts_ = std::max(running_max_ts_, in.max_timestamp);
  u.max_timestamp = running_max_ts_;
  format::encode_unit(u, ix.unit_for_write(w_next_.chunk, w_next_.slot));
  ++w_next_.slot;
  --w_room_;
  ++w_next_ordinal_;
  digest_ += unit_digest(ordinal, u);
  if (w_unit_end_ == w_first_unit_) first_base_ = u.base_offset;  // rebuild: the log says where offsets start
  ++w_unit_end_;
  w_next_offset_ = u.next_offset();
  return {};
}

void ConsumeQueue::refresh_start() {
  const int64_t next = next_offset_.load(std::memory_order_relaxed);
  const int64_t first = w_first_unit_ < unit_end_.load(std::memory_order_relaxed) ? first_base_ : next;
  start_offset_.store(std::min(std::max(floor_, first), next), std::memory_order_release);
}

void ConsumeQueue::set_floor(int64_t offset) {
  floor_ = std::max(floor_, offset);
  // An empty queue below its floor (its data went with retention and the log no
  // longer names it): continue at the floor, never below it.
  if (w_unit_end_ == w_first_unit_ && w_next_offset_ < floor_) w_next_offset_ = floor_;
  refresh_start();
}

void ConsumeQueue::restore_floor(int64_t offset) {
  floor_ = offset;
  refresh_start();
}

int64_t ConsumeQueue::first_unit_at_or_after(const IndexFiles& ix, LogPosition pos) const {
  int64_t lo = w_first_unit_, hi = w_unit_end_;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (writer_unit(ix, mid).pos < pos) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

std::optional<LogPosition> ConsumeQueue::first_entry_at_or_after(const IndexFiles& ix, LogPosition pos) const {
  const int64_t i = first_unit_at_or_after(ix, pos);
  if (i == w_unit_end_) return std::nullopt;
  return writer_unit(ix, i).pos;
}

void ConsumeQueue::keep_chunks(IndexFiles& ix, int64_t from_ordinal, int64_t to_ordinal) {
  auto dir = w_dir_;
  if (!dir) return;
  auto next = std::make_shared<ChunkDir>();
  next->first_chunk_ordinal = std::max(from_ordinal, dir->first_chunk_ordinal);
  next->small_first = dir->small_first;
  std::vector<uint32_t> released, released_small;
  for (size_t i = 0; i < dir->chunks.size(); ++i) {
    const int64_t ordinal = dir->first_chunk_ordinal + static_cast<int64_t>(i);
    if (ordinal >= from_ordinal && ordinal < to_ordinal) {
      next->chunks.push_back(dir->chunks[i]);
    } else {
      (dir->small_first && ordinal == 0 ? released_small : released).push_back(dir->chunks[i]);
    }
  }
  if (released.empty() && released_small.empty()) return;
  set_dir(std::move(next));
  ix.release(released, released_small);
}

int64_t ConsumeQueue::ordinal_of(const IndexFiles& ix, int64_t offset) const {
  int64_t lo = w_first_unit_, hi = w_unit_end_ - 1;
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const int64_t base = writer_unit(ix, mid).base_offset;
    if (base == offset) return mid;
    if (base < offset) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}

std::optional<ConsumeQueue::BatchRange> ConsumeQueue::batch_range(const IndexFiles& ix, int64_t from,
                                                                   int64_t to) const {
  const int64_t first = from < floor_ ? -1 : ordinal_of(ix, from);
  const int64_t last = to == w_next_offset_ ? w_unit_end_ : ordinal_of(ix, to);
  if (first < 0 || last <= first) return std::nullopt;
  return BatchRange{first, last, first == w_first_unit_ && last == w_unit_end_};
}

std::vector<int64_t> ConsumeQueue::base_offsets(const IndexFiles& ix, const BatchRange& r) const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(r.last - r.first));
  for (int64_t i = r.first; i < r.last; ++i) out.push_back(writer_unit(ix, i).base_offset);
  return out;
}

std::optional<LogPosition> ConsumeQueue::oldest_entry(const IndexFiles& ix) const {
  std::optional<LogPosition> oldest;
  for (int64_t i = w_first_unit_; i < w_unit_end_; ++i) {
    const LogPosition pos = writer_unit(ix, i).pos;
    if (!oldest || pos < *oldest) oldest = pos;
  }
  return oldest;
}

Status ConsumeQueue::replace_range(IndexFiles& ix, int64_t a, int64_t b, std::span<const QueueUnit> fresh) {
  std::vector<QueueUnit> all;
  all.reserve(static_cast<size_t>(w_unit_end_ - w_first_unit_ - (b - a)) + fresh.size());
  for (int64_t i = w_first_unit_; i < a; ++i) all.push_back(writer_unit(ix, i));
  all.insert(all.end(), fresh.begin(), fresh.end());
  for (int64_t i = b; i < w_unit_end_; ++i) all.push_back(writer_unit(ix, i));

  const auto end = w_first_unit_ + static_cast<int64_t>(all.size());
  auto dir = std::make_shared<ChunkDir>();  // the small-first layout
  dir->first_chunk_ordinal = unit_place(ix, true, w_first_unit_).chunk_ordinal;
  const int64_t chunk_end = end > w_first_unit_ ? unit_place(ix, true, end - 1).chunk_ordinal + 1 : 0;
  for (int64_t c = dir->first_chunk_ordinal; c < chunk_end; ++c) {
    auto chunk = c == 0 ? ix.allocate_small_chunk() : ix.allocate_chunk();
    if (!chunk.ok()) {
      release_chunks(ix, *dir);
      return chunk.status();
    }
    dir->chunks.push_back(*chunk);
  }
  int64_t running = -1;
  uint64_t digest = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const int64_t ordinal = w_first_unit_ + static_cast<int64_t>(i);
    running = std::max(running, all[i].max_timestamp);
    QueueUnit u = all[i];
    u.max_timestamp = running;
    format::encode_unit(u, unit_ptr_for_write(ix, *dir, ordinal));
    digest += unit_digest(ordinal, u);
  }
  auto old = w_dir_;
  generation_.fetch_add(1, std::memory_order_relaxed);  // odd: readers retry
  std::atomic_thread_fence(std::memory_order_release);
  set_dir(std::move(dir));
  unit_end_.store(end, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_release);  // even again
  w_unit_end_ = end;
  running_max_ts_ = running;
  digest_ = digest;
  if (old) release_chunks(ix, *old);
  return {};
}

void ConsumeQueue::truncate_after(IndexFiles& ix, LogPosition end) {
  const int64_t new_end = first_unit_at_or_after(ix, end);
  if (new_end == w_unit_end_) return;
  for (int64_t i = new_end; i < w_unit_end_; ++i) digest_ -= unit_digest(i, writer_unit(ix, i));
  if (new_end > w_first_unit_) {
    const QueueUnit last = writer_unit(ix, new_end - 1);
    w_next_offset_ = last.next_offset();
    running_max_ts_ = last.max_timestamp;
  } else {
    w_next_offset_ = first_base_;
    running_max_ts_ = -1;
  }
  w_unit_end_ = new_end;
  auto dir = w_dir_;
  const bool small_first = !dir || dir->small_first;
  keep_chunks(ix, 0, new_end > 0 ? unit_place(ix, small_first, new_end - 1).chunk_ordinal + 1 : 0);
  unit_end_.store(w_unit_end_, std::memory_order_release);
  next_offset_.store(w_next_offset_, std::memory_order_release);
  refresh_start();
}

bool ConsumeQueue::drop_before(IndexFiles& ix, LogPosition begin) {
  const int64_t new_first = first_unit_at_or_after(ix, begin);
  if (new_first == w_first_unit_) return false;
  for (int64_t i = w_first_unit_; i < new_first; ++i) digest_ -= unit_digest(i, writer_unit(ix, i));
  if (new_first < w_unit_end_) first_base_ = writer_unit(ix, new_first).base_offset;
  w_first_unit_ = new_first;
  first_unit_.store(new_first, std::memory_order_release);
  refresh_start();
  auto dir = w_dir_;
  keep_chunks(ix, unit_place(ix, !dir || dir->small_first, new_first).chunk_ordinal, INT64_MAX);
  return true;
}

void ConsumeQueue::release_all(IndexFiles& ix) {
  keep_chunks(ix, INT64_MAX, INT64_MAX);
  set_dir(nullptr);
  digest_ = 0;
}

ConsumeQueue::State ConsumeQueue::state() const {
  State s;
  s.floor = floor_;
  s.next_offset = w_next_offset_;
  s.first_unit = w_first_unit_;
  s.unit_end = w_unit_end_;
  s.running_max_ts = running_max_ts_;
  s.first_base = first_base_;
  s.digest = digest_known_ ? std::optional<uint64_t>(digest_) : std::nullopt;
  if (auto dir = w_dir_) s.dir = *dir;
  return s;
}

void ConsumeQueue::restore(const State& s) {
  floor_ = s.floor;
  w_next_offset_ = s.next_offset;
  w_first_unit_ = s.first_unit;
  w_unit_end_ = s.unit_end;
  running_max_ts_ = s.running_max_ts;
  first_base_ = s.first_base;
  digest_ = s.digest.value_or(0);
  digest_known_ = s.digest.has_value();
  first_unit_.store(s.first_unit, std::memory_order_release);
  set_dir(s.dir.chunks.empty() && s.dir.first_chunk_ordinal == 0 ? nullptr : std::make_shared<const ChunkDir>(s.dir));
}

bool ConsumeQueue::units_consistent(const IndexFiles& ix, LogPosition log_end,
                                    const std::function<bool(const QueueUnit&)>& holds, LogPosition entries_from) {
  if (w_first_unit_ == w_unit_end_) {
    if (digest_known_) return digest_ == 0;
    digest_known_ = true;  // an empty queue's digest: 0
    return true;
  }
  int64_t expected_base = first_base_;
  int64_t max_ts = INT64_MIN;
  uint64_t digest = 0;
  for (int64_t i = w_first_unit_; i < w_unit_end_; ++i) {
    const QueueUnit u = writer_unit(ix, i);
    // Compaction (replace_range) leaves offset gaps and units out of log order.
    if (u.base_offset < expected_base || u.last_offset_delta < 0 || u.size < format::batch::kHeaderSize ||
        u.pos.value < 0 || u.max_timestamp < max_ts)
      return false;
    if (u.pos.value + format::kEntryHeaderSize + u.size > log_end.value) return false;
    if ((!digest_known_ || u.pos >= entries_from) && !holds(u)) return false;
    digest += unit_digest(i, u);
    expected_base = u.next_offset();
    max_ts = u.max_timestamp;
  }
  if (expected_base != w_next_offset_ || max_ts != running_max_ts_) return false;
  if (digest_known_) return digest == digest_;
  digest_ = digest;
  digest_known_ = true;
  return true;
}

void ConsumeQueue::reset_to(int64_t next) {
  State s;
  s.floor = floor_;
  s.next_offset = next;
  restore(s);
}

}  // namespace rokka::storage
