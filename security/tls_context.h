// A listener's TLS server context (boost::asio::ssl::context over OpenSSL)
// from Kafka's keys, and the principal of a TLS client:
//
//   ssl.keystore.type            PEM | PKCS12 | JKS (Kafka's default; a PKCS12
//                                file is read, a real JKS file is refused)
//   ssl.keystore.location        PKCS12 file, or PEM file holding the key and the chain
//   ssl.keystore.password        PKCS12 only (Kafka refuses it with PEM)
//   ssl.keystore.certificate.chain + ssl.keystore.key   PEM values inline (PEM type only)
//   ssl.key.password             decrypts an ENCRYPTED PRIVATE KEY (PKCS#8)
//   ssl.truststore.type / .location / .password / .certificates (PEM inline);
//                                none: the system's CA paths, as Java uses its cacerts
//   ssl.client.auth              none | requested | required (default none)
//   ssl.enabled.protocols        default TLSv1.2,TLSv1.3 (TLSv1, TLSv1.1 also named)
//   ssl.cipher.suites            IANA names as Java takes them (TLS_ECDHE_RSA_WITH_...,
//                                TLS_AES_128_GCM_SHA256) or OpenSSL names; empty = OpenSSL's defaults
// PEM values may have their line breaks turned into blanks (a properties value
// continued with '\'), as Kafka's PEM parser allows. ssl.protocol,
// ssl.provider, ssl.*manager.algorithm and ssl.endpoint.identification.algorithm
// do not change a server context and are ignored (the last is the client's: see below). Errors start with the key
// they are about.
#pragma once

#include <openssl/types.h>

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "security/config_map.h"
#include "security/kafka_principal.h"
#include "security/result.h"
#include "security/ssl_principal_mapper.h"

namespace rokka::security {

enum class SslClientAuth { kNone, kRequested, kRequired };

Result<SslClientAuth> parse_ssl_client_auth(std::string_view value);

// Builds the context once per listener (again on a keystore change: new
// connections take the new one, live ones keep theirs).
Result<std::shared_ptr<boost::asio::ssl::context>> build_tls_server_context(const ConfigMap& listener_config);

// The context of the broker's own TLS connections to other brokers (inter.broker.listener.name),
// from that listener's keys: the peer's certificate must chain to ssl.truststore.* (none: the
// system's CA paths); the keystore, if any, is presented when the peer asks for a certificate.
Result<std::shared_ptr<boost::asio::ssl::context>> build_tls_client_context(const ConfigMap& listener_config);
// Before a client handshake to `host`: SNI for a host name, and, unless the listener's
// ssl.endpoint.identification.algorithm is empty (Kafka's default is "https"), the check that the
// peer's certificate names `host` (a DNS or, for an address, an IP subject alternative name).
Status expect_tls_peer(SSL* ssl, const std::string& host, const ConfigMap& listener_config);

// Kafka's check of a keystore that replaces a listener's (SslFactory's
// reconfiguration, KIP-978): the new leaf certificate keeps the subject and the
// subject alternative names of the one it replaces, unless the listener's
// ssl.allow.dn.changes / ssl.allow.san.changes are true. An error starting with
// what differs ("Keystore DistinguishedName does not match: ..."), or empty.
std::string keystore_change_error(const SSL_CTX* existing, const SSL_CTX* replacement, const ConfigMap& listener_config);

// After a completed handshake: User:<mapped subject> for a verified client
// certificate, User:ANONYMOUS without one (DefaultKafkaPrincipalBuilder).
Result<KafkaPrincipal> tls_peer_principal(const SSL* ssl, const SslPrincipalMapper& mapper);

}  // namespace rokka::security
