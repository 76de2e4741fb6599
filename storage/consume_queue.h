// ConsumeQueue: one partition's index, a logical array of fixed 32-byte units (one
// per stored batch) living in chunks of the shared IndexFiles. With a small first
// chunk (f = first_chunk_units, c = chunk_units), units [0, f) are in the small chunk
// of chunk ordinal 0 and unit i >= f is slot (i - f) % c of chunk ordinal
// 1 + (i - f) / c; in the uniform layout (checkpoints before version 4) unit i is slot
// i % c of chunk ordinal i / c. The chunk of ordinal k is dir.chunks[k -
// dir.first_chunk_ordinal]. Lookups by offset and by timestamp are binary searches.
//
// Threading: put/publish/truncate_after/drop_before/restore on the writer thread.
// The const lookups run on any thread against published state: they load unit_end
// (acquire) before the ChunkDir, and a ChunkDir is immutable (copy-on-write), so a
// reader never sees a unit being written. A unit from a chunk recycled meanwhile is
// caught by CommitLog::read_batch, which checks the entry's partition and offset.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "storage/format.h"
#include "storage/index_file.h"
#include "storage/status.h"

namespace rokka::storage {

struct ChunkDir {
  int64_t first_chunk_ordinal = 0;  // chunk ordinal of chunks[0]
  std::vector<uint32_t> chunks;
  // Chunk ordinal 0 is a small chunk (IndexFiles::allocate_small_chunk); false: the
  // uniform layout of checkpoints before version 4 (every chunk chunk_units units). A
  // queue takes the small-first layout whenever it starts a ChunkDir with no chunk.
  bool small_first = true;
};

// Where unit `ordinal` of a queue lives: its chunk ordinal and slot.
struct UnitPlace {
  int64_t chunk_ordinal = 0;
  uint32_t slot = 0;
};
inline UnitPlace unit_place(bool small_first, uint32_t first_units, uint32_t chunk_units, int64_t ordinal) {
  if (!small_first) return {ordinal / chunk_units, static_cast<uint32_t>(ordinal % chunk_units)};
  if (ordinal < first_units) return {0, static_cast<uint32_t>(ordinal)};
  const int64_t rest = ordinal - first_units;
  return {1 + rest / chunk_units, static_cast<uint32_t>(rest % chunk_units)};
}
inline UnitPlace unit_place(const IndexFiles& ix, bool small_first, int64_t ordinal) {
  return unit_place(small_first, ix.first_chunk_units(), ix.chunk_units(), ordinal);
}
// Releases every chunk of `dir` (small or not) to `ix`.
void release_chunks(IndexFiles& ix, const ChunkDir& dir);

using format::QueueUnit;

class ConsumeQueue {
 public:
  // ---- any thread (published state) ----
  int64_t start_offset() const { return start_offset_.load(std::memory_order_acquire); }
  int64_t next_offset() const { return next_offset_.load(std::memory_order_acquire); }

  struct Units {  // a consistent view for one lookup
    int64_t first = 0, end = 0;
    std::shared_ptr<const ChunkDir> dir;
  };
  Units units() const;
  // nullopt when the unit's chunk is no longer in `v` (dropped by retention).
  std::optional<QueueUnit> unit(const IndexFiles& ix, const Units& v, int64_t ordinal) const;
  // The last unit with base_offset <= offset (as an ordinal), or -1.
  int64_t find_offset(const IndexFiles& ix, const Units& v, int64_t offset) const;
  // The first unit at or after `from` whose running max timestamp >= ts, or -1.
  int64_t find_timestamp(const IndexFiles& ix, const Units& v, int64_t from, int64_t ts) const;

  // ---- writer thread ----
  Status put(IndexFiles& ix, const QueueUnit& unit);
  // A hint before put(): starts loading the unit slot the next put() writes, when known
  // (StoreWriter issues it for every batch of an append before storing any).
  void prefetch_put(const IndexFiles& ix) const {
    if (w_room_ > 0) __builtin_prefetch(ix.unit(w_next_.chunk, w_next_.slot), 1);
  }
  void publish() {
    unit_end_.store(w_unit_end_, std::memory_order_release);
    next_offset_.store(w_next_offset_, std::memory_order_release);
    refresh_start();
  }
  // The writer's view: units put but not yet published count.
  int64_t writer_next_offset() const { return w_next_offset_; }
  int64_t unit_count() const { return w_unit_end_ - w_first_unit_; }
  // Where the first unit whose entry starts at or after `pos` points (an entry
  // boundary of the log), or nullopt when no unit does.
  std::optional<LogPosition> first_entry_at_or_after(const IndexFiles& ix, LogPosition pos) const;
  // Raises the explicit start offset (DeleteRecords or a durable floor); no-op if lower.
  void set_floor(int64_t offset);
  // Sets it to `offset`, lower or not: a floor raise whose log entry a cut removed
  // (Store::truncate_to) is undone. Publishes the start offset.
  void restore_floor(int64_t offset);
  int64_t floor() const { return floor_; }
  // The units of the stored batches from the one whose base offset is `from` up to
  // the one whose base offset is `to` (excluded), or to the end when `to` is the next
  // offset: ordinals [first, last) for replace_range(). `whole` when that is every
  // unit. nullopt when `from` is below the floor, either offset is not a stored
  // batch's base offset, or the range is empty (compaction: the batches changed).
  struct BatchRange {
    int64_t first = 0, last = 0;
    bool whole = false;
  };
  std::optional<BatchRange> batch_range(const IndexFiles& ix, int64_t from, int64_t to) const;
  // The base offsets of the stored batches of `r` (writer side), ascending.
  std::vector<int64_t> base_offsets(const IndexFiles& ix, const BatchRange& r) const;
  // Replaces units [a, b) (ordinals, w_first <= a <= b <= w_end) with `fresh`, whose
  // base offsets the caller checked to lie strictly increasing within the replaced
  // range, and publishes the result: the whole array is written into new chunks and
  // swapped in for readers at once; the old chunks are released (recycled a retention
  // interval later, as for retention). The start offset does not move. On failure
  // (no chunk left) nothing changed.
  Status replace_range(IndexFiles& ix, int64_t a, int64_t b, std::span<const QueueUnit> fresh);
  // The lowest log position a unit points at (after compaction units are not in log
  // order), or nullopt when the queue is empty. Reads every unit.
  std::optional<LogPosition> oldest_entry(const IndexFiles& ix) const;
  // Drops units whose entry starts at or after `end` (the log was cut there).
  void truncate_after(IndexFiles& ix, LogPosition end);
  // Drops units whose entry starts before `begin` (retention); returns true if any.
  bool drop_before(IndexFiles& ix, LogPosition begin);
  void release_all(IndexFiles& ix);  // deleted partition

