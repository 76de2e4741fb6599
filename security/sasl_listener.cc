#include "security/sasl_listener.h"

#include <algorithm>
#include <charconv>

namespace rokka::security {
namespace {

constexpr std::string_view kSupported[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"};

}  // namespace

Result<SaslListener> SaslListener::from_config(const ConfigMap& c) {
  SaslListener l;
  const auto mechanisms = config_value(c, "sasl.enabled.mechanisms");
  if (!mechanisms || config_list(*mechanisms).empty())
    return Error("sasl.enabled.mechanisms: not set (Kafka's default, GSSAPI, is not supported); name PLAIN, "
                 "SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER");
  for (std::string& m : config_list(*mechanisms)) {
    if (std::find(std::begin(kSupported), std::end(kSupported), m) == std::end(kSupported))
      return Error("sasl.enabled.mechanisms: '" + m + "' is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)");
    if (!l.enabled(m)) l.enabled_.push_back(std::move(m));
  }
  for (const std::string& m : l.enabled_) {
    const std::string jaas_key = ascii_lower(m) + ".sasl.jaas.config";
    const auto jaas_text = config_value(c, jaas_key);
    std::optional<JaasModule> jaas;
    if (jaas_text) {
      auto parsed = parse_server_jaas_config(*jaas_text);
      if (!parsed.ok()) return Error(jaas_key + ": " + parsed.error().message());
      jaas = std::move(parsed).value();
    }
    if (m == kPlainMechanism) {
      if (!jaas) return Error(jaas_key + ": PLAIN needs its users (" + std::string(kPlainLoginModule) + " required user_<name>=\"<password>\";)");
      auto users = PlainUsers::from_jaas(*jaas);
      if (!users.ok()) return Error(jaas_key + ": " + users.error().message());
      l.plain_users_ = std::make_shared<const PlainUsers>(std::move(users).value());
    } else if (m == kOAuthBearerMechanism) {
      auto validator = oauth_bearer_validator_from_config(c, jaas.value_or(JaasModule{}));
      if (!validator.ok()) return validator.error();
      l.oauth_validator_ = std::move(validator).value();
    }
    int64_t reauth = 0;
    if (const auto v = mechanism_value(c, m, "connections.max.reauth.ms")) {
      const std::string_view t = trim_blanks(*v);
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), reauth);
      if (t.empty() || ec != std::errc() || end != t.data() + t.size())
        return Error("connections.max.reauth.ms: not a number: '" + std::string(*v) + "'");
    }
    l.max_reauth_ms_[m] = reauth;
  }
  return l;
}

bool SaslListener::enabled(std::string_view mechanism) const {
  return std::find(enabled_.begin(), enabled_.end(), mechanism) != enabled_.end();
}

int64_t SaslListener::max_reauth_ms(std::string_view mechanism) const {
  const auto it = max_reauth_ms_.find(mechanism);
  return it == max_reauth_ms_.end() ? 0 : it->second;
}

std::unique_ptr<SaslServer> SaslListener::create(std::string_view mechanism, const ScramCredentialLookup& scram) const {
  if (!enabled(mechanism)) return nullptr;
  if (mechanism == kPlainMechanism) return std::make_unique<PlainServer>(plain_users_);
  if (mechanism == kOAuthBearerMechanism) return std::make_unique<OAuthBearerServer>(oauth_validator_);
  return std::make_unique<ScramServer>(*scram_mechanism_from_name(mechanism), scram);
}

int64_t session_lifetime_ms(std::optional<int64_t> credential_expiry_ms, int64_t max_reauth_ms, int64_t now_ms) {
  const bool max_set = max_reauth_ms > 0;
  if (!credential_expiry_ms && !max_set) return 0;
  int64_t lifetime = 0;
  if (!credential_expiry_ms) lifetime = max_reauth_ms;
  else if (!max_set) lifetime = *credential_expiry_ms - now_ms;
  else lifetime = std::min(*credential_expiry_ms - now_ms, max_reauth_ms);
  return std::max<int64_t>(0, lifetime);
}

std::optional<std::string> reauthentication_principal_error(const KafkaPrincipal& before, const KafkaPrincipal& after) {
  if (before == after) return std::nullopt;
  return "Cannot change principals during re-authentication from " + before.type + "." + before.name + ": " +
         after.type + "." + after.name;
}

std::optional<std::string> reauthentication_mechanism_error(std::string_view previous, std::string_view requested) {
  if (previous == requested) return std::nullopt;
  return "SASL mechanism '" + std::string(requested) + "' requested by client is not supported for re-authentication of mechanism '" +
         std::string(previous) + "'";
}

}  // namespace rokka::security
