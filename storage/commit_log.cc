#include "storage/commit_log.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "storage/logger.h"

namespace rokka::storage {

CommitLog::TailChunk::TailChunk(LogPosition s, size_t cap) : start(s), capacity(cap) {
  data = static_cast<std::byte*>(std::aligned_alloc(kBlock, cap));
  if (data == nullptr) throw std::bad_alloc();
}

CommitLog::TailChunk::~TailChunk() { std::free(data); }

CommitLog::CommitLog(const CommitLogOptions& options) : options_(options), segment_bytes_(options.segment_bytes) {
  options_.staging_bytes = std::max<size_t>((options_.staging_bytes + kBlock - 1) / kBlock * kBlock, kBlock);
  set_tail({});
  if (options_.direct_io && segment_bytes_ % kBlock != 0)
    log_warn("store.direct.io: segment size {} is not a multiple of {}: writing through the page cache",
             segment_bytes_, kBlock);
  else
    direct_io_.store(options_.direct_io, std::memory_order_relaxed);
}

Result<std::unique_ptr<CommitLog>> CommitLog::open(const CommitLogOptions& options) {
  FileSystem& fs = *options.fs;
  if (Status s = fs.create_dirs(options.dir); !s.ok()) return s;
  auto names = fs.list(options.dir);
  if (!names.ok()) return names.status();
  std::vector<int64_t> starts;
  for (const auto& name : *names) {
    const int64_t start = format::parse_segment_name(name);
    if (start >= 0 && start % options.segment_bytes == 0) starts.push_back(start);
  }
  std::sort(starts.begin(), starts.end());
  std::unique_ptr<CommitLog> log(new CommitLog(options));
  SegmentList list;
  for (int64_t start : starts) {
    if (!list.empty() && start != list.back()->end().value) {
      log_warn("commit log gap: segment {} does not follow {}; ignoring it and later ones", start,
               list.back()->end().value);
      break;
    }
    auto seg = MappedFile::open(fs, options.dir / format::segment_name(start), {start}, options.segment_bytes, false,
                                false);  // an existing segment keeps its blocks as they are
    if (!seg.ok()) return seg.status();
    list.push_back(std::move(*seg));
  }
  if (!list.empty()) {
    log->current_ = list.back();
    // Until recovery or the checkpoint says where data ends; nothing is staged.
    log->write_pos_ = log->staged_pos_ = list.back()->start();
  }
  log->set_segments(std::move(list));
  return log;
}

LogPosition CommitLog::begin() const {
  auto list = segments_.load(std::memory_order_acquire);
  return list->empty() ? write_pos_ : list->front()->start();
}

std::shared_ptr<MappedFile> CommitLog::find(const SegmentList& list, LogPosition pos) const {
  if (list.empty() || pos < list.front()->start()) return nullptr;
  const auto i = static_cast<size_t>((pos.value - list.front()->start().value) / segment_bytes_);
  if (i >= list.size() || !list[i]->contains(pos)) return nullptr;
  return list[i];
}

LogPosition CommitLog::scan(LogPosition from, const std::function<bool(const ScannedEntry&)>& visit) const {
  auto list = segments_.load(std::memory_order_acquire);
  LogPosition pos = std::max(from, begin());
  for (;;) {
    auto seg = find(*list, pos);
    if (!seg) return pos;
    const int64_t off = pos.value - seg->start().value;
    const int64_t rem = seg->size() - off;
    const std::byte* p = seg->data() + off;
    if (rem < format::kBlankHeaderSize) {
      pos = seg->end();
      continue;
    }
    const uint32_t magic = format::get_le32(p);
    if (magic == format::kBlankMagic) {
      if (format::get_le32(p + 4) != static_cast<uint32_t>(rem)) return pos;
      pos = seg->end();
      continue;
    }
    if (format::is_payload_magic(magic)) {  // RKM1, RKW1 (replicated stores)
      if (rem < format::kMinPayloadEntrySize) return pos;
      const format::EntryHeader h = format::decode_entry_header(p);
      if (h.length < static_cast<uint32_t>(format::kMinPayloadEntrySize) || h.length > static_cast<uint64_t>(rem) ||
          format::payload_entry_crc(p, h.length) != h.crc)
        return pos;
      const std::span<const std::byte> payload(p + format::kEntryHeaderSize, h.length - format::kEntryHeaderSize);
      if (!visit(ScannedEntry{pos, h, payload})) return pos;
      seg->last_append_ms.store(std::max(seg->last_append_ms.load(), h.append_time));
      pos.value += h.length;
      continue;
    }
    if (!format::is_entry_magic(magic) || rem < format::kEntryHeaderSize + format::batch::kHeaderSize) return pos;
    const format::EntryHeader h = format::decode_entry_header(p);
    if (h.length < static_cast<uint32_t>(format::kEntryHeaderSize + format::batch::kHeaderSize) ||
        h.length > static_cast<uint64_t>(rem) || format::entry_crc(p) != h.crc)
      return pos;
    const std::span<const std::byte> batch(p + format::kEntryHeaderSize, h.length - format::kEntryHeaderSize);
    if (format::batch::i32(batch, format::batch::kLength) + format::batch::kLengthOverhead !=
            static_cast<int64_t>(batch.size()) ||
        !batch_crc_ok(batch))
      return pos;
    if (!visit(ScannedEntry{pos, h, batch})) return pos;
    seg->last_append_ms.store(std::max(seg->last_append_ms.load(), h.append_time));
    pos.value += h.length;
  }
}

Status CommitLog::truncate(LogPosition end) {
  std::lock_guard sync_lock(sync_mu_);  // no sync of the old tail raises synced_end_ meanwhile
  auto list = *segments_.load();
  SegmentList keep;
  std::shared_ptr<MappedFile> last;
  for (auto& seg : list) {
    if (seg->start() < end || (seg->start() == end && keep.empty())) {
      keep.push_back(seg);
      last = seg;
    } else {
      std::erase(unsynced_, seg);
      if (Status s = options_.fs->remove(seg->path()); !s.ok()) return s;
      log_warn("recovery deleted segment after the cut: {}", seg->path().string());
    }
  }
  if (last) {
    // A cut at runtime (Store::truncate_to) may land in a sealed segment: it is the one
    // written from now on, so it must neither be synced-and-closed as sealed nor lack a
    // descriptor. zero_from() syncs it whole.
    std::erase(unsynced_, last);
    {
      std::lock_guard lock(marked_mu_);
      std::erase_if(marked_, [&](const Marked& m) { return m.segment == last || m.segment->start() > last->start(); });
    }
    if (Status s = last->reopen_file(*options_.fs); !s.ok()) return s;
    const int64_t off = std::min(end.value - last->start().value, last->size());
    if (Status s = last->zero_from(off, options_.preallocate); !s.ok()) return s;
  } else if (!list.empty()) {
    end = list.front()->start();
  }
  if (Status s = options_.fs->sync_dir(options_.dir); !s.ok()) return s;
  for (auto& seg : keep)
    if (seg != last) seg->close_file();  // sealed: the mapping is enough (fd count stays flat)
  current_ = last;
  set_segments(std::move(keep));
  write_pos_ = flushed_pos_ = staged_pos_ = end;
  drop_tail();
  {
    std::lock_guard lock(marked_mu_);
    marked_end_ = std::min(marked_end_, end);
  }
  synced_end_.store(std::min(synced_end_.load(std::memory_order_relaxed), end.value), std::memory_order_release);
  cache_dropped_to_.store(std::min(cache_dropped_to_.load(std::memory_order_relaxed), end.value),
                          std::memory_order_relaxed);
  publish();
  return {};
}

Status CommitLog::restart_at(LogPosition begin, int64_t now_ms) {
  if (begin.value < 0 || begin.value % segment_bytes_ != 0) return Status::invalid_argument("log start not a segment start");
  {
    std::lock_guard sync_lock(sync_mu_);  // no sync of an old segment runs meanwhile
    {
      std::lock_guard lock(marked_mu_);
      marked_.clear();
      marked_end_ = begin;
    }
    unsynced_.clear();
    const auto list = segments_.load();
    for (const auto& seg : *list) {
      if (Status s = options_.fs->remove(seg->path()); !s.ok()) return s;
    }
    // The old files go before the new one appears (a crash between leaves no mix).
    if (Status s = options_.fs->sync_dir(options_.dir); !s.ok()) return s;
    current_.reset();
    set_segments({});  // readers holding the old list keep their mappings
    write_pos_ = flushed_pos_ = staged_pos_ = begin;
    drop_tail();
    synced_end_.store(begin.value, std::memory_order_release);
    cache_dropped_to_.store(begin.value, std::memory_order_relaxed);
  }
  if (Status s = roll(now_ms); !s.ok()) return s;  // the empty segment at `begin`, directory synced
  publish();
  return {};
}

Status CommitLog::roll(int64_t now_ms) {
  if (current_) {
    const int64_t rem = current_->end().value - write_pos_.value;
    if (rem >= format::kBlankHeaderSize) {
      if (!chunk_ || write_pos_.value + format::kBlankHeaderSize > chunk_->end()) {
        if (Status s = write_out(); !s.ok()) return s;
        if (Status s = begin_chunk(format::kBlankHeaderSize); !s.ok()) return s;
      }
      std::byte* blank = chunk_->data + (write_pos_.value - chunk_->start.value);
      format::put_le32(blank, format::kBlankMagic);
      format::put_le32(blank + 4, static_cast<uint32_t>(rem));
      write_pos_.value += format::kBlankHeaderSize;
    }
    if (chunk_ && chunk_->end() > write_pos_.value)  // the segment's rest reads as zeros from the chunk too
      std::memset(chunk_->data + (write_pos_.value - chunk_->start.value), 0,
                  static_cast<size_t>(chunk_->end() - write_pos_.value));
    if (Status s = write_out(); !s.ok()) return s;
    unsynced_.push_back(current_);
    write_pos_ = current_->end();
    chunk_.reset();  // the next segment's entries start a chunk of their own (it stays in the tail)
  } else {
    write_pos_.value = (write_pos_.value + segment_bytes_ - 1) / segment_bytes_ * segment_bytes_;
  }
  auto seg = MappedFile::open(*options_.fs, options_.dir / format::segment_name(write_pos_.value), write_pos_,
                              segment_bytes_, true, options_.preallocate);
  if (!seg.ok()) return seg.status();
  if (Status s = options_.fs->sync_dir(options_.dir); !s.ok()) return s;
  (*seg)->last_append_ms.store(now_ms);
  current_ = *seg;
  auto list = *segments_.load();
  list.push_back(current_);
  set_segments(std::move(list));
  staged_pos_ = write_pos_;
  log_info("commit log rolled: segment={}", current_->path().string());
  return {};
}

Result<CommitLog::Reservation> CommitLog::reserve(int32_t entry_size, int64_t now_ms) {
  if (entry_size > max_entry_size()) return Status::too_large("entry larger than a segment");
  if (!current_ || write_pos_.value + entry_size > current_->end().value) {
    if (Status s = roll(now_ms); !s.ok()) return s;
  }
  if (!chunk_ || write_pos_.value + entry_size > chunk_->end()) {
    if (Status s = write_out(); !s.ok()) return s;
    if (Status s = begin_chunk(entry_size); !s.ok()) return s;
  }
  Reservation r{write_pos_, std::span(chunk_->data + (write_pos_.value - chunk_->start.value),
                                      static_cast<size_t>(entry_size))};
  write_pos_.value += entry_size;
  current_->last_append_ms.store(now_ms, std::memory_order_relaxed);
  return r;
}

Status CommitLog::begin_chunk(int64_t need) {
  const int64_t seg_start = current_->start().value;
  const int64_t start = std::max(write_pos_.value / kBlock * kBlock, seg_start);
  const int64_t prefix = write_pos_.value - start;  // written out: the previous chunk or the file has them
  const auto cap = static_cast<size_t>(
      std::max<int64_t>(static_cast<int64_t>(options_.staging_bytes), (prefix + need + kBlock - 1) / kBlock * kBlock));
  std::shared_ptr<TailChunk> c;
  if (cap == options_.staging_bytes && !spare_.empty()) {
    c = std::move(spare_.back());
    spare_.pop_back();
    c->start = {start};
  } else {
    c = std::make_shared<TailChunk>(LogPosition{start}, cap);
  }
  c->segment_end = current_->end().value;
  if (prefix > 0) {
    const std::byte* from = chunk_ && chunk_->start.value <= start && write_pos_.value <= chunk_->end()
                                ? chunk_->data + (start - chunk_->start.value)
                                : current_->data() + (start - seg_start);
    std::memcpy(c->data, from, static_cast<size_t>(prefix));
  }
  TailList list = *tail_.load(std::memory_order_acquire);
  list.push_back(c);
  int64_t total = 0;
  for (const auto& x : list) total += static_cast<int64_t>(x->capacity);
  size_t gone = 0;
  while (list.size() - gone > 1 && total > options_.tail_cache_bytes) total -= static_cast<int64_t>(list[gone++]->capacity);
  TailList out(list.begin(), list.begin() + static_cast<ptrdiff_t>(gone));
  list.erase(list.begin(), list.begin() + static_cast<ptrdiff_t>(gone));
  set_tail(std::move(list));
  chunk_ = std::move(c);
  for (auto& old : out) {
    // Only this writer can still reach a chunk left the tail whose count is 1 (readers take
    // theirs from a tail snapshot); the fence orders their last reads before its reuse.
    if (old.use_count() != 1 || old->capacity != options_.staging_bytes || spare_.size() >= 2) continue;
    std::atomic_thread_fence(std::memory_order_acquire);
    spare_.push_back(std::move(old));
  }
  return {};
}

void CommitLog::drop_tail() {
  chunk_.reset();
  set_tail({});
}

Status CommitLog::write_out() {
  if (staged_pos_ == write_pos_) return {};
  int64_t from = staged_pos_.value, to = write_pos_.value;
  const bool direct = direct_io() && to - from >= options_.direct_min_bytes;
  if (current_->direct() != direct) {
    if (Status s = current_->set_direct(direct); !s.ok()) {
      if (!direct) return s;
      log_warn("store.direct.io: {}: writing through the page cache", s.to_string());
      direct_io_.store(false, std::memory_order_relaxed);
    }
  }
  if (current_->direct()) {
    // Whole blocks: the first one's earlier bytes again (the chunk holds them), the last
    // one's rest as zeros (the next group writes it again with what follows).
    from = from / kBlock * kBlock;
    to = (to + kBlock - 1) / kBlock * kBlock;
    std::memset(chunk_->data + (write_pos_.value - chunk_->start.value), 0, static_cast<size_t>(to - write_pos_.value));
  }
  Status s = current_->write_at(from - current_->start().value,
                                std::span<const std::byte>(chunk_->data + (from - chunk_->start.value),
                                                           static_cast<size_t>(to - from)));
  staged_pos_ = write_pos_;
  return s;
}

Status CommitLog::seal_segment(int64_t now_ms) { return roll(now_ms); }

const std::byte* CommitLog::bytes_at(const std::shared_ptr<MappedFile>& seg, int64_t pos, int64_t len,
                                     std::shared_ptr<const void>* hold) const {
  const auto tail = tail_.load(std::memory_order_acquire);
  for (auto it = tail->rbegin(); it != tail->rend(); ++it) {
    const TailChunk& c = **it;
    if (pos >= c.start.value && pos + len <= c.end()) {
      *hold = *it;
      return c.data + (pos - c.start.value);
    }
  }
  *hold = seg;
  return seg->data() + (pos - seg->start().value);
}

bool CommitLog::entry_boundary(LogPosition pos) const {
  auto list = segments_.load(std::memory_order_acquire);
  auto seg = find(*list, pos);
  if (!seg) return pos == write_pos_;
  const int64_t rem = seg->end().value - pos.value;
  if (rem < format::kBlankHeaderSize || pos == seg->start()) return true;
  std::shared_ptr<const void> hold;
  const uint32_t magic = format::get_le32(bytes_at(seg, pos.value, 4, &hold));
  return magic == format::kBlankMagic || format::is_entry_magic(magic) || format::is_payload_magic(magic);
}

LogPosition CommitLog::first_position() const {
  const LogPosition end = readable_end();
  auto list = segments_.load(std::memory_order_acquire);
  return list->empty() ? end : std::min(list->front()->start(), end);
}

Result<LogSlice> CommitLog::read_entries(LogPosition from, int64_t max_bytes) const {
  const int64_t end = readable_end().value;
  auto list = segments_.load(std::memory_order_acquire);
  const int64_t begin = list->empty() ? end : list->front()->start().value;
  if (from.value < begin || from.value > end)
    return Status::out_of_range("log position " + std::to_string(from.value) + " not held");
  if (from.value == end) return LogSlice{};
  auto seg = find(*list, from);
  if (!seg) return Status::out_of_range("log position " + std::to_string(from.value) + " not held");
  const int64_t seg_end = seg->end().value;
  // Where the bytes are: the newest tail chunk starting at or before `from` holds the
  // entry there whole, and those after it up to its end; else the segment's mapping.
  const std::byte* base = seg->data();
  int64_t base_pos = seg->start().value, limit = seg_end;
  std::shared_ptr<const void> hold = seg;
  const auto tail = tail_.load(std::memory_order_acquire);
  for (auto it = tail->rbegin(); it != tail->rend(); ++it) {
    if ((*it)->start.value > from.value) continue;
    if (from.value < (*it)->end()) {
      base = (*it)->data;
      base_pos = (*it)->start.value;
      limit = std::min(seg_end, (*it)->end());
      hold = *it;
    }
    break;
  }
  auto at = [&](int64_t p) { return base + (p - base_pos); };
  // Past the chunk (a blank's padding, or an entry of the next chunk): the first entry
  // comes from the file then (a segment's tail is never written again).
  auto from_file = [&] {
    base = seg->data();
    base_pos = seg->start().value;
    limit = seg_end;
    hold = seg;
  };
  int64_t pos = from.value;
  while (pos < seg_end && pos < end) {
    const int64_t rem = seg_end - pos;
    int64_t len = rem;  // a tail: fewer than 8 bytes, or a blank
    if (rem >= format::kBlankHeaderSize) {
      if (pos + format::kBlankHeaderSize > limit) {
        if (pos != from.value) break;
        from_file();
      }
      const uint32_t magic = format::get_le32(at(pos));
      if (magic != format::kBlankMagic) {
        if (!format::is_entry_magic(magic) && !format::is_payload_magic(magic))
          return Status::corruption("no log entry at position " + std::to_string(pos));
        len = format::get_le32(at(pos) + 4);
        if (len < format::kMinPayloadEntrySize || len > rem)
          return Status::corruption("bad entry length at position " + std::to_string(pos));
      }
    }
    if (pos + len > limit) {
      if (pos != from.value) break;
      from_file();
      continue;
    }
    if (pos > from.value && pos - from.value + len > max_bytes) break;
    if (pos + len > end) break;  // not published (cannot happen: end is an entry boundary)
    pos += len;
  }
  return LogSlice{std::span(at(from.value), static_cast<size_t>(pos - from.value)), std::move(hold)};
}

Status CommitLog::flush() {
  if (Status s = mark_for_sync(); !s.ok()) return s;
  return sync_marked();
}

Status CommitLog::mark_for_sync() {
  if (Status s = write_out(); !s.ok()) return s;
  if (!has_unflushed() && unsynced_.empty()) return {};
  std::lock_guard lock(marked_mu_);
  for (auto& seg : unsynced_) marked_.push_back({std::move(seg), true});
  unsynced_.clear();
  if (current_ && flushed_pos_ < write_pos_) marked_.push_back({current_, false});
  flushed_pos_ = write_pos_;
  marked_end_ = write_pos_;
  return {};
}

Status CommitLog::sync_marked() {
  std::lock_guard sync_lock(sync_mu_);
  std::vector<Marked> todo;
  LogPosition end;
  {
    std::lock_guard lock(marked_mu_);
    todo.swap(marked_);
    end = marked_end_;
  }
  for (size_t i = 0; i < todo.size(); ++i) {
    if (Status s = todo[i].segment->sync(); !s.ok()) {
      std::lock_guard lock(marked_mu_);  // still not durable: the next sync retries them
      marked_.insert(marked_.begin(), todo.begin() + static_cast<ptrdiff_t>(i), todo.end());
      return s;
    }
    if (todo[i].sealed) todo[i].segment->close_file();
  }
  if (!todo.empty()) synced_end_.store(end.value, std::memory_order_release);  // marks ascend; truncate() lowers them
  drop_cache_behind(end);
  return {};
}

// Why: a log written at disk speed fills the page cache with pages nobody reads
// again, and on a VM whose free memory goes back to the host (virtio-balloon free
// page reporting) every new page-cache page is a host fault: writing 1 GiB into a
// fresh page cache took 4.6 s of system time here, into recycled pages 0.4 s. Dropping
// synced bytes behind the newest cache_retain_bytes keeps the log's footprint flat
// and the pages it writes into warm; consumers within that window still read memory.
void CommitLog::drop_cache_behind(LogPosition synced_end) {
  if (options_.cache_retain_bytes < 0) return;
  // Cut at 2 MiB boundaries: the kernel skips a large folio that straddles either end of
  // the range, and page-cache folios are naturally aligned and at most 2 MiB.
  constexpr int64_t kAlign = 2 << 20;
  constexpr int64_t kStep = 8 << 20;  // one madvise + fadvise per segment per 8 MiB
  const int64_t to = (synced_end.value - options_.cache_retain_bytes) / kAlign * kAlign;
  const int64_t dropped_to = cache_dropped_to_.load(std::memory_order_relaxed);
  if (to - dropped_to < kStep) return;
  auto list = segments_.load(std::memory_order_acquire);
  for (const auto& seg : *list) {
    const int64_t lo = std::max(dropped_to, seg->start().value);
    const int64_t hi = std::min(to, seg->end().value);
    if (lo >= hi) continue;
    // Best effort: retention may have deleted the file meanwhile.
    if (Status s = seg->drop_cache(*options_.fs, lo - seg->start().value, hi - lo);
        !s.ok() && s.code() != StatusCode::kNotFound)
      log_warn("dropping {} from the page cache: {}", seg->path().string(), s.to_string());
  }
  cache_dropped_to_.store(to, std::memory_order_relaxed);
}

int64_t CommitLog::cache_window_bytes() const {
  auto list = segments_.load(std::memory_order_acquire);
  if (list->empty()) return 0;
  const int64_t from = std::max(list->front()->start().value, cache_dropped_to_.load(std::memory_order_relaxed));
  return std::max<int64_t>(readable_end().value - from, 0);
}

std::vector<CommitLog::SegmentInfo> CommitLog::segments() const {
  auto list = segments_.load(std::memory_order_acquire);
  std::vector<SegmentInfo> out;
  for (auto& seg : *list) out.push_back({seg->start(), seg->end(), seg->last_append_ms.load()});
  return out;
}

void CommitLog::set_last_append_ms(LogPosition start, int64_t ms) {
  auto list = segments_.load(std::memory_order_acquire);
  if (auto seg = find(*list, start)) seg->last_append_ms.store(ms);
}

Status CommitLog::drop_oldest(size_t n) {
  auto list = *segments_.load();
  n = std::min(n, list.empty() ? 0 : list.size() - 1);
  if (n == 0) return {};
  SegmentList keep(list.begin() + static_cast<ptrdiff_t>(n), list.end());
  set_segments(std::move(keep));  // readers holding a segment keep its mapping alive
  for (size_t i = 0; i < n; ++i) {
    std::erase(unsynced_, list[i]);
    if (Status s = options_.fs->remove(list[i]->path()); !s.ok()) return s;
    deleted_segments_.fetch_add(1, std::memory_order_relaxed);
    deleted_bytes_.fetch_add(list[i]->size(), std::memory_order_relaxed);
    log_info("retention deleted segment: {}", list[i]->path().string());
  }
  return options_.fs->sync_dir(options_.dir);
}

const std::byte* CommitLog::matching_entry(const SegmentList& list, LogPosition pos, int32_t batch_size,
                                           PartitionId partition, int64_t base_offset,
                                           std::shared_ptr<const void>* hold) const {
  const int64_t entry_size = int64_t{format::kEntryHeaderSize} + batch_size;
  auto seg = find(list, pos);
  if (!seg || batch_size < 0 || pos.value + entry_size > seg->end().value) return nullptr;
  const std::byte* p = bytes_at(seg, pos.value, entry_size, hold);
  const format::EntryHeader h = format::decode_entry_header(p);
  // A unit read from a recycled (or damaged) index chunk could point anywhere: check ownership.
  if (!format::is_entry_magic(h.magic) || h.partition != partition || h.base_offset != base_offset ||
      h.length != static_cast<uint32_t>(entry_size))
    return nullptr;
  return p;
}

bool CommitLog::holds_entry(LogPosition pos, int32_t batch_size, PartitionId partition, int64_t base_offset) const {
  std::shared_ptr<const void> hold;
  return matching_entry(*segments_.load(std::memory_order_acquire), pos, batch_size, partition, base_offset, &hold) !=
         nullptr;
}

Result<LogSlice> CommitLog::read_batch(LogPosition pos, int32_t batch_size, PartitionId partition,
                                       int64_t base_offset) const {
  if (pos.value + format::kEntryHeaderSize + batch_size > readable_end().value)
    return Status::out_of_range("not yet readable");
  auto list = segments_.load(std::memory_order_acquire);
  if (!find(*list, pos)) return Status::out_of_range("segment deleted");
  std::shared_ptr<const void> hold;
  const std::byte* p = matching_entry(*list, pos, batch_size, partition, base_offset, &hold);
  if (!p) return Status::out_of_range("index unit does not match the log entry");
  return LogSlice{std::span(p + format::kEntryHeaderSize, static_cast<size_t>(batch_size)), std::move(hold)};
}

}  // namespace rokka::storage
