// The records inside a v2 batch's (decompressed) records section, read one at a
// time. Every length and count is a zig-zag varint from the wire, checked against
// the bytes left before anything is read or kept; views point into the section.
//
// Each record: Length varint (bytes after it), Attributes int8, TimestampDelta
// varlong, OffsetDelta varint, KeyLength varint (-1 = null), Key, ValueLength varint
// (-1 = null), Value, HeaderCount varint, then per header KeyLength varint, Key
// (never null), ValueLength varint (-1 = null), Value.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "protocol/codec.h"
#include "protocol/record_batch.h"

namespace rokka::protocol {

struct RecordHeader {
  std::string_view key;
  std::optional<Bytes> value;
};

struct Record {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<Bytes> key;
  std::optional<Bytes> value;
  std::vector<RecordHeader> headers;
};

class RecordReader {
 public:
  // `section` must outlive the reader and every Record it fills; `count` is the
  // batch's RecordsCount.
  RecordReader(Bytes section, int32_t count) : r_(section), left_(count) {
    if (count < 0 || static_cast<uint64_t>(count) * kMinRecordSize > section.size()) r_.fail();
  }

  // Fills `out` with the next record. False when all `count` records were read (and
  // the section ended exactly there) or on malformed input; ok() tells which.
  bool next(Record& out);
  bool ok() const { return r_.ok(); }

 private:
  Reader r_;
  int32_t left_;
};

// Decompresses `batch`'s records (at most `max_bytes` of them, see compression.h)
// into `scratch` and calls f(const Record&) for each. False if the section does not
// decompress within the bound or a record is malformed.
template <class F>
bool for_each_record(const RecordBatchView& batch, size_t max_bytes, std::vector<std::byte>& scratch, F&& f) {
  Bytes section = batch.records_section();
  if (batch.compression() != Compression::kNone) {
    if (decompress(batch.compression(), section, max_bytes, scratch) != DecompressStatus::kOk) return false;
    section = scratch;
  }
  RecordReader reader(section, batch.records_count());
  Record record;
  while (reader.next(record)) f(static_cast<const Record&>(record));
  return reader.ok();
}

}  // namespace rokka::protocol
