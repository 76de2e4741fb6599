// The four record-batch codecs of Kafka (attribute bits 0-2 of a v2 batch).
//
// Input is hostile. Decompressor inflates a records section as a stream, a chunk at
// a time, in memory whose size does not depend on the section's: the codec's own
// state (zlib's 32 KiB window, zstd's window of at most kMaxZstdWindowBytes, lz4's
// two blocks of at most 4 MiB) plus one 64 KiB chunk, or for snappy one block (a
// block inflates at most ~21x, so never more than 22x its compressed size). Output
// beyond `max_output` fails with kTooLarge, and no length read from the input is
// allocated before it is checked. decompress() collects a whole section on top of it
// (tests, tools, legacy up-conversion, compaction). The broker never recompresses.
//
// The framings accepted are those Kafka's own clients read back, since whatever the
// broker accepts is handed to consumers as it is: gzip one member (librdkafka stops at
// the first), snappy either the Java client's xerial framing or one raw block
// (librdkafka), lz4 one frame of independent blocks (the Java client reads neither
// linked blocks nor a second frame), zstd one or more frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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

// The largest zstd window decoded (window log 23: every level up to 19, the highest
// without --ultra; levels 20-22 without a known size ask for 32-128 MiB).
inline constexpr size_t kMaxZstdWindowBytes = size_t{1} << 23;

const char* compression_name(Compression c);

enum class DecompressStatus : uint8_t {
  kOk,
  kMalformed,    // not valid data for the codec, or truncated
  kTooLarge,     // the output would exceed max_output
  kUnsupported,  // valid for the codec but not in a framing Kafka's clients read (see above)
};

const char* decompress_status_name(DecompressStatus s);

// One section at a time; reusable (start() keeps the codec contexts). Not thread-safe.
class Decompressor {
 public:
  static constexpr size_t kDefaultChunkBytes = 64 * 1024;
  // chunk_bytes: the most gzip, lz4 and zstd give per next() (tests use tiny ones).
  explicit Decompressor(size_t chunk_bytes = kDefaultChunkBytes);
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Begins `in` (which must outlive the reads), of at most `max_output` bytes once
  // decompressed. kNone passes `in` through as one chunk.
  void start(Compression codec, Bytes in, size_t max_output);

  // The next run of decompressed bytes, valid until the next call: non-empty while
  // the section lasts, empty at its end (status kOk) or on failure (the status says).
  Bytes next();
  DecompressStatus status() const { return status_; }
  size_t produced() const { return produced_; }

  struct State;  // per-codec contexts, created on first use

 private:
  std::unique_ptr<State> state_;
  DecompressStatus status_ = DecompressStatus::kOk;
  size_t produced_ = 0;
};

// Replaces `out` with the decompressed form of `in` (kNone copies); out.capacity()
// never exceeds max_output.
DecompressStatus decompress(Compression codec, Bytes in, size_t max_output, std::vector<std::byte>& out);

// Replaces `out` with `in` compressed by `codec` (snappy: raw; lz4: independent
// blocks, as Kafka's clients write it). For tests and tools; false only if the
// library fails.
bool compress(Compression codec, Bytes in, std::vector<std::byte>& out);

}  // namespace rokka::protocol
