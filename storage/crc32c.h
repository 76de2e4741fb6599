// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum of Kafka's
// RecordBatch v2 and of every Rokka on-disk structure. Our own implementation:
// SSE4.2 crc32 instructions when the CPU has them, a slicing-by-8 table otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "wire/endian.h"
#include "wire/record_batch_layout.h"

namespace rokka::storage {

// Extends `crc` (the value returned by an earlier call, or 0 to start) over `data`.
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n);

inline uint32_t crc32c(const void* data, size_t n) { return crc32c_extend(0, data, n); }
inline uint32_t crc32c(std::span<const std::byte> data) { return crc32c_extend(0, data.data(), data.size()); }

// A Kafka RecordBatch v2's own CRC (wire/record_batch_layout.h), once: the CRC-32C of its
// bytes from Attributes to the end, stored big-endian at kCrc. The store checks it on every
// batch it is given (storage/store.cc); the produce handler, on a batch it refuses or
// rewrites; whoever builds or changes a batch seals it. REQUIRES: batch.size() >= kHeaderSize.
inline uint32_t batch_crc(std::span<const std::byte> batch) { return crc32c(batch.subspan(wire::batch::kAttributes)); }
inline bool batch_crc_ok(std::span<const std::byte> batch) {
  return wire::load_be<uint32_t>(batch.data() + wire::batch::kCrc) == batch_crc(batch);
}
inline void seal_batch_crc(std::span<std::byte> batch) {
  wire::store_be<uint32_t>(batch.data() + wire::batch::kCrc, batch_crc(batch));
}

// True when the hardware path is in use (reported in logs and benchmarks).
bool crc32c_hardware();

}  // namespace rokka::storage
