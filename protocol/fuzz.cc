#include "protocol/fuzz.h"

#include <cstdlib>

#include "protocol/api_codecs.h"
#include "protocol/header.h"
#include "protocol/legacy_records.h"
#include "protocol/record.h"
#include "protocol/record_batch.h"

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
  constexpr size_t kMaxDecompressed = 4 << 20;
  for (int16_t version = 3; version <= 9; ++version) {
    RecordBatchView batch;
    (void)check_produce_records(records, version, &batch);
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
  for (const RecordBatchView& batch : batches) {
    (void)batch.crc_covered_bytes();
    all_records_ok &= for_each_record(batch, kMaxDecompressed, scratch, [](const Record&) {});
  }
  return framed && all_records_ok;
}

}  // namespace rokka::protocol
