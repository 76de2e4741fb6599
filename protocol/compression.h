// The four record-batch codecs of Kafka (attribute bits 0-2 of a v2 batch).
//
// decompress() treats its input as hostile: output never grows beyond `max_output`
// (a hostile ratio fails with kTooLarge instead of exhausting memory), and no length
// read from the input is allocated before it is checked against that bound. The
// broker never recompresses and never decompresses to validate a produce; these are
// for tests, tools, ListOffsets-by-timestamp precision and (later) compaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "protocol/codec.h"

namespace rokka::protocol {

enum class Compression : int8_t {
  kNone = 0,
  kGzip = 1,    // gzip members (RFC 1952), as GZIPOutputStream and librdkafka write them
  kSnappy = 2,  // raw snappy (librdkafka) or the xerial framing (the Java client): both decode
  kLz4 = 3,     // the LZ4 frame format
  kZstd = 4,    // zstd frames
};
inline constexpr int8_t kMaxCompressionId = 4;

const char* compression_name(Compression c);

enum class DecompressStatus : uint8_t {
  kOk,
  kMalformed,  // not valid data for the codec, or truncated
  kTooLarge,   // the output would exceed max_output
};

// Replaces `out` with the decompressed form of `in`. kNone copies.
DecompressStatus decompress(Compression codec, Bytes in, size_t max_output, std::vector<std::byte>& out);

// Replaces `out` with `in` compressed by `codec` (snappy: raw). For tests and tools;
// false only if the library fails.
bool compress(Compression codec, Bytes in, std::vector<std::byte>& out);

}  // namespace rokka::protocol