  // Checkpoint state. `digest`: units_digest() of the units [first_unit, unit_end) as
  // stored; nullopt when not known (a version 1-2 checkpoint).
  struct State {
    int64_t floor = 0, next_offset = 0, first_unit = 0, unit_end = 0, running_max_ts = -1, first_base = 0;
    ChunkDir dir;
    std::optional<uint64_t> digest = 0;
  };
  // The digest of one unit as stored at `ordinal`; a queue's digest is the sum (mod 2^64)
  // over its units, kept up to date by every writer call, so a checkpoint can vouch for
  // the units without anyone reading the log.
  static uint64_t unit_digest(int64_t ordinal, const QueueUnit& u);
  State state() const;
  void restore(const State& s);  // followed by publish()
  // After restore(): whether the units read back from the index files form this
  // queue's chain (ascending offsets from first_base to next_offset -- compaction leaves
  // gaps and units out of log order --, entries all before `log_end`, running max timestamps ending at the
  // restored one). False means the index files were damaged: rebuild from the log.
  // `holds` says whether the log has the entry a unit names (CommitLog::holds_entry).
  // Reads every unit (32 bytes per stored batch). With a restored digest, the units must
  // sum to it and `holds` is asked only for units at or after `entries_from` (the log
  // recovery re-verifies); without one, for every unit (every entry header is read), and
  // the digest of what was read is adopted.
  bool units_consistent(const IndexFiles& ix, LogPosition log_end, const std::function<bool(const QueueUnit&)>& holds,
                        LogPosition entries_from = LogPosition{0});
  // An empty queue whose next offset is `next` (rebuild: the first put may jump).
  void reset_to(int64_t next);

 private:
  QueueUnit unit_at(const IndexFiles& ix, const ChunkDir& dir, int64_t ordinal) const;
  QueueUnit writer_unit(const IndexFiles& ix, int64_t ordinal) const {
    return unit_at(ix, *w_dir_, ordinal);
  }
  // The ordinal of the writer-side unit whose base offset is exactly `offset`, or -1.
  int64_t ordinal_of(const IndexFiles& ix, int64_t offset) const;
  // The first writer-side unit in [w_first_unit_, w_unit_end_) whose entry starts at or after pos.
  int64_t first_unit_at_or_after(const IndexFiles& ix, LogPosition pos) const;
  // The unit at `ordinal` of `dir`, which must hold its chunk.
  static std::byte* unit_ptr(const IndexFiles& ix, const ChunkDir& dir, int64_t ordinal);
  static std::byte* unit_ptr_for_write(IndexFiles& ix, const ChunkDir& dir, int64_t ordinal);
  // Keeps chunks with ordinals in [from_ordinal, to_ordinal) and releases the rest.
  void keep_chunks(IndexFiles& ix, int64_t from_ordinal, int64_t to_ordinal);
  void refresh_start();

  // Even while stable; odd while replace_range swaps first/end/dir (a seqlock: units()
  // retries so a reader never pairs one array's end with another's ChunkDir).
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> start_offset_{0};
  std::atomic<int64_t> next_offset_{0};
  std::atomic<int64_t> first_unit_{0};
  std::atomic<int64_t> unit_end_{0};
  std::atomic<std::shared_ptr<const ChunkDir>> dir_;
  // The writer's copy of dir_: loading a std::atomic<shared_ptr> takes a lock and a
  // reference count (it was 23 % of a start at 1,000,000 partitions, three unit searches each).
  std::shared_ptr<const ChunkDir> w_dir_;
  void set_dir(std::shared_ptr<const ChunkDir> dir) {  // writer
    w_dir_ = dir;
    w_room_ = 0;
    dir_.store(std::move(dir), std::memory_order_release);
  }
  // writer only
  int64_t w_next_offset_ = 0;
  int64_t w_unit_end_ = 0;
  int64_t w_first_unit_ = 0;
  int64_t first_base_ = 0;  // base offset of unit w_first_unit_ when the queue is not empty
  int64_t running_max_ts_ = -1;
  int64_t floor_ = 0;
  uint64_t digest_ = 0;  // sum of unit_digest over [w_first_unit_, w_unit_end_)
  bool digest_known_ = true;
  // Where unit w_next_ordinal_ goes and how many units its chunk holds from there on (0:
  // not known; set_dir forgets it): put() follows it without reading the ChunkDir and its
  // chunk list, two cache misses per batch when batches land on many partitions.
  IndexFiles::Place w_next_{0, 0};
  uint32_t w_room_ = 0;
  int64_t w_next_ordinal_ = 0;
};

}  // namespace rokka::storage
