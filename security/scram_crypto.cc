#include "security/scram_crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

namespace rokka::security {
namespace {

const EVP_MD* md(ScramHash h) {
  switch (h) {
    case ScramHash::kSha1: return EVP_sha1();
    case ScramHash::kSha256: return EVP_sha256();
    case ScramHash::kSha512: return EVP_sha512();
  }
  std::abort();
}

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace

std::string_view scram_mechanism_name(ScramMechanism m) {
  switch (m) {
    case ScramMechanism::kSha256: return "SCRAM-SHA-256";
    case ScramMechanism::kSha512: return "SCRAM-SHA-512";
  }
  std::abort();
}

std::optional<ScramMechanism> scram_mechanism_from_name(std::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::kSha512;
  return std::nullopt;
}

std::optional<ScramMechanism> scram_mechanism_from_type(int8_t type) {
  if (type == 1) return ScramMechanism::kSha256;
  if (type == 2) return ScramMechanism::kSha512;
  return std::nullopt;
}

ScramHash scram_hash(ScramMechanism m) { return m == ScramMechanism::kSha256 ? ScramHash::kSha256 : ScramHash::kSha512; }

size_t scram_digest_size(ScramHash h) { return static_cast<size_t>(EVP_MD_get_size(md(h))); }

std::string scram_hmac(ScramHash h, std::string_view key, std::string_view data) {
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int size = 0;
  HMAC(md(h), key.data(), static_cast<int>(key.size()), bytes(data), data.size(),
       reinterpret_cast<unsigned char*>(out.data()), &size);
  out.resize(size);
  return out;
}

std::string scram_digest(ScramHash h, std::string_view data) {
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()), &size, md(h), nullptr);
  out.resize(size);
  return out;
}

std::string scram_salted_password(ScramHash h, std::string_view password, std::string_view salt, int32_t iterations) {
  std::string out(scram_digest_size(h), '\0');
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), bytes(salt), static_cast<int>(salt.size()),
                    iterations, md(h), static_cast<int>(out.size()), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

std::string scram_client_key(ScramHash h, std::string_view salted_password) {
  return scram_hmac(h, salted_password, "Client Key");
}

std::string scram_server_key(ScramHash h, std::string_view salted_password) {
  return scram_hmac(h, salted_password, "Server Key");
}

std::string scram_xor(std::string_view a, std::string_view b) {
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Status validate_scram_iterations(int32_t iterations) {
  if (iterations < kScramMinIterations) return Error("Too few iterations");
  if (iterations > kScramMaxIterations) return Error("Too many iterations");
  return {};
}

Result<ScramCredential> scram_credential_from_salted_password(ScramMechanism m, std::string_view salt,
                                                              std::string_view salted_password, int32_t iterations) {
  if (Status s = validate_scram_iterations(iterations); !s.ok()) return Error(s.message());
  const ScramHash h = scram_hash(m);
  if (salt.empty()) return Error("Salt must not be empty");
  if (salted_password.size() != scram_digest_size(h))
    return Error("Salted password must have " + std::to_string(scram_digest_size(h)) + " bytes for " +
                 std::string(scram_mechanism_name(m)));
  return ScramCredential{std::string(salt), scram_digest(h, scram_client_key(h, salted_password)),
                         scram_server_key(h, salted_password), iterations};
}

Result<ScramCredential> generate_scram_credential(ScramMechanism m, std::string_view password, int32_t iterations) {
  if (Status s = validate_scram_iterations(iterations); !s.ok()) return Error(s.message());
  std::string salt(32, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size())) != 1)
    return Error("RAND_bytes failed");
  return scram_credential_from_salted_password(m, salt, scram_salted_password(scram_hash(m), password, salt, iterations),
                                               iterations);
}

}  // namespace rokka::security
