#include "broker/records/record_lookup.h"

#include <vector>

#include "protocol/record.h"
#include "protocol/record_batch.h"

namespace rokka::broker {
namespace {

// Decompressed records of one batch are bounded: a stored batch passed the
// max.message.bytes check compressed, but its ratio is the client's choice.
constexpr size_t kMaxDecompressed = 64u << 20;
// How much of the log one lookup reads past the indexed batch before giving up
// on refining (the answer is then the batch-level one).
constexpr int64_t kReadChunk = 1 << 20;
constexpr int kMaxChunks = 64;

struct Found {
  bool done = false;
  storage::TimestampOffset at;
};

// Scans `batch` for the first record at or past `start` that satisfies pred(ts);
// false when the records cannot be read (the caller falls back to the batch).
template <class Pred>
bool scan_batch(const protocol::RecordBatchView& batch, int64_t start, Pred&& pred, std::vector<std::byte>& scratch,
                Found& found) {
  if (batch.timestamp_type() == protocol::TimestampType::kLogAppendTime) {
    // Every record carries the batch's append time.
    const int64_t first = std::max(batch.base_offset(), start);
    if (first <= batch.last_offset() && pred(batch.max_timestamp())) found = {true, {batch.max_timestamp(), first}};
    return true;
  }
  return protocol::for_each_record(batch, kMaxDecompressed, scratch, [&](const protocol::Record& r) {
    if (found.done) return;
    const int64_t offset = batch.base_offset() + r.offset_delta;
    const int64_t ts = batch.base_timestamp() + r.timestamp_delta;
    if (offset >= start && pred(ts)) found = {true, {ts, offset}};
  });
}

// Reads forward from the batch holding `from` and returns the first record at or
// past the log start satisfying pred; `fallback` when nothing readable matches.
template <class Pred>
storage::Result<storage::TimestampOffset> refine(const storage::Store& store, storage::PartitionId pid, int64_t from,
                                                 Pred&& pred, storage::TimestampOffset fallback) {
  auto offs = store.offsets(pid);
  if (!offs.ok()) return offs.status();
  int64_t next = std::max(from, offs->log_start_offset);
  std::vector<std::byte> scratch;
  for (int chunk = 0; chunk < kMaxChunks && next < offs->next_offset; ++chunk) {
    auto read = store.read(pid, next, kReadChunk);
    if (!read.ok()) return fallback;  // moved by retention meanwhile: the index answer stands
    if (read->batches.empty()) break;
    for (const auto& slice : read->batches) {
      protocol::RecordBatchView batch;
      if (protocol::RecordBatchView::parse(slice.bytes, &batch) != protocol::BatchCheck::kOk) return fallback;
      next = batch.last_offset() + 1;
      if (!pred(batch.max_timestamp())) continue;  // no record of this batch can match
      Found found;
      if (!scan_batch(batch, offs->log_start_offset, pred, scratch, found)) return fallback;
      if (found.done) return found.at;
    }
  }
  return fallback;
}

}  // namespace

storage::Result<storage::TimestampOffset> first_record_at_or_after(const storage::Store& store,
                                                                   storage::PartitionId pid, int64_t ts) {
  auto batch = store.lookup_timestamp(pid, ts);
  if (!batch.ok() || batch->offset < 0) return batch;
  return refine(store, pid, batch->offset, [ts](int64_t t) { return t >= ts; }, *batch);
}

storage::Result<storage::TimestampOffset> max_timestamp_record(const storage::Store& store, storage::PartitionId pid) {
  auto batch = store.max_timestamp(pid);
  if (!batch.ok() || batch->offset < 0) return batch;
  const int64_t max = batch->timestamp;
  return refine(store, pid, batch->offset, [max](int64_t t) { return t >= max; }, *batch);
}

}  // namespace rokka::broker
