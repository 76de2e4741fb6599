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

// The fields of one record as its body gives them (headers go to a callback).
struct RecordFields {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<Bytes> key;    // nullopt: a null key
  std::optional<Bytes> value;  // nullopt: a null value
  int32_t header_count = 0;
};

// A record with its headers, as RecordReader fills it.
struct Record : RecordFields {
  std::vector<RecordHeader> headers;
};

namespace record_detail {
// A varint length, then that many bytes: -1 is null when `nullable`; any other
// negative length, or one beyond the bytes left, fails the source.
template <class Source>
std::optional<Bytes> read_length_prefixed(Source& s, bool nullable) {
  const int32_t n = s.read_varint();
  if (n == -1 && nullable) return std::nullopt;
  if (n < 0 || static_cast<size_t>(n) > s.remaining()) {
    s.fail();
    return std::nullopt;
  }
  return s.read_raw(static_cast<size_t>(n));
}
}  // namespace record_detail

// Reads one record body (the bytes after its Length varint) from `s` and checks that
// the fields fill it exactly. `s` is a Reader over exactly the body, or any source
// with the same calls (read_int8, read_varint, read_varlong, read_raw, remaining,
// fail, ok, at_end; one that streams returns empty views from read_raw).
// on_header(key, value) runs for each header. False if the body is malformed.
template <class Source, class OnHeader>
bool read_record_body(Source& s, RecordFields& out, OnHeader&& on_header) {
  out.attributes = s.read_int8();
  out.timestamp_delta = s.read_varlong();
  out.offset_delta = s.read_varint();
  out.key = record_detail::read_length_prefixed(s, true);
  out.value = record_detail::read_length_prefixed(s, true);
  const int32_t headers = s.read_varint();
  // Each header takes at least two bytes (two lengths).
  if (headers < 0 || static_cast<size_t>(headers) > s.remaining() / 2) s.fail();
  out.header_count = headers;
  for (int32_t i = 0; i < headers && s.ok(); ++i) {
    const std::optional<Bytes> key = record_detail::read_length_prefixed(s, false);  // never null
    const std::optional<Bytes> value = record_detail::read_length_prefixed(s, true);
    if (s.ok()) on_header(as_string_view(*key), value);
  }
  return s.ok() && s.at_end();
}

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
