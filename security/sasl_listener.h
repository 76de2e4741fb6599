// What one SASL listener needs, built once from its settings (Kafka's keys
// with listener.name.<listener>. resolved by listener_config()):
//   sasl.enabled.mechanisms                      PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER
//   <mechanism>.sasl.jaas.config                 (listener.name.<l>.plain.sasl.jaas.config ...);
//                                                PLAIN's users; OAUTHBEARER's unsecured options
//   [<mechanism>.]connections.max.reauth.ms      KIP-368 session lifetime, 0 = none
//   OAUTHBEARER's keys: see oauth_bearer.h
// and the KIP-368 rules a connection applies after each exchange.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "security/config_map.h"
#include "security/kafka_principal.h"
#include "security/oauth_bearer.h"
#include "security/plain_server.h"
#include "security/result.h"
#include "security/sasl_server.h"
#include "security/scram_server.h"

namespace rokka::security {

class SaslListener {
 public:
  static Result<SaslListener> from_config(const ConfigMap& listener_config);

  // In the configured order: SaslHandshake's mechanisms list.
  const std::vector<std::string>& enabled_mechanisms() const { return enabled_; }
  bool enabled(std::string_view mechanism) const;
  int64_t max_reauth_ms(std::string_view mechanism) const;
  // A fresh server for one exchange; nullptr for a mechanism not enabled.
  // `scram` looks credentials up in the broker's store at client-first.
  std::unique_ptr<SaslServer> create(std::string_view mechanism, const ScramCredentialLookup& scram) const;

 private:
  std::vector<std::string> enabled_;
  std::shared_ptr<const PlainUsers> plain_users_;
  std::shared_ptr<const OAuthBearerValidator> oauth_validator_;
  std::map<std::string, int64_t, std::less<>> max_reauth_ms_;
};

// SaslAuthenticate v1+'s session_lifetime_ms after a successful exchange at
// `now_ms`: the credential's remaining life, connections.max.reauth.ms, the
// smaller of both, or 0 when neither applies (SaslServerAuthenticator's rule).
int64_t session_lifetime_ms(std::optional<int64_t> credential_expiry_ms, int64_t max_reauth_ms, int64_t now_ms);

// A re-authentication must keep the principal and the mechanism; Kafka's messages when it does not.
std::optional<std::string> reauthentication_principal_error(const KafkaPrincipal& before, const KafkaPrincipal& after);
std::optional<std::string> reauthentication_mechanism_error(std::string_view previous, std::string_view requested);

}  // namespace rokka::security
