#include "protocol/record_validator.h"

#include <algorithm>

#include "protocol/record.h"

namespace rokka::protocol {
namespace {

// The decompressed section as a cursor over the decompressor's chunks. Bytes within
// one chunk are read in place; peek(n) gathers up to n bytes that span chunks into
// `carry` (the caller bounds n by its carry limit). A chunk stays valid until the
// decompressor's next() call, which happens only once the chunk is used up or copied.
class Cursor {
 public:
  Cursor(Decompressor& d, std::vector<std::byte>& carry) : d_(d), carry_(carry) {}

  // At least min(n, bytes left) bytes at the front, contiguous; fewer only at the end
  // of the section or when the codec fails.
  Bytes peek(size_t n) { return cur_.size() >= n ? cur_ : gather(n); }

  // REQUIRES: n <= the size of the last peek().
  void consume(size_t n) {
    cur_ = cur_.subspan(n);
    if (cur_.empty() && in_carry_) {
      in_carry_ = false;
      cur_ = pending_;
      pending_ = {};
    }
  }

  // Consumes n bytes across chunks; false if the section ends first.
  bool skip(size_t n) {
    while (n > 0) {
      if (cur_.empty() && !pull()) return false;
      const size_t k = std::min(n, cur_.size());
      consume(k);
      n -= k;
    }
    return true;
  }

  // True once every byte of the section is consumed (asks the codec for more to know).
  bool at_end() { return cur_.empty() && !pull(); }

 private:
  // REQUIRES: cur_ empty and nothing carried.
  bool pull() {
    cur_ = d_.next();
    return !cur_.empty();
  }

  Bytes gather(size_t n) {
    if (!in_carry_) {
      carry_.assign(cur_.begin(), cur_.end());  // the rest of this chunk, before the next one replaces it
      in_carry_ = true;
    } else {
      carry_.erase(carry_.begin(), carry_.end() - static_cast<ptrdiff_t>(cur_.size()));  // drop what was read
    }
    while (carry_.size() < n) {
      if (pending_.empty()) {
        pending_ = d_.next();
        if (pending_.empty()) break;
      }
      const size_t k = std::min(n - carry_.size(), pending_.size());
      carry_.insert(carry_.end(), pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(k));
      pending_ = pending_.subspan(k);
    }
    cur_ = carry_;
    if (cur_.empty()) consume(0);
    return cur_;
  }

  Decompressor& d_;
  std::vector<std::byte>& carry_;
  Bytes cur_;          // unread bytes: in the current chunk, or in carry_
  Bytes pending_;      // while carrying: the rest of the chunk after the carried bytes
  bool in_carry_ = false;
};

// A record body longer than the carry limit that spans chunks: the source
// read_record_body reads, field by field, skipping the byte runs.
class StreamedBody {
 public:
  StreamedBody(Cursor& c, size_t length) : c_(c), left_(length) {}

  int8_t read_int8() {
    Reader r = front(1);
    const int8_t v = r.read_int8();
    advance(r);
    return v;
  }
  int32_t read_varint() {
    Reader r = front(5);
    const int32_t v = r.read_varint();
    advance(r);
    return v;
  }
  int64_t read_varlong() {
    Reader r = front(10);
    const int64_t v = r.read_varlong();
    advance(r);
    return v;
  }
  Bytes read_raw(size_t n) {
    if (!ok_ || n > left_) {
      fail();
    } else if (!c_.skip(n)) {
      ran_out_ = true;
      fail();
    } else {
      left_ -= n;
    }
    return {};
  }
  size_t remaining() const { return ok_ ? left_ : 0; }
  void fail() { ok_ = false; }
  bool ok() const { return ok_; }
  bool at_end() const { return ok_ && left_ == 0; }
  // The section ended inside the record.
  bool ran_out() const { return ran_out_; }

 private:
  Reader front(size_t most) {
    if (!ok_) return Reader();
    const size_t want = std::min(most, left_);
    const Bytes b = c_.peek(want);
    if (b.size() < want) ran_out_ = true;
    return Reader(b.first(std::min(want, b.size())));
  }
  void advance(const Reader& r) {
    if (!r.ok()) return fail();
    c_.consume(r.position());
    left_ -= r.position();
  }

