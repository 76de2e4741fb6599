#include "storage/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace rokka::storage {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;

// tables[k][b]: CRC of byte b followed by k zero bytes (slicing-by-8).
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t{};
  constexpr Tables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      t[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; ++b)
      for (size_t k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
};
constexpr Tables kTables;

// The hardware path runs three independent streams of kLane bytes at once (the
// crc32 instruction has a latency of 3 cycles but issues every cycle: 3x the
// throughput of one dependent chain), then folds them together with kShift.
constexpr size_t kLane = 512;

// The CRC register after `bytes` zero bytes, as a function of the starting register.
// That map is linear over GF(2), so it is tabulated per byte of the register.
struct ShiftTable {
  std::array<std::array<uint32_t, 256>, 4> t{};
  constexpr explicit ShiftTable(size_t bytes) {
    std::array<uint32_t, 32> basis{};  // the image of each single bit
    for (size_t i = 0; i < 32; ++i) {
      uint32_t c = uint32_t{1} << i;
      for (size_t k = 0; k < bytes; ++k) c = (c >> 8) ^ kTables.t[0][c & 0xff];
      basis[i] = c;
    }
    for (size_t k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (size_t i = 0; i < 8; ++i)
          if ((b >> i) & 1) v ^= basis[8 * k + i];
        t[k][b] = v;
      }
    }
  }
  uint32_t apply(uint32_t c) const {
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
  }
};
constexpr ShiftTable kShiftLane(kLane), kShiftTwoLanes(2 * kLane);

uint32_t extend_software(uint32_t crc, const uint8_t* p, size_t n) {
  const auto& t = kTables.t;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
    --n;
  }
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // little-endian hosts only (x86_64, aarch64)
    word ^= crc;
    crc = t[7][word & 0xff] ^ t[6][(word >> 8) & 0xff] ^ t[5][(word >> 16) & 0xff] ^ t[4][(word >> 24) & 0xff] ^
          t[3][(word >> 32) & 0xff] ^ t[2][(word >> 40) & 0xff] ^ t[1][(word >> 48) & 0xff] ^ t[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__)
inline uint64_t load64(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

__attribute__((target("sse4.2"))) uint32_t extend_hardware(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  // CRC(r, A|B|C) = shift(CRC(r, A), |B|+|C|) ^ shift(CRC(0, B), |C|) ^ CRC(0, C).
  while (n >= 3 * kLane) {
    uint64_t a = c, b = 0, d = 0;
    for (size_t i = 0; i < kLane; i += 8) {
      a = _mm_crc32_u64(a, load64(p + i));
      b = _mm_crc32_u64(b, load64(p + kLane + i));
      d = _mm_crc32_u64(d, load64(p + 2 * kLane + i));
    }
    c = kShiftTwoLanes.apply(static_cast<uint32_t>(a)) ^ kShiftLane.apply(static_cast<uint32_t>(b)) ^
        static_cast<uint32_t>(d);
    p += 3 * kLane;
    n -= 3 * kLane;
  }
  while (n >= 8) {
    c = _mm_crc32_u64(c, load64(p));
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
  return static_cast<uint32_t>(c);
}

bool cpu_has_sse42() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & bit_SSE4_2) != 0;
}
const bool kHardware = cpu_has_sse42();
#else
const bool kHardware = false;
#endif

}  // namespace

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  if (kHardware) return ~extend_hardware(crc, p, n);
#endif
  return ~extend_software(crc, p, n);
}

bool crc32c_hardware() { return kHardware; }

}  // namespace rokka::storage
