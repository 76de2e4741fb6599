#include "broker/net/connection_auth.h"

#include <cctype>

#include "protocol/error_code.h"

namespace rokka::broker {

using protocol::ApiKey;
using protocol::ErrorCode;

namespace {

// Kafka's ApiKeys names in its messages: SASL_AUTHENTICATE, METADATA, ...
std::string upper_snake(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(name[i - 1])))
      out += '_';
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

ConnectionAuth::ConnectionAuth(std::shared_ptr<const ListenerSecurity> security)
    : security_(std::move(security)), principal_text_(principal_.to_string()) {}

void ConnectionAuth::set_tls_principal(security::KafkaPrincipal principal) {
  if (security_->uses_sasl()) return;
  principal_ = std::move(principal);
  principal_text_ = principal_.to_string();
}

std::optional<std::string> ConnectionAuth::admit(ApiKey key, Clock::time_point now) const {
  if (!security_->uses_sasl()) return std::nullopt;
  const bool sasl_api = key == ApiKey::kSaslHandshake || key == ApiKey::kSaslAuthenticate;
  if (server_ != nullptr) {  // after SaslHandshake: the exchange's tokens only
    if (key == ApiKey::kSaslAuthenticate) return std::nullopt;
    return "Unexpected Kafka request of type " + upper_snake(api_name(key)) + " during SASL authentication.";
  }
  if (!authenticated_) {
    if (key == ApiKey::kApiVersions || key == ApiKey::kSaslHandshake) return std::nullopt;
    return "Unexpected Kafka request of type " + upper_snake(api_name(key)) + " during SASL handshake.";
  }
  if (session_expiry_ && now >= *session_expiry_ && !sasl_api)
    return "the SASL session expired (connections.max.reauth.ms) and the client did not re-authenticate";
  return std::nullopt;
}

ConnectionAuth::HandshakeResult ConnectionAuth::handshake(std::string_view mechanism, int16_t version,
                                                          const security::ScramCredentialLookup& scram) {
  HandshakeResult out;
  if (!security_->uses_sasl()) {  // Kafka's KafkaApis answer on a listener without SASL
    out.error_code = ErrorCode::kIllegalSaslState;
    return out;
  }
  out.mechanisms = security_->sasl->enabled_mechanisms();
  // v0 (raw tokens without SaslAuthenticate, clients before Kafka 1.0): PLAIN and SCRAM, as
  // a first exchange; OAUTHBEARER and re-authentication (KIP-368) need SaslAuthenticate.
  const bool raw = version == 0;
  if (!security_->sasl->enabled(mechanism) || (raw && (authenticated_ || mechanism == "OAUTHBEARER"))) {
    out.error_code = ErrorCode::kUnsupportedSaslMechanism;
    out.close = true;
    return out;
  }
  reauth_failure_.reset();
  if (authenticated_) {
    if (auto err = security::reauthentication_mechanism_error(authenticated_mechanism_, mechanism)) reauth_failure_ = *err;
  }
  mechanism_ = std::string(mechanism);
  server_ = security_->sasl->create(mechanism, scram);  // SCRAM reads the credential at client-first
  raw_tokens_ = raw;
  return out;
}

void ConnectionAuth::fail_exchange() { server_.reset(); }

ConnectionAuth::AuthenticateResult ConnectionAuth::authenticate(protocol::Bytes client_bytes, int64_t now_epoch_ms,
                                                                Clock::time_point now) {
  AuthenticateResult out;
  if (!security_->uses_sasl()) {
    out.error_code = ErrorCode::kIllegalSaslState;
    out.error_message = "SaslAuthenticate request received on a listener without SASL";
    return out;
  }
  if (server_ == nullptr) {  // admit() lets this through only on an authenticated connection
    out.error_code = ErrorCode::kIllegalSaslState;
    out.error_message = "SaslAuthenticate request received after successful authentication";
    return out;
  }
  const bool reauthentication = authenticated_;
  if (reauth_failure_) {
    out.error_code = ErrorCode::kSaslAuthenticationFailed;
    out.error_message = *reauth_failure_;
    out.close = true;
    fail_exchange();
    return out;
  }
  security::SaslStep step = server_->evaluate(std::span<const std::byte>(client_bytes.data(), client_bytes.size()));
  switch (step.kind) {
    case security::SaslStep::Kind::kChallenge:
      out.auth_bytes = std::move(step.data);
      return out;
    case security::SaslStep::Kind::kFailed:
      out.error_code = ErrorCode::kSaslAuthenticationFailed;
      out.error_message = security::failure_message(step, mechanism_, reauthentication);
      out.detail = std::move(step.detail);
      out.close = true;
      fail_exchange();
      return out;
    case security::SaslStep::Kind::kComplete:
      break;
  }
  security::KafkaPrincipal principal = security::KafkaPrincipal::user(server_->authorization_id());
  if (reauthentication) {
    if (auto err = security::reauthentication_principal_error(principal_, principal)) {
      out.error_code = ErrorCode::kSaslAuthenticationFailed;
      out.error_message = *err;
      out.close = true;
      fail_exchange();
      return out;
    }
  }
  const int64_t lifetime = security::session_lifetime_ms(server_->credential_expiry_ms(),
                                                         security_->sasl->max_reauth_ms(mechanism_), now_epoch_ms);
  session_expiry_.reset();
  if (lifetime > 0) session_expiry_ = now + std::chrono::milliseconds(lifetime);
  out.session_lifetime_ms = lifetime;
  out.auth_bytes = std::move(step.data);
  principal_ = std::move(principal);
  principal_text_ = principal_.to_string();
  authenticated_ = true;
  authenticated_mechanism_ = mechanism_;
  server_.reset();
  return out;
}

}  // namespace rokka::broker
