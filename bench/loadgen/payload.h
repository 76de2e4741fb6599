// The bytes the load generator sends: a 24-byte stamp (who sent the message and when) followed
// by filler. The stamp lets the delivery-report callback and a consumer measure latency without
// a side table, across threads and processes on one machine (CLOCK_MONOTONIC is system-wide).
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace rokka::bench {

inline constexpr size_t kStampSize = 24;
inline constexpr uint32_t kStampMagic = 0x524b4e42;  // "RKNB" read as a big-endian word

struct Stamp {
  uint32_t run_id = 0;   // tells this run's messages from older ones on a reused topic
  uint64_t send_ns = 0;  // CLOCK_MONOTONIC; in open-loop mode the *intended* send time
  uint64_t seq = 0;      // global message index within the run
};

inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Layout (host byte order: writer and reader are on the same machine):
//   magic u32 | run_id u32 | send_ns u64 | seq u64
// REQUIRES: payload.size() >= kStampSize.
inline void write_stamp(std::span<std::byte> payload, const Stamp& stamp) {
  std::byte* p = payload.data();
  std::memcpy(p, &kStampMagic, 4);
  std::memcpy(p + 4, &stamp.run_id, 4);
  std::memcpy(p + 8, &stamp.send_ns, 8);
  std::memcpy(p + 16, &stamp.seq, 8);
}

// nullopt when the payload is too short or was not written by write_stamp.
inline std::optional<Stamp> read_stamp(std::span<const std::byte> payload) {
  if (payload.size() < kStampSize) return std::nullopt;
  const std::byte* p = payload.data();
  uint32_t magic = 0;
  std::memcpy(&magic, p, 4);
  if (magic != kStampMagic) return std::nullopt;
  Stamp stamp;
  std::memcpy(&stamp.run_id, p + 4, 4);
  std::memcpy(&stamp.send_ns, p + 8, 8);
  std::memcpy(&stamp.seq, p + 16, 8);
  return stamp;
}

// A message body of `size` bytes: a zeroed stamp area, then lowercase letters from a fixed
// pseudo-random sequence. Text-like filler compresses roughly 2:1, closer to real payloads
// than random bytes (incompressible) or zeros (compress to nothing).
inline std::vector<std::byte> make_payload(size_t size) {
  std::vector<std::byte> body(size);
  uint32_t x = 2463534242u;  // xorshift32: any fixed seed does, so every run sends the same bytes
  for (size_t i = kStampSize; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    body[i] = static_cast<std::byte>('a' + x % 16);
  }
  return body;
}

}  // namespace rokka::bench
