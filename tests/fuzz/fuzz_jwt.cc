// libFuzzer target for the security room's OAUTHBEARER and JWT parsers. The first byte picks:
//   0: the rest as a token for the unsecured validator;
//   1: the rest as a token for the signed validator (a JWKS of keys made at start-up);
//   2: the rest as a JWT payload signed with such a key, so the claim checks run;
//   3: the rest as a JWKS, and as an OAUTHBEARER exchange (the message, then %x01).
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "security/base64.h"
#include "security/oauth_bearer.h"

namespace {

using namespace rokka::security;

struct Signer {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  std::string header = base64url_encode(R"({"alg":"ES256","kid":"fuzz"})");

  std::string jwk() const {
    unsigned char point[65];
    size_t len = 0;
    EVP_PKEY_get_octet_string_param(key, "pub", point, sizeof(point), &len);
    const std::string p(reinterpret_cast<char*>(point) + 1, 64);
    return R"({"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz","x":")" + base64url_encode(p.substr(0, 32)) +
           R"(","y":")" + base64url_encode(p.substr(32)) + R"("}]})";
  }
  std::string sign(std::string_view payload) const {
    const std::string input = header + "." + base64url_encode(payload);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key);
    size_t len = 0;
    EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
    std::string der(len, '\0');
    EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(der.data()), &len,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    EVP_MD_CTX_free(ctx);
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(sig);
    return input + "." + base64url_encode(raw);
  }
};

const Signer& signer() {
  static const Signer* s = new Signer;
  return *s;
}

std::shared_ptr<const OAuthBearerValidator> signed_validator() {
  static const auto v = [] {
    SignedValidatorOptions options;
    options.expected_audience = {"kafka"};
    options.expected_issuer = "issuer";
    return std::make_shared<const SignedOAuthBearerValidator>(JsonWebKeySet::parse(signer().jwk()).value(), options);
  }();
  return v;
}

std::shared_ptr<const OAuthBearerValidator> unsecured_validator() {
  static const auto v = [] {
    UnsecuredValidatorOptions options;
    options.required_scope = {"kafka"};
    return std::make_shared<const UnsecuredOAuthBearerValidator>(options);
  }();
  return v;
}

constexpr int64_t kNowMs = 1'700'000'000'000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: (void)unsecured_validator()->validate(rest, kNowMs); break;
    case 1: (void)signed_validator()->validate(rest, kNowMs); break;
    case 2:
      if (rest.size() <= kMaxOAuthBearerMessageBytes / 2) (void)signed_validator()->validate(signer().sign(rest), kNowMs);
      break;
    default: {
      (void)JsonWebKeySet::parse(rest);
      OAuthBearerServer server(unsecured_validator(), [] { return kNowMs; });
      (void)server.evaluate(rest);
      (void)server.evaluate("\x01");
    }
  }
  return 0;
}
