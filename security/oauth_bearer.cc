#include "security/oauth_bearer.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "security/base64.h"
#include "security/json.h"
#include "security/scram_messages.h"

namespace rokka::security {
namespace {

using Type = JsonValue::Type;

// Java's String.split on '.': trailing empty strings are dropped.
std::vector<std::string_view> java_split_dots(std::string_view s) {
  std::vector<std::string_view> parts = split_all(s, '.');
  while (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  if (parts.size() == 1 && parts[0].empty() && !s.empty()) parts.clear();
  return parts;
}

std::string java_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%f", v);
  return buf;
}

std::string java_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

bool blank(std::string_view s) { return trim_blanks(s).empty(); }

// A NumericDate (seconds since the epoch) we can turn into milliseconds without
// overflow: +-1e14 s is three million years either way.
bool sane_seconds(double v) { return std::isfinite(v) && std::abs(v) <= 1e14; }

// The Java class Kafka's unsecured JWS holds a claim as: numbers stay numbers,
// arrays become lists of text, everything else becomes text (Jackson's asText).
std::string java_type(const JsonValue& v) {
  if (v.type == Type::kNumber) {
    if (!v.integral) return "Double";
    return std::abs(v.number) <= 2147483647.0 ? "Integer" : "Long";
  }
  return v.type == Type::kArray ? "ArrayList" : "String";
}

std::string as_text(const JsonValue& v) {
  switch (v.type) {
    case Type::kString:
    case Type::kNumber: return v.string;
    case Type::kBool: return v.boolean ? "true" : "false";
    case Type::kNull: return "null";
    case Type::kArray:
    case Type::kObject: return "";
  }
  return "";
}

OAuthBearerRejection reject(std::string detail) { return {"invalid_token", std::nullopt, std::move(detail)}; }

Result<JsonValue> decode_segment(std::string_view segment) {
  auto bytes = base64url_decode(segment, kMaxOAuthBearerMessageBytes);
  if (!bytes) return Error("malformed Base64 URL encoded value");
  auto json = parse_json_object(*bytes);
  if (!json.ok()) return Error("malformed JSON");
  return json;
}

bool valid_scope_item(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!(c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e))) return false;
  return true;
}

Result<int64_t> parse_int(std::string_view key, std::string_view text) {
  const std::string_view t = trim_blanks(text);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v < INT32_MIN || v > INT32_MAX)
    return Error(std::string(key) + ": not an integer: '" + std::string(text) + "'");
  return v;
}

}  // namespace

// ---- client response ----------------------------------------------------

