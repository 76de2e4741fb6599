// CommitLog: every partition's entries appended into one log of fixed-size segment
// files (MappedFile), named by their 20-digit start position. An entry never
// crosses a file: when it does not fit, the tail is padded with a blank entry and
// the log rolls. Layout: storage/format.h and storage/FORMAT.md.
//
// Threading: reserve/write_out/flush/mark_for_sync/publish/truncate/drop_oldest run
// on the writer thread only (or during open, before it starts). sync_marked() may run
// on another thread (the store's flusher) while the writer appends. read_batch() and
// readable_end() may be called from any thread; they see only published bytes.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "storage/file_system.h"
#include "storage/format.h"
#include "storage/mapped_file.h"
#include "storage/types.h"

namespace rokka::storage {

struct CommitLogOptions {
  std::filesystem::path dir;
  int64_t segment_bytes = int64_t{1} << 30;
  FileSystem* fs = nullptr;
  // Entries are copied into tail chunks of this size, then written with one pwrite a group.
  size_t staging_bytes = 4 << 20;
  // The newest chunks kept for readers, in bytes (store.tail.cache.bytes; at least the
  // chunk being filled): reads there never touch the segment files.
  int64_t tail_cache_bytes = int64_t{64} << 20;
  // Write segments with O_DIRECT (store.direct.io): groups of 256 KiB or more go to the
  // disk in whole 4 KiB blocks, not through the page cache (smaller ones still do); readers
  // beyond the tail cache read the files.
  // Falls back to buffered writes (with a warning) where the file system cannot, or
  // when segment_bytes is not a multiple of 4 KiB.
  bool direct_io = false;
  // Why a floor: a direct write waits for the device, and a small one costs more CPU than
  // the copy it saves (bench/append_probe: 17.6 KB groups 3.6 CPU-s/GiB direct against
  // 1.0-2.3 through the page cache; 1 MiB groups 0.22-0.25 against 0.82-3.40). Smaller
  // groups, as at low rates, go through the page cache; the kernel keeps the two coherent.
  int64_t direct_min_bytes = 256 << 10;
  // How many bytes behind the synced end stay in the page cache; older ones are dropped
  // from it after each sync (store.pagecache.retain.bytes). -1: never drop.
  int64_t cache_retain_bytes = -1;
  bool preallocate = false;  // new segments get all their blocks at once (log.preallocate)
};

class CommitLog {
 public:
  // Maps every segment in options.dir (the contiguous run from the oldest). No scan.
  static Result<std::unique_ptr<CommitLog>> open(const CommitLogOptions& options);

  // ---- recovery (before the writer starts) ----
  struct ScannedEntry {
    LogPosition pos;
    format::EntryHeader header;
    std::span<const std::byte> batch;
  };
  // Visits each valid entry from `from` (magic, bounds, entry CRC and batch CRC
  // checked; for RKM1/RKW1 the CRC over header and payload, and `batch` is the
  // payload) and returns where the valid prefix ends: at the first torn, corrupt or
  // zero entry, or where `visit` returned false.
  LogPosition scan(LogPosition from, const std::function<bool(const ScannedEntry&)>& visit) const;
  // Cuts the log at `end`: zeroes the rest of its segment, deletes later segments,
  // makes `end` the write and readable position (and the synced end at most `end`).
  // Also the writer's, at runtime (Store::truncate_to), after write_out().
  Status truncate(LogPosition end);
  LogPosition begin() const;  // start of the oldest segment (or the write position if none)
  // Re-bootstrap (Store::reset_to): deletes every segment and starts an empty log at
  // `begin` (a segment start), its segment created and the directory synced before
  // return. Also the writer's, at runtime, after write_out().
  Status restart_at(LogPosition begin, int64_t now_ms);

