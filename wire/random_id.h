// Random ids, once: Kafka's UUIDs (topic ids, the cluster id, group member ids) and the
// other random numbers the brokers draw as ids (a cluster member's incarnation, a producer
// id block's nonce). Every one comes from OpenSSL's RAND_bytes, a CSPRNG: unpredictable,
// nothing to seed, safe from any thread. broker/, coordinator/ and cluster/ draw theirs here.
#pragma once

#include <openssl/rand.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "wire/uuid.h"

namespace rokka::wire {

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
