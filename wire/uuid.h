// Kafka's UUID, once: its 16 bytes and its two text forms. protocol/ reads and writes it
// on the wire; wire/random_id.h draws new ones.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rokka::wire {

// Kafka's Uuid (org.apache.kafka.common.Uuid): 16 bytes, the most significant first, as
// on the wire. The all-zero UUID means "no id" there.
using Uuid = std::array<uint8_t, 16>;

// Kafka's Uuid.toString(): URL-safe base64 (RFC 4648 section 5) without padding, 22 characters.
inline std::string to_base64url(const Uuid& u) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve(22);
  size_t i = 0;
  for (; i + 3 <= u.size(); i += 3) {  // 15 bytes: 20 characters
    const uint32_t v = uint32_t{u[i]} << 16 | uint32_t{u[i + 1]} << 8 | u[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  out.push_back(kAlphabet[u[i] >> 2]);  // the last byte: 2 characters
  out.push_back(kAlphabet[(u[i] & 3) << 4]);
  return out;
}

// java.util.UUID.toString(): 8-4-4-4-12 lowercase hex digits, 36 characters.
inline std::string to_uuid_text(const Uuid& u) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(36, '-');
  for (size_t i = 0, at = 0; i < u.size(); ++i, at += 2) {
    if (i == 4 || i == 6 || i == 8 || i == 10) ++at;  // past a dash
    out[at] = kHex[u[i] >> 4];
    out[at + 1] = kHex[u[i] & 15];
  }
  return out;
}

}  // namespace rokka::wire
