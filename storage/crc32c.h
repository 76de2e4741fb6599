// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum of Kafka's
// RecordBatch v2 and of every Rokka on-disk structure. Our own implementation:
// SSE4.2 crc32 instructions when the CPU has them, a slicing-by-8 table otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rokka::storage {

// Extends `crc` (the value returned by an earlier call, or 0 to start) over `data`.
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n);

inline uint32_t crc32c(const void* data, size_t n) { return crc32c_extend(0, data, n); }
inline uint32_t crc32c(std::span<const std::byte> data) { return crc32c_extend(0, data.data(), data.size()); }

// True when the hardware path is in use (reported in logs and benchmarks).
bool crc32c_hardware();

}  // namespace rokka::storage
