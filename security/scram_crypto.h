// SCRAM's mechanisms and arithmetic (RFC 5802 section 3, RFC 7677) over
// OpenSSL: Hi() is PKCS5_PBKDF2_HMAC, HMAC and H are EVP's. Kafka does no
// SASLprep: a password is used as its UTF-8 bytes (ScramFormatter.normalize).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "security/result.h"

namespace rokka::security {

// Kafka's type numbers (AlterUserScramCredentials' mechanism field).
enum class ScramMechanism : uint8_t { kSha256 = 1, kSha512 = 2 };

std::string_view scram_mechanism_name(ScramMechanism m);  // "SCRAM-SHA-256"
std::optional<ScramMechanism> scram_mechanism_from_name(std::string_view name);
std::optional<ScramMechanism> scram_mechanism_from_type(int8_t type);

// Iteration bounds: Kafka's ScramMechanism minimum and ScramControlManager's MAX_ITERATIONS.
inline constexpr int32_t kScramMinIterations = 4096;
inline constexpr int32_t kScramMaxIterations = 16384;

// The hash behind a mechanism; kSha1 is SCRAM-SHA-1 (RFC 5802's own example), never offered to clients.
enum class ScramHash { kSha1, kSha256, kSha512 };
ScramHash scram_hash(ScramMechanism m);
size_t scram_digest_size(ScramHash h);

std::string scram_hmac(ScramHash h, std::string_view key, std::string_view data);
std::string scram_digest(ScramHash h, std::string_view data);
std::string scram_salted_password(ScramHash h, std::string_view password, std::string_view salt, int32_t iterations);
std::string scram_client_key(ScramHash h, std::string_view salted_password);  // HMAC(SaltedPassword, "Client Key")
std::string scram_server_key(ScramHash h, std::string_view salted_password);  // HMAC(SaltedPassword, "Server Key")
std::string scram_xor(std::string_view a, std::string_view b);                // equal sizes

// Byte strings compared in time that depends only on their lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

// What the broker keeps per (user, mechanism): never the password.
struct ScramCredential {
  std::string salt;
  std::string stored_key;  // H(ClientKey)
  std::string server_key;
  int32_t iterations = 0;
  bool operator==(const ScramCredential&) const = default;
};

// AlterUserScramCredentials' checks, with ScramControlManager's messages ("Too few iterations").
Status validate_scram_iterations(int32_t iterations);

// A credential from a password: 32 random bytes of salt (OpenSSL RAND_bytes).
Result<ScramCredential> generate_scram_credential(ScramMechanism m, std::string_view password, int32_t iterations);
// A credential from what AlterUserScramCredentials carries: the client's salt and salted password.
Result<ScramCredential> scram_credential_from_salted_password(ScramMechanism m, std::string_view salt,
                                                              std::string_view salted_password, int32_t iterations);

}  // namespace rokka::security
