// What a listener's connections need to secure themselves, built once per
// listener at start-up from Kafka's keys (security_settings with the
// listener.name.<listener>. overrides resolved): its security protocol, the TLS
// server context (SSL, SASL_SSL), the SASL mechanisms (SASL_PLAINTEXT,
// SASL_SSL) and how a client certificate becomes a principal
// (ssl.principal.mapping.rules). A bad setting fails the start with a message
// naming its key.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "broker/config.h"
#include "security/sasl_listener.h"
#include "security/ssl_principal_mapper.h"
#include "storage/status.h"

namespace rokka::broker {

struct ListenerSecurity {
  std::string listener_name;
  std::string protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
  std::shared_ptr<boost::asio::ssl::context> tls;  // set for SSL and SASL_SSL
  std::optional<security::SaslListener> sasl;      // set for SASL_PLAINTEXT and SASL_SSL
  security::SslPrincipalMapper principal_mapper;   // SSL: the certificate's principal
  int32_t sasl_max_receive_bytes = 524288;          // sasl.server.max.receive.size: frames before authentication

  bool uses_tls() const { return tls != nullptr; }
  bool uses_sasl() const { return sasl.has_value(); }
};

storage::Result<std::shared_ptr<const ListenerSecurity>> build_listener_security(const Listener& listener,
                                                                                  const BrokerConfig& config);

}  // namespace rokka::broker