  // ---- writer thread ----
  struct Reservation {
    LogPosition pos;
    std::span<std::byte> bytes;  // fill with the entry before the next reserve()
  };
  // Room for one entry of `entry_size` bytes; pads and rolls when it does not fit.
  Result<Reservation> reserve(int32_t entry_size, int64_t now_ms);
  Status write_out();          // staged bytes -> segment file (page cache)
  // Replication: ends the current segment at the write position as reserve() does
  // when an entry does not fit (a blank when 8 bytes or more remain) and starts the next.
  Status seal_segment(int64_t now_ms);
  int64_t segment_bytes() const { return segment_bytes_; }
  // Whether an entry, a blank or a segment's tail starts at `pos` (its magic, not its
  // CRCs), or `pos` is a segment start or the write position. Bytes written out only.
  bool entry_boundary(LogPosition pos) const;
  Status flush();              // write_out + mark_for_sync + sync_marked: all written is durable
  // write_out, then hands every segment written since the last mark to sync_marked().
  Status mark_for_sync();
  void publish() { readable_end_.store(write_pos_.value, std::memory_order_release); }
  LogPosition write_end() const { return write_pos_; }
  bool has_unflushed() const { return flushed_pos_ < write_pos_; }  // written since the last mark
  int64_t max_entry_size() const { return segment_bytes_ - format::kBlankHeaderSize; }

  struct SegmentInfo {
    LogPosition start;
    LogPosition end;
    int64_t last_append_ms;
  };
  std::vector<SegmentInfo> segments() const;
  // Deletes the `n` oldest segments (never the one being written), counting each
  // (deleted_segments(), deleted_bytes()).
  Status drop_oldest(size_t n);
  // Restores retention ages from a checkpoint.
  void set_last_append_ms(LogPosition start, int64_t ms);
  // During open: whether the mapped segments hold (partition, base_offset)'s entry of
  // `batch_size` bytes at `pos` (checks its header, not its CRCs).
  bool holds_entry(LogPosition pos, int32_t batch_size, PartitionId partition, int64_t base_offset) const;

  // ---- any thread ----
  // Whether segments are written with O_DIRECT now (store.direct.io and the file system can).
  bool direct_io() const { return direct_io_.load(std::memory_order_relaxed); }
  // fdatasyncs the segments marked so far (and drops the descriptors of sealed ones):
  // on return everything written before the last mark_for_sync() is durable.
  // Callers are serialised: one sync at a time, in mark order.
  Status sync_marked();
  // The RecordBatch bytes of the entry at `pos`, checked to belong to (partition,
  // base_offset); kOutOfRange when not (yet or any more) readable.
  Result<LogSlice> read_batch(LogPosition pos, int32_t batch_size, PartitionId partition, int64_t base_offset) const;
  LogPosition readable_end() const { return {readable_end_.load(std::memory_order_acquire)}; }
  // The end of what sync_marked() (or flush()) made durable; never above readable_end().
  LogPosition synced_end() const {
    return {std::min(synced_end_.load(std::memory_order_acquire), readable_end_.load(std::memory_order_acquire))};
  }
  // The first position still held: the oldest segment's start, else readable_end().
  LogPosition first_position() const;
  // Replication read: whole entries (a segment's tail -- a blank or fewer than 8 bytes
  // -- counting as one entry) from `from`, an entry boundary, within one segment and
  // below readable_end(), at most max_bytes unless the first alone is larger. Empty at
  // readable_end(); kOutOfRange below the first position or above readable_end();
  // kCorruption when `from` is not at an entry.
  Result<LogSlice> read_entries(LogPosition from, int64_t max_bytes) const;
  // Segments drop_oldest() deleted since open, and the sum of their file sizes.
  int64_t deleted_segments() const { return deleted_segments_.load(std::memory_order_relaxed); }
  int64_t deleted_bytes() const { return deleted_bytes_.load(std::memory_order_relaxed); }
  // The readable log bytes not dropped from the page cache by this log: from the later of
  // the oldest segment's start and the point drop_cache_behind() reached, to
  // readable_end(). With cache_retain_bytes -1 nothing is dropped: the whole log. (Bytes
  // before that point a reader touched again are in the cache too; they are not counted.)
  int64_t cache_window_bytes() const;

