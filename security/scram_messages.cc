#include "security/scram_messages.h"

#include <charconv>
#include <vector>

#include "security/base64.h"
#include "security/config_map.h"

namespace rokka::security {
namespace {

constexpr size_t kMaxDecodedField = 1024;  // salts, proofs, signatures, channel bindings

bool is_value(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x01 && u <= 0x7f && c != ',';
}
bool is_printable(char c) { return c >= 0x21 && c <= 0x7e && c != ','; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!pred(c)) return false;
  return true;
}

// "<name>=<rest>": the rest, or nullopt.
std::optional<std::string_view> attribute(std::string_view field, std::string_view name) {
  if (field.size() < name.size() + 1 || !field.starts_with(name) || field[name.size()] != '=') return std::nullopt;
  return field.substr(name.size() + 1);
}

bool valid_sasl_name(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '=') {
      if (s.substr(i, 3) != "=2C" && s.substr(i, 3) != "=3D") return false;
      i += 2;
    } else if (!is_value(s[i])) {
      return false;
    }
  }
  return true;
}

// Fields [from, end) as extensions: <letters>=<value>.
Status parse_extensions(const std::vector<std::string_view>& fields, size_t from, ScramExtensions& out) {
  for (size_t i = from; i < fields.size(); ++i) {
    const size_t eq = fields[i].find('=');
    if (eq == std::string_view::npos || !all_of(fields[i].substr(0, eq), is_alpha) ||
        !all_of(fields[i].substr(eq + 1), is_value))
      return Error("invalid extension '" + std::string(fields[i]) + "'");
    out[std::string(fields[i].substr(0, eq))] = std::string(fields[i].substr(eq + 1));
  }
  return {};
}

Error invalid(std::string_view which, std::string_view why) {
  return Error("Invalid SCRAM " + std::string(which) + " message format: " + std::string(why));
}

Status check_size(std::string_view message, std::string_view which) {
  if (message.size() > kMaxScramMessageBytes)
    return invalid(which, std::to_string(message.size()) + " bytes, at most " + std::to_string(kMaxScramMessageBytes));
  return {};
}

}  // namespace

std::string scram_sasl_name(std::string_view username) {
  std::string out;
  for (const char c : username) {
    if (c == '=') out += "=3D";
    else if (c == ',') out += "=2C";
    else out.push_back(c);
  }
  return out;
}

Result<std::string> scram_username(std::string_view sasl_name) {
  if (!valid_sasl_name(sasl_name)) return Error("Invalid username: " + std::string(sasl_name));
  std::string out;
  for (size_t i = 0; i < sasl_name.size(); ++i) {
    if (sasl_name[i] == '=') {
      out.push_back(sasl_name.substr(i, 3) == "=2C" ? ',' : '=');
      i += 2;
    } else {
      out.push_back(sasl_name[i]);
    }
  }
  return out;
}

Result<ClientFirstMessage> ClientFirstMessage::parse(std::string_view message) {
  constexpr std::string_view kWhich = "client first";
  if (Status s = check_size(message, kWhich); !s.ok()) return Error(s.message());
  if (!message.starts_with("n,")) return invalid(kWhich, "the gs2 header must start with 'n,'");
  const size_t header_end = message.find(',', 2);
  if (header_end == std::string_view::npos) return invalid(kWhich, "no gs2 header");
  ClientFirstMessage m;
  const std::string_view authz = message.substr(2, header_end - 2);
  if (!authz.empty()) {
    const auto name = attribute(authz, "a");
    if (!name || !valid_sasl_name(*name)) return invalid(kWhich, "bad authzid");
    m.authzid = scram_username(*name).value();
  }
  m.gs2_header = std::string(message.substr(0, header_end + 1));
  m.bare = std::string(message.substr(header_end + 1));
  const auto fields = split_all(m.bare, ',');
  size_t i = 0;
  if (i < fields.size() && fields[i].starts_with("m=")) {
    if (!all_of(fields[i].substr(2), is_value)) return invalid(kWhich, "bad reserved attribute");
    ++i;
  }
  const auto name = i < fields.size() ? attribute(fields[i++], "n") : std::nullopt;
  if (!name || !valid_sasl_name(*name)) return invalid(kWhich, "bad or missing n=<username>");
  m.username = scram_username(*name).value();
  const auto nonce = i < fields.size() ? attribute(fields[i++], "r") : std::nullopt;
  if (!nonce || !all_of(*nonce, is_printable)) return invalid(kWhich, "bad or missing r=<nonce>");
  m.nonce = std::string(*nonce);
  if (Status s = parse_extensions(fields, i, m.extensions); !s.ok()) return invalid(kWhich, s.message());
  return m;
}

std::string ClientFirstMessage::format(std::string_view username, std::string_view nonce,
                                       const ScramExtensions& extensions) {
  std::string out = "n,,n=" + scram_sasl_name(username) + ",r=" + std::string(nonce);
  for (const auto& [k, v] : extensions) out += "," + k + "=" + v;
  return out;
}