  Cursor& c_;
  size_t left_;
  bool ok_ = true;
  bool ran_out_ = false;
};

constexpr auto kNoHeaderCheck = [](std::string_view, const std::optional<Bytes>&) {};

// Kafka's test, in its 64-bit two's complement arithmetic (LogValidator): now - ts
// beyond `before`, or ts - now beyond `after`.
bool timestamp_out_of_range(int64_t ts, const RecordPolicy& p) {
  const auto diff = static_cast<int64_t>(static_cast<uint64_t>(p.now_ms) - static_cast<uint64_t>(ts));
  const auto ahead = static_cast<int64_t>(0 - static_cast<uint64_t>(diff));
  return diff > p.timestamp_before_max_ms || ahead > p.timestamp_after_max_ms;
}

RecordCheck codec_failure(DecompressStatus s) {
  switch (s) {
    case DecompressStatus::kOk: return RecordCheck::kOk;
    case DecompressStatus::kMalformed: return RecordCheck::kNotDecompressible;
    case DecompressStatus::kTooLarge: return RecordCheck::kInflatesTooLarge;
    case DecompressStatus::kUnsupported: return RecordCheck::kUnreadableFraming;
  }
  return RecordCheck::kNotDecompressible;
}

}  // namespace

const char* record_check_name(RecordCheck c) {
  switch (c) {
    case RecordCheck::kOk: return "ok";
    case RecordCheck::kNotDecompressible: return "the records section does not decompress";
    case RecordCheck::kUnreadableFraming: return "the records section is in a framing Kafka's clients cannot read";
    case RecordCheck::kInflatesTooLarge: return "the records section inflates beyond the broker's bound";
    case RecordCheck::kBadRecordLength: return "malformed record length";
    case RecordCheck::kMalformedRecord: return "malformed record";
    case RecordCheck::kOffsetDeltaMismatch: return "record offset delta out of sequence";
    case RecordCheck::kNegativeCount: return "negative record count";
    case RecordCheck::kMissingRecords: return "fewer records than the batch's record count";
    case RecordCheck::kTrailingBytes: return "bytes after the batch's last record";
    case RecordCheck::kRecordErrors: return "records refused";
  }
  return "unknown";
}

ErrorCode kafka_error(RecordCheck c, std::span<const RecordError> errors) {
  switch (c) {
    case RecordCheck::kOk: return ErrorCode::kNone;
    case RecordCheck::kInflatesTooLarge: return ErrorCode::kMessageTooLarge;
    case RecordCheck::kRecordErrors:
      for (const RecordError& e : errors)
        if (e.kind == RecordError::Kind::kTimestampOutOfRange) return ErrorCode::kInvalidTimestamp;
      return ErrorCode::kInvalidRecord;
    case RecordCheck::kNotDecompressible:
    case RecordCheck::kUnreadableFraming:
    case RecordCheck::kBadRecordLength:
    case RecordCheck::kMalformedRecord:
    case RecordCheck::kOffsetDeltaMismatch:
    case RecordCheck::kNegativeCount:
    case RecordCheck::kMissingRecords:
    case RecordCheck::kTrailingBytes: return ErrorCode::kInvalidRecord;
  }
  return ErrorCode::kInvalidRecord;
}

std::string describe(const RecordError& e, const RecordPolicy& policy) {
  const std::string at = "record " + std::to_string(e.index) + ": ";
  switch (e.kind) {
    case RecordError::Kind::kNoKey: return at + "no key, and a compacted topic keeps records by key";
    case RecordError::Kind::kTimestampOutOfRange: {
      // The bounds as Kafka states them (wrapping like its arithmetic does).
      const auto lo = static_cast<int64_t>(static_cast<uint64_t>(policy.now_ms) -
                                           static_cast<uint64_t>(policy.timestamp_before_max_ms));
      const auto hi = static_cast<int64_t>(static_cast<uint64_t>(policy.now_ms) +
                                           static_cast<uint64_t>(policy.timestamp_after_max_ms));
      return at + "timestamp " + std::to_string(e.timestamp) + " outside [" + std::to_string(lo) + ", " +
             std::to_string(hi) + "] (message.timestamp.before.max.ms / after.max.ms)";
    }
  }
  return at + "refused";
}

std::string RecordValidator::describe(RecordCheck c, Compression codec) const {
  switch (c) {
    case RecordCheck::kOk:
    case RecordCheck::kRecordErrors: return record_check_name(c);
    case RecordCheck::kNotDecompressible:
    case RecordCheck::kUnreadableFraming:
    case RecordCheck::kInflatesTooLarge:
      return std::string(compression_name(codec)) + " records section: " +
             decompress_status_name(decompressor_.status()) +
             (c == RecordCheck::kInflatesTooLarge
                  ? " (" + std::to_string(max_inflated_bytes_) + " bytes)"
                  : std::string()) +
             ", at record " + std::to_string(failed_record_);
    default: return "record " + std::to_string(failed_record_) + ": " + record_check_name(c);
  }
}

RecordCheck RecordValidator::validate(const RecordBatchView& batch, const RecordPolicy& policy) {
  errors_.clear();
  carry_.clear();
  max_timestamp_ = -1;
  max_inflated_bytes_ = policy.max_inflated_bytes;
  decompressor_.start(batch.compression(), batch.records_section(), policy.max_inflated_bytes);
  Cursor c(decompressor_, carry_);
  // A structural fault found where the codec failed is the codec's.
  auto fault = [&](RecordCheck check) {
    const RecordCheck codec = codec_failure(decompressor_.status());
    return codec != RecordCheck::kOk ? codec : check;
  };

  const int32_t count = batch.records_count();
  failed_record_ = 0;
  if (count < 0) return RecordCheck::kNegativeCount;  // check_produced() refuses it first in Produce
  const auto base_timestamp = static_cast<uint64_t>(batch.base_timestamp());
  int64_t max_timestamp = -1;  // Kafka's NO_TIMESTAMP: the floor of the batch's MaxTimestamp
  RecordFields f;
  for (int32_t i = 0; i < count; ++i) {
    failed_record_ = i;
    const Bytes front = c.peek(5);
    if (front.empty()) return fault(RecordCheck::kMissingRecords);
    Reader length_reader(front.first(std::min<size_t>(5, front.size())));
    const int32_t length = length_reader.read_varint();
    if (!length_reader.ok() || length < 0) return fault(RecordCheck::kBadRecordLength);
    const size_t prefix = length_reader.position();
    const size_t total = prefix + static_cast<size_t>(length);
    bool ok;
    if (front.size() >= total || total <= max_carry_) {
      const Bytes whole = c.peek(total);
      if (whole.size() < total) return fault(RecordCheck::kBadRecordLength);  // runs past the section
      Reader body(whole.subspan(prefix, static_cast<size_t>(length)));
      ok = read_record_body(body, f, kNoHeaderCheck);
      c.consume(total);
    } else {
      c.consume(prefix);
      StreamedBody body(c, static_cast<size_t>(length));
      ok = read_record_body(body, f, kNoHeaderCheck);
      if (!ok && body.ran_out()) return fault(RecordCheck::kBadRecordLength);  // ran past the section
    }
    if (!ok) return fault(RecordCheck::kMalformedRecord);
    if (f.offset_delta != i) return RecordCheck::kOffsetDeltaMismatch;

    const auto timestamp = static_cast<int64_t>(base_timestamp + static_cast<uint64_t>(f.timestamp_delta));
    max_timestamp = std::max(max_timestamp, timestamp);
    if (policy.keys_required && !f.key) {
      errors_.push_back({i, RecordError::Kind::kNoKey, timestamp});
    } else if (policy.check_timestamps && timestamp != -1 && timestamp_out_of_range(timestamp, policy)) {
      errors_.push_back({i, RecordError::Kind::kTimestampOutOfRange, timestamp});
    }
  }
  failed_record_ = count;
  if (!c.at_end()) return fault(RecordCheck::kTrailingBytes);
  if (const RecordCheck codec = codec_failure(decompressor_.status()); codec != RecordCheck::kOk) return codec;
  max_timestamp_ = max_timestamp;
  return errors_.empty() ? RecordCheck::kOk : RecordCheck::kRecordErrors;
}

}  // namespace rokka::protocol
