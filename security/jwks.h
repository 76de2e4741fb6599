// JSON Web Key Sets (RFC 7517) of public signing keys, and JWS signature
// checks (RFC 7515/7518) with them over OpenSSL: RS256/384/512 and
// PS256/384/512 with RSA keys of at least 2048 bits (as jose4j demands),
// ES256/384/512 with P-256/P-384/P-521 keys. Keys of other types ("oct",
// "OKP") and keys whose "use" is not "sig" are skipped, as jose4j's key
// resolver never picks them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "security/result.h"

namespace rokka::security {

inline constexpr size_t kMaxJwksBytes = 1 << 20;
inline constexpr size_t kMaxJwksKeys = 256;

enum class JwsAlgorithm { kRs256, kRs384, kRs512, kPs256, kPs384, kPs512, kEs256, kEs384, kEs512 };
std::optional<JwsAlgorithm> jws_algorithm_from_name(std::string_view name);
std::string_view jws_algorithm_name(JwsAlgorithm alg);

class JsonWebKeySet {
 public:
  JsonWebKeySet();
  ~JsonWebKeySet();
  JsonWebKeySet(JsonWebKeySet&&) noexcept;
  JsonWebKeySet& operator=(JsonWebKeySet&&) noexcept;

  static Result<JsonWebKeySet> parse(std::string_view json);
  // A `file:` URL (file:/path, file:///path, file://localhost/path), as
  // sasl.oauthbearer.jwks.endpoint.url names it; the path is used as written.
  static Result<JsonWebKeySet> load_file_url(std::string_view url);

  size_t size() const;

  // Whether one of the keys that fit `alg` (and `kid`, when the token names
  // one) verifies `signature` over `signing_input`; `why` says why not.
  bool verify(JwsAlgorithm alg, const std::optional<std::string>& kid, std::string_view signing_input,
              std::string_view signature, std::string& why) const;

 private:
  struct Key;
  std::vector<Key> keys_;
};

}  // namespace rokka::security
