// SASL/OAUTHBEARER (RFC 7628) as Kafka's OAuthBearerSaslServer runs it, with
// Kafka's two token validators:
//   - unsecured (OAuthBearerUnsecuredValidatorCallbackHandler): alg "none"
//     tokens for development, configured by the JAAS options
//     unsecuredValidator{PrincipalClaimName,ScopeClaimName,RequiredScope,AllowableClockSkewMs};
//   - signed (OAuthBearerValidatorCallbackHandler): JWS checked against a JWKS
//     file (sasl.oauthbearer.jwks.endpoint.url=file:...), exp and iat required,
//     nbf honoured, sasl.oauthbearer.expected.audience / .expected.issuer /
//     .clock.skew.seconds / .scope.claim.name / .sub.claim.name.
// A token that fails gets Kafka's answer: the RFC 7628 JSON error
// {"status":"invalid_token"} as a challenge, and once the client answers with
// %x01, SASL_AUTHENTICATION_FAILED carrying that JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "security/config_map.h"
#include "security/jaas_config.h"
#include "security/jwks.h"
#include "security/result.h"
#include "security/sasl_server.h"

namespace rokka::security {

inline constexpr std::string_view kOAuthBearerMechanism = "OAUTHBEARER";
// Longer client messages (and so tokens) are refused unparsed.
inline constexpr size_t kMaxOAuthBearerMessageBytes = 64 * 1024;

inline constexpr std::string_view kOAuthBearerSignedValidatorClass =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
inline constexpr std::string_view kOAuthBearerUnsecuredValidatorClass =
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler";

// n,[a=<authzid>],%x01auth=Bearer <token>%x01[<key>=<value>%x01]*%x01
struct OAuthBearerClientResponse {
  std::string authzid;
  std::string token;
  std::map<std::string, std::string, std::less<>> extensions;

  static Result<OAuthBearerClientResponse> parse(std::string_view message);
  static std::string format(std::string_view token, std::string_view authzid = {});
};

struct OAuthBearerToken {
  std::string value;
  std::string principal;
  std::set<std::string> scope;
  int64_t lifetime_ms = 0;              // exp, in ms since the epoch
  std::optional<int64_t> start_time_ms;  // iat
};

struct OAuthBearerRejection {
  std::string status = "invalid_token";  // or "insufficient_scope"
  std::optional<std::string> scope;      // the required scope, for insufficient_scope
  std::string detail;                    // why, for the broker's log
  // RFC 7628's error as Kafka writes it: {"status":"invalid_token"}, then , "scope":"..." if any.
  std::string json() const;
};

using OAuthBearerValidation = std::variant<OAuthBearerToken, OAuthBearerRejection>;

// Immutable once built: one per listener, shared by its connections' servers.
class OAuthBearerValidator {
 public:
  virtual ~OAuthBearerValidator() = default;
  virtual OAuthBearerValidation validate(std::string_view token, int64_t now_ms) const = 0;
};

struct UnsecuredValidatorOptions {
  std::string principal_claim = "sub";
  std::string scope_claim = "scope";
  std::vector<std::string> required_scope;
  int64_t allowable_clock_skew_ms = 0;
  // From the OAuthBearerLoginModule entry's unsecuredValidator* options, with Kafka's checks.
  static Result<UnsecuredValidatorOptions> from_jaas(const JaasModule& module);
};

class UnsecuredOAuthBearerValidator final : public OAuthBearerValidator {
 public:
  explicit UnsecuredOAuthBearerValidator(UnsecuredValidatorOptions options) : options_(std::move(options)) {}
  OAuthBearerValidation validate(std::string_view token, int64_t now_ms) const override;

 private:
  UnsecuredValidatorOptions options_;
};

struct SignedValidatorOptions {
  std::vector<std::string> expected_audience;  // empty: a token must carry no aud (jose4j's default)
  std::optional<std::string> expected_issuer;
  int64_t clock_skew_seconds = 30;
  std::string scope_claim = "scope";
  std::string sub_claim = "sub";
};

class SignedOAuthBearerValidator final : public OAuthBearerValidator {
 public:
  SignedOAuthBearerValidator(JsonWebKeySet keys, SignedValidatorOptions options)
      : keys_(std::move(keys)), options_(std::move(options)) {}
  OAuthBearerValidation validate(std::string_view token, int64_t now_ms) const override;

 private:
  JsonWebKeySet keys_;
  SignedValidatorOptions options_;
};

// The validator a listener's OAUTHBEARER settings ask for (`listener_config`
// from listener_config(); `jaas` its oauthbearer.sasl.jaas.config entry).
// sasl.server.callback.handler.class picks it; unset, the signed one when
// sasl.oauthbearer.jwks.endpoint.url is set. Unsecured tokens are accepted
// only when that class names the unsecured validator. Errors name the key.
Result<std::shared_ptr<const OAuthBearerValidator>> oauth_bearer_validator_from_config(
    const ConfigMap& listener_config, const JaasModule& jaas);

class OAuthBearerServer final : public SaslServer {
 public:
  using Clock = std::function<int64_t()>;  // ms since the epoch
  static int64_t system_now_ms();
  explicit OAuthBearerServer(std::shared_ptr<const OAuthBearerValidator> validator, Clock now = system_now_ms)
      : validator_(std::move(validator)), now_(std::move(now)) {}
  std::string_view mechanism() const override { return kOAuthBearerMechanism; }
  SaslStep evaluate(std::string_view message) override;
  using SaslServer::evaluate;
  bool complete() const override { return token_.has_value(); }
  const std::string& authorization_id() const override { return token_->principal; }
  std::optional<int64_t> credential_expiry_ms() const override { return token_->lifetime_ms; }
  const OAuthBearerToken& token() const { return *token_; }
  const std::map<std::string, std::string, std::less<>>& extensions() const { return extensions_; }

 private:
  std::shared_ptr<const OAuthBearerValidator> validator_;
  Clock now_;
  std::optional<std::string> pending_error_;  // the JSON sent as a challenge, until the client's %x01
  std::string pending_detail_;                // why the token was refused: the failure's detail, for the log
  std::optional<OAuthBearerToken> token_;
  std::map<std::string, std::string, std::less<>> extensions_;
  bool failed_ = false;
};

}  // namespace rokka::security
