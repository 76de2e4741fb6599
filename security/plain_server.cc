#include "security/plain_server.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <array>
#include <vector>

namespace rokka::security {
namespace {

std::array<unsigned char, SHA256_DIGEST_LENGTH> sha256(std::string_view s) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> out;
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), out.data());
  return out;
}

}  // namespace

Result<PlainUsers> PlainUsers::from_jaas(const JaasModule& module) {
  if (module.login_module != kPlainLoginModule)
    return Error("PLAIN needs " + std::string(kPlainLoginModule) + " in its JAAS config, not " + module.login_module);
  PlainUsers users;
  for (const auto& [key, value] : module.options)
    if (key.starts_with("user_")) users.passwords_.emplace(key.substr(5), value);
  return users;
}

bool PlainUsers::authenticate(std::string_view user, std::string_view password) const {
  const auto it = passwords_.find(user);
  const auto expected = sha256(it == passwords_.end() ? std::string_view() : std::string_view(it->second));
  const auto given = sha256(password);
  const bool same = CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
  return it != passwords_.end() && same;
}

SaslStep PlainServer::evaluate(std::string_view message) {
  if (done_) return SaslStep::failed("PLAIN exchange already finished");
  done_ = true;
  if (message.size() > kMaxPlainMessageBytes)
    return SaslStep::rejected("Invalid SASL/PLAIN response: " + std::to_string(message.size()) +
                              " bytes, at most " + std::to_string(kMaxPlainMessageBytes));
  // [authzid] NUL authcid NUL passwd; like Kafka, count at most four tokens.
  std::vector<std::string_view> tokens;
  size_t start = 0;
  while (tokens.size() < 4) {
    const size_t nul = message.find('\0', start);
    if (nul == std::string_view::npos) {
      tokens.push_back(message.substr(start));
      break;
    }
    tokens.push_back(message.substr(start, nul - start));
    start = nul + 1;
  }
  if (tokens.size() != 3)
    return SaslStep::rejected("Invalid SASL/PLAIN response: expected 3 tokens, got " + std::to_string(tokens.size()));
  const std::string_view authzid = tokens[0], user = tokens[1], password = tokens[2];
  if (user.empty()) return SaslStep::rejected("Authentication failed: username not specified");
  if (password.empty()) return SaslStep::rejected("Authentication failed: password not specified");
  if (!users_->authenticate(user, password))
    return SaslStep::rejected("Authentication failed: Invalid username or password");
  if (!authzid.empty() && authzid != user)
    return SaslStep::rejected(
        "Authentication failed: Client requested an authorization id that is different from username");
  authorization_id_ = std::string(user);
  complete_ = true;
  return SaslStep::complete({});
}

}  // namespace rokka::security
