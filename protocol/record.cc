#include "protocol/record.h"

namespace rokka::protocol {
namespace {

// A varint length: -1 for null when `nullable`, else 0..bytes left.
std::optional<Bytes> read_varint_bytes(Reader& r, bool nullable) {
  const int32_t n = r.read_varint();
  if (n == -1 && nullable) return std::nullopt;
  if (n < 0 || static_cast<size_t>(n) > r.remaining()) {
    r.fail();
    return std::nullopt;
  }
  return r.read_raw(static_cast<size_t>(n));
}

bool read_record_body(Reader& r, Record& out) {
  out.attributes = r.read_int8();
  out.timestamp_delta = r.read_varlong();
  out.offset_delta = r.read_varint();
  out.key = read_varint_bytes(r, true);
  out.value = read_varint_bytes(r, true);
  const int32_t headers = r.read_varint();
  // Each header takes at least two bytes (two lengths).
  if (headers < 0 || static_cast<size_t>(headers) > r.remaining() / 2) r.fail();
  out.headers.clear();
  for (int32_t i = 0; i < headers && r.ok(); ++i) {
    RecordHeader& h = out.headers.emplace_back();
    h.key = as_string_view(read_varint_bytes(r, false).value_or(Bytes{}));
    h.value = read_varint_bytes(r, true);
  }
  return r.ok() && r.at_end();
}

}  // namespace

bool RecordReader::next(Record& out) {
  if (!r_.ok()) return false;
  if (left_ == 0) {
    if (!r_.at_end()) r_.fail();  // bytes after the last record
    return false;
  }
  const int32_t length = r_.read_varint();
  if (length < 0 || static_cast<size_t>(length) > r_.remaining()) {
    r_.fail();
    return false;
  }
  Reader body(r_.read_raw(static_cast<size_t>(length)));
  if (!read_record_body(body, out)) {
    r_.fail();
    return false;
  }
  --left_;
  return true;
}

}  // namespace rokka::protocol
