// libFuzzer target for the security room's OAUTHBEARER and JWT parsers. The first byte picks:
//   0: the rest as a token for the unsecured validator;
//   1: the rest as a token for the signed validator (a JWKS of keys made at start-up);
//   2: the rest as a JWT payload signed with such a key, so the claim checks run;
//   3: the rest as a JWKS, and as an OAUTHBEARER exchange (the message, then %x01).
#include <cstddef>
#include <cstdint>
#include <string>

#include "security/base64.h"
#include "security/oauth_bearer.h"
#include "tests/security/jwt_test_signer.h"

namespace {

using namespace rokka::security;

// An ES256 key made at start-up (the test signer of tests/security/).
const rokka::security::testing::TestSigningKey& signer() {
  static const auto* key = new rokka::security::testing::TestSigningKey("P-256", "fuzz");
  return *key;
}

std::shared_ptr<const OAuthBearerValidator> signed_validator() {
  static const auto v = [] {
    SignedValidatorOptions options;
    options.expected_audience = {"kafka"};
    options.expected_issuer = "issuer";
    auto keys = JsonWebKeySet::parse(rokka::security::testing::jwks_of({signer().jwk()}));
    return std::make_shared<const SignedOAuthBearerValidator>(std::move(keys).value(), options);
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
      if (rest.size() <= kMaxOAuthBearerMessageBytes / 2)
        (void)signed_validator()->validate(signer().sign("ES256", std::string(rest)), kNowMs);
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
