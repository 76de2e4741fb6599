#include "broker/listener_security.h"

#include <charconv>
#include <cstdint>

#include "security/config_map.h"
#include "security/tls_context.h"

namespace rokka::broker {

storage::Result<std::shared_ptr<const ListenerSecurity>> build_listener_security(const Listener& listener,
                                                                                  const BrokerConfig& config) {
  auto fail = [&](const std::string& message) {
    return storage::Status::invalid_argument("listener " + listener.name + " (" + listener.security_protocol +
                                             "): " + message);
  };
  const security::ConfigMap settings = security::listener_config(config.security_settings, listener.name);
  auto out = std::make_shared<ListenerSecurity>();
  out->listener_name = listener.name;
  out->protocol = listener.security_protocol;
  const bool tls = out->protocol == "SSL" || out->protocol == "SASL_SSL";
  const bool sasl = out->protocol == "SASL_PLAINTEXT" || out->protocol == "SASL_SSL";
  if (tls) {
    auto ctx = security::build_tls_server_context(settings);
    if (!ctx.ok()) return fail(ctx.error().message());
    out->tls = std::move(ctx).value();
    auto rules = security::SslPrincipalMapper::parse(
        security::config_value(settings, "ssl.principal.mapping.rules").value_or("DEFAULT"));
    if (!rules.ok()) return fail("ssl.principal.mapping.rules: " + rules.error().message());
    out->principal_mapper = std::move(rules).value();
  }
  if (sasl) {
    auto l = security::SaslListener::from_config(settings);
    if (!l.ok()) return fail(l.error().message());
    out->sasl.emplace(std::move(l).value());
    if (auto v = security::config_value(settings, "sasl.server.max.receive.size")) {
      int64_t n = 0;
      const std::string_view t = security::trim_blanks(*v);
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (t.empty() || ec != std::errc() || end != t.data() + t.size() || n < 1 || n > INT32_MAX)
        return fail("sasl.server.max.receive.size: expected a positive integer, got '" + std::string(*v) + "'");
      out->sasl_max_receive_bytes = static_cast<int32_t>(n);
    }
  }
  return std::shared_ptr<const ListenerSecurity>(std::move(out));
}

}  // namespace rokka::broker
