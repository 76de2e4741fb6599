// Random ids, once: Kafka's UUIDs (topic ids, the cluster id, group member ids) and the
// other random numbers the brokers draw as ids (a cluster member's incarnation, a producer
// id block's nonce). Every one comes from OpenSSL's RAND_bytes, a CSPRNG: unpredictable,
// nothing to seed, safe from any thread. broker/, coordinator/ and cluster/ draw theirs here.
#pragma once

#include <openssl/rand.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace rokka::wire {

// Kafka's Uuid (org.apache.kafka.common.Uuid): 16 bytes, the most significant first, as
// on the wire. The all-zero UUID means "no id" there.
using Uuid = std::array<uint8_t, 16>;

// `n` random bytes at `p`. Aborts when OpenSSL has no randomness to give: no id is safe then.
inline void random_bytes(void* p, size_t n) {
  if (RAND_bytes(static_cast<unsigned char*>(p), static_cast<int>(n)) != 1) std::abort();
}

inline uint64_t random_u64() {
  uint64_t v = 0;
  random_bytes(&v, sizeof v);
  return v;
}

// A random version 4 UUID (RFC 4122: 122 random bits), as java.util.UUID.randomUUID and
// Kafka's Uuid.randomUuid draw them. Never the zero UUID: its version bits are set.
inline Uuid random_uuid() {
  Uuid u{};
  random_bytes(u.data(), u.size());
  u[6] = static_cast<uint8_t>((u[6] & 0x0f) | 0x40);  // version 4
  u[8] = static_cast<uint8_t>((u[8] & 0x3f) | 0x80);  // variant 10
  return u;
}

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

// A new cluster id, as Kafka forms one (Uuid.randomUuid().toString()): 22 characters of
// URL-safe base64.
inline std::string random_cluster_id() { return to_base64url(random_uuid()); }

// A new group member id: `prefix` then a random UUID's text, as Kafka forms a classic
// member's ("<client.id>-<uuid>", prefix "<client.id>-").
inline std::string random_member_id(std::string_view prefix) {
  std::string id(prefix);
  id += to_uuid_text(random_uuid());
  return id;
}

}  // namespace rokka::wire