Result<OAuthBearerClientResponse> OAuthBearerClientResponse::parse(std::string_view message) {
  const Error invalid("Invalid OAUTHBEARER client first message");
  if (message.size() > kMaxOAuthBearerMessageBytes) return invalid;
  if (!message.starts_with("n,")) return invalid;
  const size_t comma = message.find(',', 2);
  if (comma == std::string_view::npos) return invalid;
  OAuthBearerClientResponse r;
  const std::string_view authz = message.substr(2, comma - 2);
  if (!authz.empty()) {
    if (!authz.starts_with("a=")) return invalid;
    auto name = scram_username(authz.substr(2));
    if (!name.ok()) return invalid;
    r.authzid = std::move(name).value();
  }
  std::string_view rest = message.substr(comma + 1);
  if (rest.size() < 2 || rest.front() != '\x01' || rest.back() != '\x01') return invalid;
  rest = rest.substr(1, rest.size() - 2);  // (key=value %x01)*
  std::optional<std::string> auth;
  while (!rest.empty()) {
    const size_t end = rest.find('\x01');
    if (end == std::string_view::npos) return invalid;
    const std::string_view pair = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == pair.size()) return invalid;
    for (const char c : pair.substr(0, eq))
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return invalid;
    for (const char c : pair.substr(eq + 1))
      if (!((c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t' || c == '\r' || c == '\n')) return invalid;
    const std::string key(pair.substr(0, eq)), value(pair.substr(eq + 1));
    if (key == "auth") auth = value;
    else r.extensions[key] = value;
  }
  if (!auth) return Error("Invalid OAUTHBEARER client first message: 'auth' not specified");
  // <scheme>[ ]+<token>, the token of [-_~+/.a-zA-Z0-9]+ then '='*.
  const Error bad_auth("Invalid OAUTHBEARER client first message: invalid 'auth' format");
  const size_t space = auth->find(' ');
  if (space == std::string::npos || space == 0) return bad_auth;
  const std::string_view scheme = std::string_view(*auth).substr(0, space);
  for (const char c : scheme)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return bad_auth;
  std::string_view token = std::string_view(*auth).substr(space);
  while (token.starts_with(' ')) token.remove_prefix(1);
  std::string_view body = token;
  while (body.ends_with('=')) body.remove_suffix(1);
  if (body.empty()) return bad_auth;
  for (const char c : body)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_~+/.").find(c) != std::string_view::npos))
      return bad_auth;
  if (ascii_lower(scheme) != "bearer")
    return Error("Invalid scheme in OAUTHBEARER client first message: " + std::string(scheme));
  r.token = std::string(token);
  return r;
}

std::string OAuthBearerClientResponse::format(std::string_view token, std::string_view authzid) {
  return "n," + (authzid.empty() ? std::string() : "a=" + scram_sasl_name(authzid)) + ",\x01" "auth=Bearer " +
         std::string(token) + "\x01\x01";
}

std::string OAuthBearerRejection::json() const {
  std::string out = "{\"status\":\"" + status + "\"";
  if (scope) out += ", \"scope\":\"" + *scope + "\"";
  return out + "}";
}

// ---- unsecured ------------------------------------------------------------

Result<UnsecuredValidatorOptions> UnsecuredValidatorOptions::from_jaas(const JaasModule& module) {
  UnsecuredValidatorOptions o;
  if (const std::string* v = module.option("unsecuredValidatorPrincipalClaimName"); v && !blank(*v))
    o.principal_claim = std::string(trim_blanks(*v));
  if (const std::string* v = module.option("unsecuredValidatorScopeClaimName"); v && !blank(*v))
    o.scope_claim = std::string(trim_blanks(*v));
  if (const std::string* v = module.option("unsecuredValidatorRequiredScope"); v && !blank(*v)) {
    std::string_view rest = trim_blanks(*v);
    while (!rest.empty()) {
      const size_t space = rest.find(' ');
      const std::string_view item = rest.substr(0, space);
      if (!item.empty()) {
        if (!valid_scope_item(item)) return Error("Invalid scope value: " + std::string(item));
        o.required_scope.emplace_back(item);
      }
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  }
  if (const std::string* v = module.option("unsecuredValidatorAllowableClockSkewMs"); v && !blank(*v)) {
    auto skew = parse_int("unsecuredValidatorAllowableClockSkewMs", *v);
    if (!skew.ok()) return skew.error();
    if (*skew < 0) return Error("Allowable clock skew millis must not be negative: " + *v);
    o.allowable_clock_skew_ms = *skew;
  }
  return o;
}

OAuthBearerValidation UnsecuredOAuthBearerValidator::validate(std::string_view token, int64_t now_ms) const {
  if (token.find("..") != std::string_view::npos) return reject("Malformed compact serialization contains '..'");
  std::vector<std::string_view> splits = java_split_dots(token);
  if (token.ends_with('.')) splits.push_back({});
  if (splits.size() != 3)
    return reject("Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values");
  auto header = decode_segment(splits[0]);
  if (!header.ok()) return reject(header.error().message());
  auto claims = decode_segment(splits[1]);
  if (!claims.ok()) return reject(claims.error().message());
  const JsonValue* alg = header->member("alg");
  if (alg == nullptr) return reject("JWS header must have an Algorithm value");
  if (as_text(*alg) != "none") return reject("Unsecured JWS must have 'none' for an algorithm");
  if (!splits[2].empty()) return reject("Unsecured JWS must not contain a digital signature");

  OAuthBearerToken t;
  t.value = std::string(token);
  if (const JsonValue* scope = claims->member(options_.scope_claim)) {
    if (scope->type == Type::kArray) {
      for (const JsonValue& item : scope->items)
        if (!blank(as_text(item))) t.scope.emplace(trim_blanks(as_text(item)));
    } else if (scope->type == Type::kNumber) {
      return reject("The '" + options_.scope_claim + "' claim was not of type List: " + java_type(*scope));
    } else if (!blank(as_text(*scope))) {
      t.scope.emplace(trim_blanks(as_text(*scope)));
    }
  }
  const JsonValue* exp = claims->member("exp");
  if (exp == nullptr) return reject("No expiration time in JWT");
  if (exp->type != Type::kNumber) return reject("The 'exp' claim was not of type Number: " + java_type(*exp));
  if (!sane_seconds(exp->number)) return reject("The 'exp' claim is out of range: " + exp->string);
  t.lifetime_ms = std::llround(exp->number * 1000);
  const JsonValue* principal = claims->member(options_.principal_claim);
  if (principal != nullptr && (principal->type == Type::kNumber || principal->type == Type::kArray))
    return reject("The '" + options_.principal_claim + "' claim was not of type String: " + java_type(*principal));
  if (principal == nullptr || blank(as_text(*principal)))
    return reject("No principal name in JWT claim: " + options_.principal_claim);
  t.principal = as_text(*principal);
  const JsonValue* iat = claims->member("iat");
  if (iat != nullptr && iat->type != Type::kNumber)
    return reject("The 'iat' claim was not of type Number: " + java_type(*iat));
  if (iat != nullptr && !sane_seconds(iat->number)) return reject("The 'iat' claim is out of range: " + iat->string);
  if (iat != nullptr) t.start_time_ms = std::llround(iat->number * 1000);

  const int64_t skew = options_.allowable_clock_skew_ms;
  if (iat != nullptr && 1000 * iat->number > static_cast<double>(now_ms + skew))
    return reject("The Issued At value (" + java_double(iat->number) + " seconds) was after the indicated time (" +
                  std::to_string(now_ms) + " ms) plus allowable clock skew (" + std::to_string(skew) + " ms)");
  if (static_cast<double>(now_ms - skew) >= 1000 * exp->number)
    return reject("The indicated time (" + std::to_string(now_ms) + " ms) minus allowable clock skew (" +
                  std::to_string(skew) + " ms) was on or after the Expiration Time value (" +
                  java_double(exp->number) + " seconds)");
  if (iat != nullptr && exp->number <= iat->number)
    return reject("The Expiration Time time (" + java_double(exp->number) +
                  " seconds) was not after the Issued At time (" + java_double(iat->number) + " seconds)");
  for (const std::string& required : options_.required_scope) {
    if (t.scope.count(required) == 0) {
      const std::vector<std::string> have(t.scope.begin(), t.scope.end());
      return OAuthBearerRejection{"insufficient_scope", java_list(options_.required_scope),
                                  "The provided scope (" + java_list(have) + ") was missing a required scope (" +
                                      required + ").  All required scope elements: " +
                                      java_list(options_.required_scope)};
    }
  }
  return t;
}

// ---- signed ----------------------------------------------------------------

OAuthBearerValidation SignedOAuthBearerValidator::validate(std::string_view raw, int64_t now_ms) const {
  const std::string_view token = trim_blanks(raw);
  if (token.empty()) return reject("Empty JWT provided; expected three sections (header, payload, and signature)");
  const std::vector<std::string_view> splits = java_split_dots(token);
  if (splits.size() != 3)
    return reject("Malformed JWT provided; expected three sections (header, payload, and signature), but " +
                  std::to_string(splits.size()) + " sections provided");
  constexpr const char* kNames[] = {"header", "payload", "signature"};
  for (int i = 0; i < 3; ++i)
    if (trim_blanks(splits[i]).empty())
      return reject(std::string("Malformed JWT provided; expected at least three sections (header, payload, and "
                                "signature), but ") + kNames[i] + " section missing");
  const auto fail = [](const std::string& why) { return reject("Could not validate the access token: " + why); };

  auto header = decode_segment(splits[0]);
  if (!header.ok()) return fail("header: " + header.error().message());
  const JsonValue* alg_name = header->member("alg");
  if (alg_name == nullptr || alg_name->type != Type::kString) return fail("no \"alg\" in the JWS header");
  const auto alg = jws_algorithm_from_name(alg_name->string);
  if (!alg) return fail("the JWS algorithm '" + alg_name->string + "' is not allowed");
  if (header->member("crit") != nullptr) return fail("the JWS header has \"crit\" extensions, none is understood");
  std::optional<std::string> kid;
  if (const JsonValue* k = header->member("kid")) {
    if (k->type != Type::kString) return fail("\"kid\" is not a string");
    kid = k->string;
  }
  const auto signature = base64url_decode(splits[2], 1024);
  if (!signature) return fail("malformed signature");
  std::string why;
  const std::string_view signing_input = token.substr(0, splits[0].size() + 1 + splits[1].size());
  if (!keys_.verify(*alg, kid, signing_input, *signature, why)) return fail(why);

  auto claims = decode_segment(splits[1]);
  if (!claims.ok()) return fail("payload: " + claims.error().message());
  const auto number = [&](std::string_view name) -> const JsonValue* {
    const JsonValue* v = claims->member(name);
    return v != nullptr && v->type == Type::kNumber && sane_seconds(v->number) ? v : nullptr;
  };
  const int64_t now_s = now_ms / 1000, skew = options_.clock_skew_seconds;
  for (const char* name : {"exp", "iat", "nbf"})
    if (claims->member(name) != nullptr && number(name) == nullptr)
      return fail(std::string("Could not extract the '") + name + "' claim from the access token");
  const JsonValue* exp = number("exp");
  if (exp == nullptr) return fail("No Expiration Time (exp) claim present.");
  const int64_t exp_s = static_cast<int64_t>(std::floor(exp->number));
  if (now_s - skew >= exp_s)
    return fail("The JWT is no longer valid - the evaluation time " + std::to_string(now_s) +
                " is on or after the Expiration Time (exp=" + std::to_string(exp_s) + ") claim value (even when providing " +
                std::to_string(skew) + " seconds of leeway to account for clock skew).");
  if (const JsonValue* nbf = number("nbf"); nbf != nullptr && now_s + skew < static_cast<int64_t>(nbf->number))
    return fail("The JWT is not yet valid as the evaluation time " + std::to_string(now_s) +
                " is before the Not Before (nbf=" + nbf->string + ") claim time.");
  const JsonValue* iat = number("iat");
  if (iat == nullptr) return fail("No Issued At (iat) claim present.");

  std::vector<std::string> audience;
  if (const JsonValue* aud = claims->member("aud")) {
    if (aud->type == Type::kString) audience.push_back(aud->string);
    for (const JsonValue& a : aud->items) {
      if (a.type != Type::kString) return fail("Could not extract the 'aud' claim from the access token");
      audience.push_back(a.string);
    }
    if (aud->type != Type::kString && aud->type != Type::kArray)
      return fail("Could not extract the 'aud' claim from the access token");
    bool accepted = false;
    for (const std::string& a : audience)
      for (const std::string& e : options_.expected_audience) accepted |= a == e;
    if (!accepted)
      return fail("Audience (aud) claim " + java_list(audience) +
                  (options_.expected_audience.empty()
                       ? " present in the JWT but no expected audience value(s) were provided"
                       : " doesn't contain an acceptable identifier. Expected one of " +
                             java_list(options_.expected_audience)));
  } else if (!options_.expected_audience.empty()) {
    return fail("No Audience (aud) claim present.");
  }
  if (options_.expected_issuer) {
    const JsonValue* iss = claims->member("iss");
    if (iss == nullptr || iss->type != Type::kString)
      return fail("No Issuer (iss) claim present but was expecting " + *options_.expected_issuer);
    if (iss->string != *options_.expected_issuer)
      return fail("Issuer (iss) claim value (" + iss->string + ") doesn't match expected value of " +
                  *options_.expected_issuer);
  }

  OAuthBearerToken t;
  t.value = std::string(token);
  if (const JsonValue* scope = claims->member(options_.scope_claim)) {
    std::vector<const JsonValue*> items;
    if (scope->type == Type::kString) items.push_back(scope);
    if (scope->type == Type::kArray)
      for (const JsonValue& item : scope->items) items.push_back(&item);
    for (const JsonValue* item : items) {
      if (item->type != Type::kString) return fail(options_.scope_claim + " value must be a string");
      if (blank(item->string)) return fail(options_.scope_claim + " value must not be empty or only whitespace");
      if (!t.scope.emplace(trim_blanks(item->string)).second)
        return fail(options_.scope_claim + " value must not contain duplicates - " +
                    std::string(trim_blanks(item->string)) + " already present");
    }
  }
  if (exp_s < 0) return fail("exp value must be non-negative; value given was \"" + std::to_string(exp_s * 1000) + "\"");
  t.lifetime_ms = exp_s * 1000;
  const JsonValue* sub = claims->member(options_.sub_claim);
  if (sub != nullptr && sub->type != Type::kString)
    return fail("Could not extract the '" + options_.sub_claim + "' claim from the access token");
  if (sub == nullptr) return fail(options_.sub_claim + " value must be non-null");
  if (blank(sub->string)) return fail(options_.sub_claim + " value must be non-empty and not only whitespace");
  t.principal = std::string(trim_blanks(sub->string));
  const int64_t iat_ms = static_cast<int64_t>(std::floor(iat->number)) * 1000;
  if (iat_ms < 0) return fail("iat value must be null or non-negative; value given was \"" + std::to_string(iat_ms) + "\"");
  t.start_time_ms = iat_ms;
  return t;
}

// ---- config ----------------------------------------------------------------

Result<std::shared_ptr<const OAuthBearerValidator>> oauth_bearer_validator_from_config(const ConfigMap& config,
                                                                                       const JaasModule& jaas) {
  const auto get = [&](std::string_view key) { return mechanism_value(config, kOAuthBearerMechanism, key); };
  constexpr std::string_view kClassKey = "sasl.server.callback.handler.class";
  constexpr std::string_view kJwksKey = "sasl.oauthbearer.jwks.endpoint.url";
  const auto handler = get(kClassKey);
  const auto jwks_url = get(kJwksKey);
  if (handler && trim_blanks(*handler) == kOAuthBearerUnsecuredValidatorClass) {
    auto options = UnsecuredValidatorOptions::from_jaas(jaas);
    if (!options.ok()) return Error("oauthbearer.sasl.jaas.config: " + options.error().message());
    return std::shared_ptr<const OAuthBearerValidator>(
        std::make_shared<UnsecuredOAuthBearerValidator>(std::move(options).value()));
  }
  if (handler && trim_blanks(*handler) != kOAuthBearerSignedValidatorClass &&
      trim_blanks(*handler) != "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerValidatorCallbackHandler")
    return Error(std::string(kClassKey) + ": '" + std::string(*handler) + "' is not a validator Rokka has (" +
                 std::string(kOAuthBearerSignedValidatorClass) + " or " +
                 std::string(kOAuthBearerUnsecuredValidatorClass) + ")");
  if (!jwks_url || blank(*jwks_url))
    return Error(std::string(kJwksKey) + ": OAUTHBEARER needs a file: URL of the JWKS that signs the tokens (or " +
                 std::string(kClassKey) + "=" + std::string(kOAuthBearerUnsecuredValidatorClass) +
                 " for unsecured development tokens)");
  auto keys = JsonWebKeySet::load_file_url(trim_blanks(*jwks_url));
  if (!keys.ok()) return Error(std::string(kJwksKey) + ": " + keys.error().message());
  SignedValidatorOptions o;
  if (const auto v = get("sasl.oauthbearer.expected.audience")) o.expected_audience = config_list(*v);
  if (const auto v = get("sasl.oauthbearer.expected.issuer"); v && !blank(*v)) o.expected_issuer = std::string(*v);
  if (const auto v = get("sasl.oauthbearer.clock.skew.seconds")) {
    auto skew = parse_int("sasl.oauthbearer.clock.skew.seconds", *v);
    if (!skew.ok()) return skew.error();
    if (*skew < 0) return Error("sasl.oauthbearer.clock.skew.seconds: must not be negative");
    o.clock_skew_seconds = *skew;
  }
  for (auto [key, field] : {std::pair{"sasl.oauthbearer.scope.claim.name", &o.scope_claim},
                            std::pair{"sasl.oauthbearer.sub.claim.name", &o.sub_claim}}) {
    if (const auto v = get(key)) {
      if (blank(*v)) return Error(std::string(key) + ": value must be non-empty and not only whitespace");
      *field = std::string(trim_blanks(*v));
    }
  }
  return std::shared_ptr<const OAuthBearerValidator>(
      std::make_shared<SignedOAuthBearerValidator>(std::move(keys).value(), std::move(o)));
}

// ---- server ----------------------------------------------------------------

int64_t OAuthBearerServer::system_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SaslStep OAuthBearerServer::evaluate(std::string_view message) {
  if (failed_ || token_) return SaslStep::failed("OAUTHBEARER exchange already finished");
  if (message == "\x01" && pending_error_) {
    failed_ = true;
    SaslStep step = SaslStep::rejected(*pending_error_);
    step.detail = std::move(pending_detail_);  // the broker logs why, the client gets the JSON
    return step;
  }
  pending_error_.reset();
  pending_detail_.clear();
  auto response = OAuthBearerClientResponse::parse(message);
  if (!response.ok()) {
    failed_ = true;
    return SaslStep::failed(response.error().message());
  }
  OAuthBearerValidation validation = validator_->validate(response->token, now_());
  if (auto* rejection = std::get_if<OAuthBearerRejection>(&validation)) {
    pending_error_ = rejection->json();
    pending_detail_ = rejection->detail;
    SaslStep step = SaslStep::challenge(*pending_error_);
    step.detail = rejection->detail;
    return step;
  }
  OAuthBearerToken& token = std::get<OAuthBearerToken>(validation);
  if (!response->authzid.empty() && response->authzid != token.principal) {
    failed_ = true;
    return SaslStep::rejected("Authentication failed: Client requested an authorization id (" + response->authzid +
                              ") that is different from the token's principal name (" + token.principal + ")");
  }
  extensions_ = std::move(response->extensions);
  token_ = std::move(token);
  return SaslStep::complete({});
}

}  // namespace rokka::security