Result<ServerFirstMessage> ServerFirstMessage::parse(std::string_view message) {
  constexpr std::string_view kWhich = "server first";
  if (Status s = check_size(message, kWhich); !s.ok()) return Error(s.message());
  const auto fields = split_all(message, ',');
  size_t i = 0;
  if (i < fields.size() && fields[i].starts_with("m=")) {
    if (!all_of(fields[i].substr(2), is_value)) return invalid(kWhich, "bad reserved attribute");
    ++i;
  }
  ServerFirstMessage m;
  const auto nonce = i < fields.size() ? attribute(fields[i++], "r") : std::nullopt;
  if (!nonce || !all_of(*nonce, is_printable)) return invalid(kWhich, "bad or missing r=<nonce>");
  m.nonce = std::string(*nonce);
  const auto salt = i < fields.size() ? attribute(fields[i++], "s") : std::nullopt;
  auto decoded = salt ? base64_decode(*salt, kMaxDecodedField) : std::nullopt;
  if (!decoded) return invalid(kWhich, "bad or missing s=<salt>");
  m.salt = std::move(*decoded);
  const auto iterations = i < fields.size() ? attribute(fields[i++], "i") : std::nullopt;
  if (!iterations || iterations->empty()) return invalid(kWhich, "missing i=<iterations>");
  const auto [end, ec] = std::from_chars(iterations->data(), iterations->data() + iterations->size(), m.iterations);
  if (ec != std::errc() || end != iterations->data() + iterations->size() || (*iterations)[0] == '-' ||
      (*iterations)[0] == '+')
    return invalid(kWhich, "invalid iterations");
  if (m.iterations <= 0) return invalid(kWhich, "invalid iterations " + std::to_string(m.iterations));
  ScramExtensions ignored;
  if (Status s = parse_extensions(fields, i, ignored); !s.ok()) return invalid(kWhich, s.message());
  return m;
}

std::string ServerFirstMessage::format(std::string_view nonce, std::string_view salt, int32_t iterations) {
  return "r=" + std::string(nonce) + ",s=" + base64_encode(salt) + ",i=" + std::to_string(iterations);
}

Result<ClientFinalMessage> ClientFinalMessage::parse(std::string_view message) {
  constexpr std::string_view kWhich = "client final";
  if (Status s = check_size(message, kWhich); !s.ok()) return Error(s.message());
  const size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return invalid(kWhich, "no p=<proof>");
  ClientFinalMessage m;
  auto proof = base64_decode(message.substr(proof_at + 3), kMaxDecodedField);
  if (!proof) return invalid(kWhich, "bad p=<proof>");
  m.proof = std::move(*proof);
  m.without_proof = std::string(message.substr(0, proof_at));
  const auto fields = split_all(m.without_proof, ',');
  const auto binding = attribute(fields[0], "c");
  auto decoded = binding ? base64_decode(*binding, kMaxDecodedField) : std::nullopt;
  if (!decoded) return invalid(kWhich, "bad or missing c=<channel binding>");
  m.channel_binding = std::move(*decoded);
  const auto nonce = fields.size() > 1 ? attribute(fields[1], "r") : std::nullopt;
  if (!nonce || !all_of(*nonce, is_printable)) return invalid(kWhich, "bad or missing r=<nonce>");
  m.nonce = std::string(*nonce);
  if (Status s = parse_extensions(fields, 2, m.extensions); !s.ok()) return invalid(kWhich, s.message());
  return m;
}

std::string ClientFinalMessage::format_without_proof(std::string_view channel_binding, std::string_view nonce) {
  return "c=" + base64_encode(channel_binding) + ",r=" + std::string(nonce);
}

std::string ClientFinalMessage::format(std::string_view without_proof, std::string_view proof) {
  return std::string(without_proof) + ",p=" + base64_encode(proof);
}

Result<ServerFinalMessage> ServerFinalMessage::parse(std::string_view message) {
  constexpr std::string_view kWhich = "server final";
  if (Status s = check_size(message, kWhich); !s.ok()) return Error(s.message());
  ServerFinalMessage m;
  if (const auto error = attribute(message, "e")) {
    for (const char c : *error)
      if (c == '=' || !is_value(c)) return invalid(kWhich, "bad e=<error>");
    if (error->empty()) return invalid(kWhich, "empty e=<error>");
    m.error = std::string(*error);
    return m;
  }
  const auto fields = split_all(message, ',');
  const auto signature = attribute(fields[0], "v");
  auto decoded = signature ? base64_decode(*signature, kMaxDecodedField) : std::nullopt;
  if (!decoded) return invalid(kWhich, "bad or missing v=<signature>");
  m.signature = std::move(*decoded);
  ScramExtensions ignored;
  if (Status s = parse_extensions(fields, 1, ignored); !s.ok()) return invalid(kWhich, s.message());
  return m;
}

std::string ServerFinalMessage::format_signature(std::string_view signature) { return "v=" + base64_encode(signature); }
std::string ServerFinalMessage::format_error(std::string_view error) { return "e=" + std::string(error); }

std::string scram_auth_message(std::string_view client_first_bare, std::string_view server_first,
                               std::string_view client_final_without_proof) {
  std::string out;
  out.reserve(client_first_bare.size() + server_first.size() + client_final_without_proof.size() + 2);
  out.append(client_first_bare).append(",").append(server_first).append(",").append(client_final_without_proof);
  return out;
}

}  // namespace rokka::security