 private:
  using SegmentList = std::vector<std::shared_ptr<MappedFile>>;
  // The newest log bytes in memory: entries are reserved in the chunk being filled, group
  // commits write them from there, and readers find published bytes there before they
  // look at the segment files. A chunk starts at a 4 KiB-aligned log position within one
  // segment, with the bytes of its first block before the next entry copied from the
  // previous chunk (an O_DIRECT write rewrites that block whole); every entry lies whole
  // in the chunk it was reserved in.
  struct TailChunk {
    LogPosition start;
    int64_t segment_end = 0;  // its segment's: the chunk holds nothing beyond
    size_t capacity = 0;
    std::byte* data = nullptr;  // 4 KiB-aligned
    TailChunk(LogPosition s, size_t cap);
    ~TailChunk();
    TailChunk(const TailChunk&) = delete;
    TailChunk& operator=(const TailChunk&) = delete;
    int64_t end() const { return std::min(start.value + static_cast<int64_t>(capacity), segment_end); }
  };
  using TailList = std::vector<std::shared_ptr<TailChunk>>;
  static constexpr int64_t kBlock = 4096;
  // Published bytes [pos, pos+len) from the tail chunk holding them all, else from the
  // segment `seg`'s mapping; `hold` keeps them alive.
  const std::byte* bytes_at(const std::shared_ptr<MappedFile>& seg, int64_t pos, int64_t len,
                            std::shared_ptr<const void>* hold) const;
  // Writer: a new chunk for entries from write_pos_ with room for `need` bytes (after
  // write_out(): nothing is staged).
  Status begin_chunk(int64_t need);
  void set_tail(TailList list) { tail_.store(std::make_shared<const TailList>(std::move(list)), std::memory_order_release); }
  void drop_tail();  // truncate/restart_at: the chunks no longer match the log
  explicit CommitLog(const CommitLogOptions& options);
  std::shared_ptr<MappedFile> find(const SegmentList& list, LogPosition pos) const;
  // The entry at `pos` in `list` (its header) if it is (partition, base_offset)'s entry
  // of `batch_size` bytes, its bytes kept alive by `hold`; null otherwise.
  const std::byte* matching_entry(const SegmentList& list, LogPosition pos, int32_t batch_size, PartitionId partition,
                                  int64_t base_offset, std::shared_ptr<const void>* hold) const;
  Status roll(int64_t now_ms);
  void drop_cache_behind(LogPosition synced_end);  // holds sync_mu_
  void set_segments(SegmentList list) {
    segments_.store(std::make_shared<const SegmentList>(std::move(list)), std::memory_order_release);
  }

  CommitLogOptions options_;
  int64_t segment_bytes_;
  std::atomic<std::shared_ptr<const SegmentList>> segments_;  // copy-on-write; readers load a snapshot
  std::shared_ptr<MappedFile> current_;                       // segment being written
  std::vector<std::shared_ptr<MappedFile>> unsynced_;         // sealed, written, not yet marked
  struct Marked {
    std::shared_ptr<MappedFile> segment;
    bool sealed;  // no more writes: its descriptor is dropped once synced
  };
  std::mutex marked_mu_;         // guards marked_ (held briefly by both threads)
  std::vector<Marked> marked_;   // written and marked, waiting for sync_marked()
  LogPosition marked_end_;       // write end at the last mark (guarded by marked_mu_)
  std::mutex sync_mu_;           // one sync_marked() at a time (held across fdatasync)
  // Log bytes before this are out of the page cache. Written under sync_mu_ (and by
  // truncate, before the writer starts); read by cache_window_bytes() from any thread.
  std::atomic<int64_t> cache_dropped_to_{0};
  std::atomic<int64_t> deleted_segments_{0};
  std::atomic<int64_t> deleted_bytes_{0};
  std::atomic<std::shared_ptr<const TailList>> tail_;  // copy-on-write, oldest first; readers load a snapshot
  std::shared_ptr<TailChunk> chunk_;                   // being filled: [chunk_->start, write_pos_)
  std::vector<std::shared_ptr<TailChunk>> spare_;      // left the tail, no reader held them: reused
  std::atomic<bool> direct_io_{false};
  LogPosition staged_pos_;  // written out up to here; [staged_pos_, write_pos_) is in chunk_
  LogPosition write_pos_;
  LogPosition flushed_pos_;
  std::atomic<int64_t> readable_end_{0};
  std::atomic<int64_t> synced_end_{INT64_MAX};  // lowered by truncate(), raised by sync_marked()
};

}  // namespace rokka::storage
