// What a listener's connections need to secure themselves, built from Kafka's
// keys (security_settings with the listener.name.<listener>. overrides resolved):
// its security protocol, the TLS server context (SSL, SASL_SSL), the SASL
// mechanisms (SASL_PLAINTEXT, SASL_SSL) and how a client certificate becomes a
// principal (ssl.principal.mapping.rules). A bad setting fails the start with a
// message naming its key.
//
// ListenerSecurityTable keeps every listener's current one. As Kafka reconfigures
// a listener's SslFactory, an AlterConfigs of this broker naming a listener's keys
// (e.g. listener.name.ssl.ssl.keystore.location, or a bare ssl.* key for every
// listener) rebuilds it when its settings changed or a keystore or truststore file
// it reads was rewritten in place (modification time or size moved; the same value
// named again reloads the file): new connections take the new one, live
// connections keep the one they were accepted with and are not dropped. Listeners
// the change does not name are left alone.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/config/config.h"
#include "security/config_map.h"
#include "security/sasl_listener.h"
#include "security/ssl_principal_mapper.h"
#include "storage/status.h"

namespace rokka::broker {

class DynamicBrokerConfig;

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

// `settings`: the security settings (bare and listener.name.<l>. keys).
storage::Result<std::shared_ptr<const ListenerSecurity>> build_listener_security(const Listener& listener,
                                                                                  const security::ConfigMap& settings);

class ListenerSecurityTable {
 public:
  // The broker's values of `dynamic` (null: none) go over server.properties'.
  ListenerSecurityTable(const BrokerConfig& config, const DynamicBrokerConfig* dynamic);

  // Builds every listener of config.listeners, in order (start-up).
  storage::Status build();

  // The listener's current security (config.listeners' index). Thread-safe.
  std::shared_ptr<const ListenerSecurity> current(size_t listener) const;
  // The settings it was built from (listener.name.<l>. prefixes resolved). Thread-safe.
  security::ConfigMap settings(size_t listener) const;

  // Kafka's check of a change before it is stored: with `broker_values` as this
  // broker's dynamic configs, each listener whose settings or files change must
  // build, and a TLS listener's new certificate must keep its subject and
  // alternative names (security::keystore_change_error). An error message naming
  // the listener, or empty.
  // `named`: the keys the change names.
  std::string validate(const std::map<std::string, std::string>& broker_values,
                       const std::vector<std::string>& named) const;

  // After a change is stored: rebuilds the listeners whose settings or files
  // changed and swaps them in. A listener that no longer builds keeps its old
  // security (logged). Returns how many were swapped.
  int reload(const std::vector<std::string>& named);

 private:
  // A key or trust store file as last read: its path, modification time and size.
  struct FileStamp {
    std::string path;
    int64_t mtime_ns = -1;
    int64_t size = -1;
    bool operator==(const FileStamp&) const = default;
  };
  struct Entry {
    std::shared_ptr<const ListenerSecurity> security;
    security::ConfigMap settings;  // the listener's own view (prefixes resolved)
    std::vector<FileStamp> files;
  };

  // Whether one of `named` is a security key listener `i` reads (bare, or with its prefix).
  bool names_listener(size_t i, const std::vector<std::string>& named) const;
  security::ConfigMap settings_with(const std::map<std::string, std::string>& broker_values) const;
  static std::vector<FileStamp> stamps(const security::ConfigMap& listener_settings);
  // Entry `i` rebuilt from `settings` (all of them), if its inputs moved: nullopt
  // when nothing changed, an error message when it does not build or is refused.
  storage::Result<std::optional<Entry>> rebuilt(size_t i, const security::ConfigMap& settings) const;

  const BrokerConfig& config_;
  const DynamicBrokerConfig* dynamic_;
  mutable std::mutex mu_;
  std::vector<Entry> entries_;  // GUARDED_BY(mu_), one per config_.listeners
};

}  // namespace rokka::broker
