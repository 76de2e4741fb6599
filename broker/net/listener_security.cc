#include "broker/net/listener_security.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>

#include "broker/config/config_schema.h"
#include "broker/meta/dynamic_config.h"
#include "broker/logging.h"
#include "security/tls_context.h"

namespace rokka::broker {
namespace {

// The keys naming files a listener reads when it is built.
constexpr std::string_view kStoreFiles[] = {cfg::kSslKeystoreLocation.name, cfg::kSslTruststoreLocation.name};

// The settings a listener reads: its prefixes resolved, other listeners' keys left out.
security::ConfigMap own_view(const security::ConfigMap& settings, const std::string& listener_name) {
  security::ConfigMap out = security::listener_config(settings, listener_name);
  std::erase_if(out, [](const auto& kv) { return kv.first.starts_with("listener.name."); });
  return out;
}

}  // namespace

storage::Result<std::shared_ptr<const ListenerSecurity>> build_listener_security(const Listener& listener,
                                                                                  const security::ConfigMap& all) {
  auto fail = [&](const std::string& message) {
    return storage::Status::invalid_argument("listener " + listener.name + " (" + listener.security_protocol +
                                             "): " + message);
  };
  security::ConfigMap settings = security::listener_config(all, listener.name);
  if (listener.security_protocol == "SASL_SSL") {
    // KIP-684: a SASL_SSL listener asks for client certificates only when its own
    // listener.name.<l>.ssl.client.auth says so; the bare key is for SSL listeners.
    const std::string own =
        "listener.name." + security::ascii_lower(listener.name) + "." + std::string(cfg::kSslClientAuth.name);
    if (auto v = security::config_value(all, own)) {
      settings[std::string(cfg::kSslClientAuth.name)] = std::string(*v);
    } else {
      settings.erase(std::string(cfg::kSslClientAuth.name));
    }
  }
  auto out = std::make_shared<ListenerSecurity>();
  out->listener_name = listener.name;
  out->protocol = listener.security_protocol;
  const bool tls = out->protocol == "SSL" || out->protocol == "SASL_SSL";
  const bool sasl = out->protocol == "SASL_PLAINTEXT" || out->protocol == "SASL_SSL";
  if (tls) {
    auto ctx = security::build_tls_server_context(settings);
    if (!ctx.ok()) return fail(ctx.error().message());
    out->tls = std::move(ctx).value();
    const cfg::Row& key = cfg::kSslPrincipalMappingRules;
    auto rules =
        security::SslPrincipalMapper::parse(security::config_value(settings, key.name).value_or(key.default_value));
    if (!rules.ok()) return fail(std::string(key.name) + ": " + rules.error().message());
    out->principal_mapper = std::move(rules).value();
  }
  if (sasl) {
    auto l = security::SaslListener::from_config(settings);
    if (!l.ok()) return fail(l.error().message());
    out->sasl.emplace(std::move(l).value());
    const cfg::Row& key = cfg::kSaslServerMaxReceiveSize;
    const std::string_view v = security::config_value(settings, key.name).value_or(key.default_value);
    const std::optional<int64_t> n = parse_integer(security::trim_blanks(v));
    if (!n || *n < 1 || *n > INT32_MAX)
      return fail(std::string(key.name) + ": expected a positive integer, got '" + std::string(v) + "'");
    out->sasl_max_receive_bytes = static_cast<int32_t>(*n);
  }
  return std::shared_ptr<const ListenerSecurity>(std::move(out));
}

ListenerSecurityTable::ListenerSecurityTable(const BrokerConfig& config, const DynamicBrokerConfig* dynamic)
    : config_(config), dynamic_(dynamic) {}

security::ConfigMap ListenerSecurityTable::settings_with(const std::map<std::string, std::string>& broker_values) const {
  security::ConfigMap out = config_.security_settings;
  for (const auto& [name, value] : broker_values)
    if (is_security_key(name)) out[name] = value;
  return out;
}

std::vector<ListenerSecurityTable::FileStamp> ListenerSecurityTable::stamps(const security::ConfigMap& settings) {
  std::vector<FileStamp> out;
  for (const std::string_view key : kStoreFiles) {
    const auto path = security::config_value(settings, key);
    if (!path) continue;
    FileStamp f{std::string(*path)};
    struct stat st{};
    if (::stat(f.path.c_str(), &st) == 0) {
      f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
      f.size = static_cast<int64_t>(st.st_size);
    }
    out.push_back(std::move(f));
  }
  return out;
}

storage::Result<std::optional<ListenerSecurityTable::Entry>> ListenerSecurityTable::rebuilt(
    size_t i, const security::ConfigMap& settings) const {
  Entry old;
  {
    std::lock_guard lock(mu_);
    old = entries_[i];
  }
  const Listener& listener = config_.listeners[i];
  Entry next{nullptr, own_view(settings, listener.name), {}};
  next.files = stamps(next.settings);
  if (next.settings == old.settings && next.files == old.files) return std::optional<Entry>();
  auto security = build_listener_security(listener, settings);
  if (!security.ok()) return security.status();
  next.security = std::move(security).value();
  if (old.security && old.security->uses_tls() && next.security->uses_tls()) {
    const std::string refused = security::keystore_change_error(old.security->tls->native_handle(),
                                                                next.security->tls->native_handle(), next.settings);
    if (!refused.empty())
      return storage::Status::invalid_argument("listener " + listener.name + " (" + listener.security_protocol +
                                               "): " + refused);
  }
  return std::optional<Entry>(std::move(next));
}

storage::Status ListenerSecurityTable::build() {
  const security::ConfigMap settings =
      settings_with(dynamic_ ? dynamic_->values(DynamicScope::kBroker) : std::map<std::string, std::string>{});
  std::vector<Entry> entries;
  for (const Listener& listener : config_.listeners) {
    auto security = build_listener_security(listener, settings);
    if (!security.ok()) return security.status();
    Entry e{std::move(security).value(), own_view(settings, listener.name), {}};
    e.files = stamps(e.settings);
    entries.push_back(std::move(e));
  }
  std::lock_guard lock(mu_);
  entries_ = std::move(entries);
  return {};
}

std::shared_ptr<const ListenerSecurity> ListenerSecurityTable::current(size_t listener) const {
  std::lock_guard lock(mu_);
  return entries_.at(listener).security;
}

security::ConfigMap ListenerSecurityTable::settings(size_t listener) const {
  std::lock_guard lock(mu_);
  return listener < entries_.size() ? entries_[listener].settings : security::ConfigMap{};
}

bool ListenerSecurityTable::names_listener(size_t i, const std::vector<std::string>& named) const {
  const std::string prefix = "listener.name." + security::ascii_lower(config_.listeners[i].name) + ".";
  return std::any_of(named.begin(), named.end(), [&](const std::string& key) {
    return is_security_key(key) && (!key.starts_with("listener.name.") || key.starts_with(prefix));
  });
}

std::string ListenerSecurityTable::validate(const std::map<std::string, std::string>& broker_values,
                                            const std::vector<std::string>& named) const {
  const security::ConfigMap settings = settings_with(broker_values);
  for (size_t i = 0; i < config_.listeners.size(); ++i) {
    if (!names_listener(i, named)) continue;
    auto next = rebuilt(i, settings);
    if (!next.ok()) return next.status().message();
  }
  return {};
}

int ListenerSecurityTable::reload(const std::vector<std::string>& named) {
  const security::ConfigMap settings =
      settings_with(dynamic_ ? dynamic_->values(DynamicScope::kBroker) : std::map<std::string, std::string>{});
  int swapped = 0;
  for (size_t i = 0; i < config_.listeners.size(); ++i) {
    if (!names_listener(i, named)) continue;
    auto next = rebuilt(i, settings);
    if (!next.ok()) {
      broker_log().error("listener security not reloaded, the old one stays: {}", next.status().message());
      continue;
    }
    if (!*next) continue;
    {
      std::lock_guard lock(mu_);
      entries_[i] = std::move(**next);
    }
    ++swapped;
    broker_log().info("listener security reloaded: listener={} security.protocol={}", config_.listeners[i].name,
                      config_.listeners[i].security_protocol);
  }
  return swapped;
}

}  // namespace rokka::broker
