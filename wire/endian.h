// Byte order, once: Kafka's wire and its RecordBatch are big-endian; Rokka's own
// on-disk structures (storage/FORMAT.md) are little-endian. Every room that reads or
// writes integers in a byte buffer uses these (protocol/, storage/, coordinator/).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rokka::wire {

// The `n` (1-8) bytes at `p` as a big-endian unsigned number.
inline uint64_t get_be(const std::byte* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | std::to_integer<uint64_t>(p[i]);
  return v;
}
// The low `n` (1-8) bytes of `v` at `p`, big-endian.
inline void put_be(std::byte* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<std::byte>(v & 0xff);
}
template <std::integral T>
T load_be(const std::byte* p) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(get_be(p, static_cast<int>(sizeof(T)))));
}
template <std::integral T>
void store_be(std::byte* p, T v) {
  put_be(p, static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v)), static_cast<int>(sizeof(T)));
}

inline void put_le32(std::byte* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
inline void put_le64(std::byte* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
inline uint32_t get_le32(const std::byte* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<uint32_t>(p[i]);
  return v;
}
inline uint64_t get_le64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<uint64_t>(p[i]);
  return v;
}

}  // namespace rokka::wire
