#include "protocol/record.h"

namespace rokka::protocol {

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
  out.headers.clear();
  if (!read_record_body(body, out, [&](std::string_view key, const std::optional<Bytes>& value) {
        out.headers.push_back({key, value});
      })) {
    r_.fail();
    return false;
  }
  --left_;
  return true;
}

}  // namespace rokka::protocol
