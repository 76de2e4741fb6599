// A SCRAM credential as one durable record (for the broker's meta journal; the
// journal's own framing and CRC surround it). Big-endian, version 1:
//
//   u8  version (1)        u8  mechanism (Kafka's type: 1 SHA-256, 2 SHA-512)
//   u16 user length        user bytes (1..kMaxScramUserBytes)
//   i32 iterations (kScramMinIterations..kScramMaxIterations)
//   u8  salt length        salt bytes (1..kMaxScramSaltBytes)
//   stored key, server key (the mechanism's digest size each, no length)
//
// The decoder treats its input as hostile: every length is checked against
// what is left and against its bound, and trailing bytes are an error.
#pragma once

#include <string>
#include <string_view>

#include "security/result.h"
#include "security/scram_crypto.h"

namespace rokka::security {

inline constexpr size_t kMaxScramUserBytes = 4096;
inline constexpr size_t kMaxScramSaltBytes = 128;

struct ScramCredentialRecord {
  std::string user;
  ScramMechanism mechanism = ScramMechanism::kSha256;
  ScramCredential credential;
  bool operator==(const ScramCredentialRecord&) const = default;
};

// Fails only for a record that could not be decoded again (a bound or size broken).
Result<std::string> encode_scram_credential_record(const ScramCredentialRecord& record);
Result<ScramCredentialRecord> decode_scram_credential_record(std::string_view bytes);

}  // namespace rokka::security
