// Rewrites one stored RecordBatch v2 keeping a subset of its records: the log
// cleaner's byte-level step. The retained records' bytes are copied verbatim (their
// offset and timestamp deltas stay valid because the header keeps BaseOffset and
// BaseTimestamp); the header keeps every field but Length, RecordsCount and the CRC
// (LastOffsetDelta, MaxTimestamp, producer id/epoch/base sequence and attributes are
// Kafka's to keep: they carry producer state), and a compressed batch is
// re-compressed with its own codec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "protocol/record.h"
#include "protocol/record_batch.h"

namespace rokka::broker {

// Largest decompressed records section the cleaner handles (a hostile ratio fails).
inline constexpr size_t kMaxCleanerSectionBytes = size_t{256} << 20;

// Calls f(record, offset) for each record of `batch` (decompressed into `scratch`).
// False if the batch does not decompress within kMaxCleanerSectionBytes or a record is malformed.
bool for_each_batch_record(const protocol::RecordBatchView& batch, std::vector<std::byte>& scratch,
                           const std::function<void(const protocol::Record&, int64_t offset)>& f);

enum class RewriteOutcome : uint8_t {
  kUnchanged,  // every record kept: the stored batch stands
  kRewritten,  // `out` holds the new batch (possibly with no record left)
  kMalformed,  // records do not parse or decompress; the batch is left as it is
  kCodecFailed,
};

// Keeps the records for which keep(record, offset) is true. On kRewritten, `out` is a
// complete batch with a valid CRC-32C; RecordsCount may be 0 (the caller decides
// whether an empty batch is dropped or kept).
RewriteOutcome rewrite_batch(const protocol::RecordBatchView& batch,
                             const std::function<bool(const protocol::Record&, int64_t offset)>& keep,
                             std::vector<std::byte>& out);

}  // namespace rokka::broker
