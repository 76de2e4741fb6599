// Entry points for fuzzers: each takes arbitrary bytes, decodes them with the real
// code paths and returns whether they were accepted. Rejection is the normal answer;
// a crash, a sanitizer report, an allocation beyond the input's means, or an abort()
// from a failed self-check is a bug. A libFuzzer target is one line around each.
#pragma once

#include "protocol/api_keys.h"
#include "protocol/codec.h"

namespace rokka::protocol {

// A request frame (header then body, no size prefix) of any API and version with a
// codec. Accepted requests are re-encoded, decoded again and re-encoded again; the
// two encodings must be identical.
bool fuzz_decode_request(Bytes frame);

// A response body of `key` at `version`, with the same self-check.
bool fuzz_decode_response(ApiKey key, int16_t version, Bytes body);

// A `records` blob as found in Produce: split into batches, validated (and up-converted
// as a v0-v2 message set), decompressed (bounded) and every record iterated. Each
// batch also goes through RecordValidator, which must agree with RecordReader.
bool fuzz_records(Bytes records);

// The record validator under every codec. Byte 0 picks the codec (bits 0-2, mod 5),
// whether the rest is taken as the records section as it is (bit 3; else it is the
// section before compression and is compressed here, snappy in the xerial framing
// when bit 6 is set), keys required (bit 4) and timestamp bounds (bit 5); byte 1 the
// decompressor's chunk size and the carry limit (small: records span chunks); bytes
// 2-3 the record count. The verdict and MaxTimestamp must match what the whole-section
// RecordReader finds.
bool fuzz_record_validator(Bytes input);

}  // namespace rokka::protocol
