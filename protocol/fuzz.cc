#include "protocol/fuzz.h"

#include <cstdlib>

#include "protocol/api_codecs.h"
#include "protocol/header.h"
#include "protocol/legacy_records.h"
#include "protocol/record.h"
#include "protocol/record_batch.h"
#include "protocol/record_validator.h"

namespace rokka::protocol {
namespace {

// Decodes `body` as M; if accepted, checks that encode -> decode -> encode is stable.
template <class M>
bool decode_and_check(Bytes body, int16_t version) {
  M m;
  if (!decode(m, body, version)) return false;
  const std::vector<std::byte> first = encode_to_bytes(m, version);
  M again;
  if (!decode(again, first, version)) std::abort();
  if (encode_to_bytes(again, version) != first) std::abort();
  return true;
}

constexpr size_t kMaxDecompressed = 4 << 20;

// RecordReader's verdict on a batch, as the validator's must be: the records parse,
// there are exactly RecordsCount of them, offset deltas 0..n-1; the policy's faults
// and the largest timestamp.
struct ReaderVerdict {
  bool parsed = false;
  std::vector<RecordError> errors;
  int64_t max_timestamp = -1;
};

ReaderVerdict read_whole(const RecordBatchView& batch, const RecordPolicy& policy) {
  ReaderVerdict v;
  std::vector<std::byte> scratch;
  int32_t i = 0;
  bool sequential = true;
  auto outside = [&](int64_t ts) {  // Kafka's test, in its wrapping 64-bit arithmetic
    const auto behind = static_cast<int64_t>(static_cast<uint64_t>(policy.now_ms) - static_cast<uint64_t>(ts));
    return behind > policy.timestamp_before_max_ms ||
           static_cast<int64_t>(0 - static_cast<uint64_t>(behind)) > policy.timestamp_after_max_ms;
  };
  const bool ok = for_each_record(batch, policy.max_inflated_bytes, scratch, [&](const Record& r) {
    if (r.offset_delta != i) sequential = false;
    const auto ts = static_cast<int64_t>(static_cast<uint64_t>(batch.base_timestamp()) +
                                         static_cast<uint64_t>(r.timestamp_delta));
    v.max_timestamp = std::max(v.max_timestamp, ts);
    if (policy.keys_required && !r.key) {
      v.errors.push_back({i, RecordError::Kind::kNoKey, ts});
    } else if (policy.check_timestamps && ts != -1 && outside(ts)) {
      v.errors.push_back({i, RecordError::Kind::kTimestampOutOfRange, ts});
    }
    ++i;
  });
  v.parsed = ok && sequential;
  return v;
}

// The validator against RecordReader on one batch; abort() on any disagreement.
bool check_validator(RecordValidator& validator, const RecordBatchView& batch, const RecordPolicy& policy) {
  const RecordCheck c = validator.validate(batch, policy);
  const ReaderVerdict whole = read_whole(batch, policy);
  const bool accepted = c == RecordCheck::kOk || c == RecordCheck::kRecordErrors;
  if (accepted != whole.parsed) std::abort();
  if (!accepted) return false;
  const auto errors = validator.record_errors();
  if (errors.size() != whole.errors.size()) std::abort();
  for (size_t k = 0; k < errors.size(); ++k) {
    if (errors[k].index != whole.errors[k].index || errors[k].kind != whole.errors[k].kind) std::abort();
  }
  if (validator.max_timestamp() != whole.max_timestamp) std::abort();
  return c == RecordCheck::kOk;
}

// The Java client's snappy framing, in blocks of `block` bytes.
std::vector<std::byte> xerial(Bytes plain, size_t block) {
  static constexpr unsigned char kMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
  Writer w;
  w.write_raw({reinterpret_cast<const std::byte*>(kMagic), sizeof kMagic});
  w.write_int32(1);
  w.write_int32(1);
  for (size_t at = 0; at < plain.size(); at += block) {
    std::vector<std::byte> packed;
    if (!compress(Compression::kSnappy, plain.subspan(at, std::min(block, plain.size() - at)), packed)) std::abort();
    w.write_int32(static_cast<int32_t>(packed.size()));
    w.write_raw(packed);
  }
  return std::move(w).take();
}

// A v2 batch header around `section` (CRC left 0: the validator does not read it).
std::vector<std::byte> wrap_section(Compression codec, int32_t count, Bytes section) {
  Writer w;
  w.write_int64(0);
  const Writer::Mark length = w.reserve_int32();
  w.write_int32(0);
  w.write_int8(kMagicV2);
  w.write_uint32(0);
  w.write_int16(static_cast<int16_t>(codec));
  w.write_int32(count - 1);
  w.write_int64(1000);  // BaseTimestamp
  w.write_int64(1000);  // MaxTimestamp
  w.write_int64(-1);
  w.write_int16(-1);
  w.write_int32(-1);
  w.write_int32(count);
  w.write_raw(section);
  w.patch_length(length);
  return std::move(w).take();
}

}  // namespace

bool fuzz_decode_request(Bytes frame) {
  Reader r(frame);
  RequestHeader header;
  if (!decode_request_header(r, header)) return false;
  bool ok = false;
  visit_api_codec(header.key(), [&](auto codec) {
    using C = decltype(codec);
    if (C::supports(header.api_version)) {
      ok = decode_and_check<typename C::Request>(frame.subspan(r.position()), header.api_version);
    }
  });
  return ok;
}

bool fuzz_decode_response(ApiKey key, int16_t version, Bytes body) {
  bool ok = false;
  visit_api_codec(key, [&](auto codec) {
    using C = decltype(codec);
    if (C::supports(version)) ok = decode_and_check<typename C::Response>(body, version);
  });
  return ok;
}

bool fuzz_records(Bytes records) {
  for (int16_t version = 3; version <= 9; ++version) {
    RecordBatchView batch;
    if (check_produce_records(records, version, &batch) == BatchCheck::kOk) (void)batch.check_produced();
  }
  // Produce v0-v2: the same bytes as a pre-0.11 message set, up-converted.
  std::vector<std::byte> converted;
  if (upconvert_message_set(records, kMaxDecompressed, converted) == BatchCheck::kOk) {
    RecordBatchView batch;
    if (RecordBatchView::parse(converted, &batch) != BatchCheck::kOk) std::abort();  // we built it
  }
  std::vector<RecordBatchView> batches;
  const bool framed = split_batches(records, batches) == BatchCheck::kOk;
  std::vector<std::byte> scratch;
  bool all_records_ok = true;
  RecordValidator validator;
  RecordPolicy policy;
  policy.max_inflated_bytes = kMaxDecompressed;
  policy.check_timestamps = true;
  policy.now_ms = 1000;
  policy.timestamp_before_max_ms = 5;
  policy.timestamp_after_max_ms = 7;
  for (const RecordBatchView& batch : batches) {
    all_records_ok &= for_each_record(batch, kMaxDecompressed, scratch, [](const Record&) {});
    (void)check_validator(validator, batch, policy);
  }
  return framed && all_records_ok;
}

bool fuzz_record_validator(Bytes input) {
  if (input.size() < 4) return false;
  const auto flags = std::to_integer<uint8_t>(input[0]);
  const auto codec = static_cast<Compression>((flags & 7) % 5);
  const auto sizes = std::to_integer<uint8_t>(input[1]);
  const int32_t count = std::to_integer<int32_t>(input[2]) << 8 | std::to_integer<int32_t>(input[3]);
  const Bytes rest = input.subspan(4);

  std::vector<std::byte> section;
  if (flags & 0x08) {
    section.assign(rest.begin(), rest.end());
  } else if (codec == Compression::kSnappy && (flags & 0x40)) {
    section = xerial(rest, 1 + sizes % 61);
  } else if (!compress(codec, rest, section)) {
    std::abort();
  }
  const std::vector<std::byte> bytes = wrap_section(codec, count, section);
  RecordBatchView batch;
  if (RecordBatchView::parse(bytes, &batch) != BatchCheck::kOk) std::abort();  // we built it

  RecordPolicy policy;
  policy.keys_required = flags & 0x10;
  policy.check_timestamps = flags & 0x20;
  policy.now_ms = 1000;
  policy.timestamp_before_max_ms = 5;
  policy.timestamp_after_max_ms = 7;
  policy.max_inflated_bytes = kMaxDecompressed;
  RecordValidator validator(1 + (sizes & 0x0f), 1 + (sizes >> 4) * 3);
  return check_validator(validator, batch, policy);
}

}  // namespace rokka::protocol
