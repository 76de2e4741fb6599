#include "broker/records/batch_rewriter.h"

#include <cstring>

#include "storage/crc32c.h"
#include "wire/endian.h"
#include "wire/record_batch_layout.h"

namespace rokka::broker {
namespace {

using protocol::Bytes;
namespace field = wire::batch;

// One record of a records section: its raw bytes (length prefix included) and parse.
struct RawRecord {
  Bytes raw;
  protocol::Record record;
};

// Splits `section` into `count` records; false on malformed input (hostile: every
// length is checked against the bytes left before it is used).
bool split_records(Bytes section, int32_t count, std::vector<RawRecord>& out) {
  if (count < 0 || static_cast<uint64_t>(count) * protocol::kMinRecordSize > section.size()) return false;
  protocol::Reader r(section);
  out.clear();
  out.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    const size_t start = r.position();
    const int32_t len = r.read_varint();
    if (!r.ok() || len < 0 || static_cast<size_t>(len) > r.remaining()) return false;
    r.skip(static_cast<size_t>(len));
    RawRecord& rr = out.emplace_back();
    rr.raw = section.subspan(start, r.position() - start);
    protocol::RecordReader one(rr.raw, 1);
    if (!one.next(rr.record)) return false;
  }
  return r.at_end();
}

bool decompressed_records(const protocol::RecordBatchView& batch, std::vector<std::byte>& scratch,
                          std::vector<RawRecord>& out) {
  Bytes section = batch.records_section();
  if (batch.compression() != protocol::Compression::kNone) {
    if (protocol::decompress(batch.compression(), section, kMaxCleanerSectionBytes, scratch) !=
        protocol::DecompressStatus::kOk)
      return false;
    section = scratch;
  }
  return split_records(section, batch.records_count(), out);
}

}  // namespace

bool for_each_batch_record(const protocol::RecordBatchView& batch, std::vector<std::byte>& scratch,
                           const std::function<void(const protocol::Record&, int64_t offset)>& f) {
  std::vector<RawRecord> records;
  if (!decompressed_records(batch, scratch, records)) return false;
  for (const auto& rr : records) f(rr.record, batch.base_offset() + rr.record.offset_delta);
  return true;
}

RewriteOutcome rewrite_batch(const protocol::RecordBatchView& batch,
                             const std::function<bool(const protocol::Record&, int64_t offset)>& keep,
                             std::vector<std::byte>& out) {
  std::vector<std::byte> scratch;
  std::vector<RawRecord> records;
  if (!decompressed_records(batch, scratch, records)) return RewriteOutcome::kMalformed;
  std::vector<std::byte> section;
  int32_t kept = 0;
  for (const auto& rr : records) {
    if (!keep(rr.record, batch.base_offset() + rr.record.offset_delta)) continue;
    section.insert(section.end(), rr.raw.begin(), rr.raw.end());
    ++kept;
  }
  if (kept == static_cast<int32_t>(records.size())) return RewriteOutcome::kUnchanged;
  std::vector<std::byte> compressed;
  if (batch.compression() != protocol::Compression::kNone && kept > 0) {
    if (!protocol::compress(batch.compression(), section, compressed)) return RewriteOutcome::kCodecFailed;
    section.swap(compressed);
  }
  const Bytes header = batch.bytes().first(field::kHeaderSize);
  out.assign(header.begin(), header.end());
  out.insert(out.end(), section.begin(), section.end());
  if (kept == 0) {  // an empty batch is stored uncompressed
    const auto attrs = static_cast<uint16_t>(batch.attributes() & ~protocol::kCompressionMask);
    wire::store_be<uint16_t>(out.data() + field::kAttributes, attrs);
  }
  wire::store_be<uint32_t>(out.data() + field::kLength, static_cast<uint32_t>(out.size() - field::kLengthOverhead));
  wire::store_be<uint32_t>(out.data() + field::kRecordsCount, static_cast<uint32_t>(kept));
  storage::seal_batch_crc(out);
  return RewriteOutcome::kRewritten;
}

}  // namespace rokka::broker
