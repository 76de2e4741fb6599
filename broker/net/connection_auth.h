// One connection's identity: who the client is (its principal, for the
// authorizer) and, on a SASL listener, the SASL state machine Kafka's
// SaslServerAuthenticator runs:
//
//   handshake-or-versions --SaslHandshake (v1; enabled mechanism)--> authenticate
//   authenticate --SaslAuthenticate (challenges)...--> authenticated
//   handshake-or-versions --SaslHandshake v0 (PLAIN or SCRAM)--> raw tokens
//   raw tokens --size-prefixed tokens, no request header (clients before Kafka 1.0's
//                SaslAuthenticate: kafka-python 2.0.2, sarama's PLAIN below 1.0)...--> authenticated
//
// Before authentication only ApiVersions, SaslHandshake and SaslAuthenticate are
// served; any other request closes the connection, as does a failed exchange
// (after its SASL_AUTHENTICATION_FAILED answer) or an unsupported mechanism.
// KIP-368: an authenticated client may run the exchange again on the same
// connection (same mechanism, same principal); once its session lifetime
// (connections.max.reauth.ms, or an OAUTHBEARER token's expiry) has passed, any
// request but a re-authentication closes the connection.
//
// Lives on the connection's thread; handlers reach it through RequestContext.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "broker/net/listener_security.h"
#include "protocol/api_keys.h"
#include "protocol/codec.h"
#include "security/kafka_principal.h"
#include "security/sasl_server.h"
#include "security/scram_server.h"

namespace rokka::broker {

class ConnectionAuth {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ConnectionAuth(std::shared_ptr<const ListenerSecurity> security);

  const ListenerSecurity& listener() const { return *security_; }
  // "User:<name>", as the authorizer and ACL bindings take it.
  const std::string& principal() const { return principal_text_; }
  // SASL listener, exchange not (yet) complete: only the SASL APIs are served,
  // and frames are held to sasl.server.max.receive.size.
  bool authenticating() const { return security_->uses_sasl() && !authenticated_; }
  // The SASL mechanism of the exchange in progress, or of the last one (empty before any).
  const std::string& mechanism() const { return mechanism_; }

  // After a TLS handshake: the certificate's principal (SSL listeners only; SASL_SSL's comes from SASL).
  void set_tls_principal(security::KafkaPrincipal principal);

  // Whether a request of `key` may be served now; else why the connection closes.
  std::optional<std::string> admit(protocol::ApiKey key, Clock::time_point now) const;

  struct HandshakeResult {
    protocol::ErrorCode error_code = protocol::ErrorCode::kNone;
    std::vector<std::string> mechanisms;  // the listener's enabled mechanisms
    bool close = false;                   // close once the answer is sent
  };
  // `scram` finds credentials when a SCRAM exchange reaches client-first.
  HandshakeResult handshake(std::string_view mechanism, int16_t version, const security::ScramCredentialLookup& scram);

  struct AuthenticateResult {
    protocol::ErrorCode error_code = protocol::ErrorCode::kNone;
    std::optional<std::string> error_message;
    std::string auth_bytes;
    int64_t session_lifetime_ms = 0;
    bool close = false;
    std::string detail;  // a failure's reason, for the broker's log only (never sent)
  };
  AuthenticateResult authenticate(protocol::Bytes client_bytes, int64_t now_epoch_ms, Clock::time_point now);
  // After SaslHandshake v0: the next frames are the exchange's raw tokens (a 4-byte size,
  // then the token; answered the same way, with no Kafka headers), until it completes.
  // A failed step has no answer in this form: the connection closes, as in Kafka.
  bool raw_tokens() const { return server_ != nullptr && raw_tokens_; }

 private:
  void fail_exchange();

  std::shared_ptr<const ListenerSecurity> security_;
  security::KafkaPrincipal principal_ = security::KafkaPrincipal::anonymous();
  std::string principal_text_;
  bool authenticated_ = false;                     // at least one exchange completed
  std::string mechanism_;                          // of the exchange in progress, or the last one
  std::string authenticated_mechanism_;            // of the last completed exchange
  std::unique_ptr<security::SaslServer> server_;   // the exchange in progress (after SaslHandshake)
  bool raw_tokens_ = false;                        // that exchange began with SaslHandshake v0
  std::optional<std::string> reauth_failure_;      // KIP-368: the handshake changed the mechanism
  std::optional<Clock::time_point> session_expiry_;
};

}  // namespace rokka::broker
