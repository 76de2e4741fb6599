// libFuzzer target for the security room's SASL parsers. The first byte picks:
//   0: the rest through each SCRAM message parser and the credential record decoder;
//   1: a SCRAM-SHA-256 exchange: client-first up to the first '\n', client-final after it;
//   2: a JAAS value up to the first '\n' and a PLAIN message after it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "security/jaas_config.h"
#include "security/plain_server.h"
#include "security/scram_credential_record.h"
#include "security/scram_server.h"

namespace {

using namespace rokka::security;

std::pair<std::string_view, std::string_view> split(std::string_view s) {
  const size_t nl = s.find('\n');
  if (nl == std::string_view::npos) return {s, {}};
  return {s.substr(0, nl), s.substr(nl + 1)};
}

const ScramCredential& credential() {
  static const ScramCredential c = [] {
    const std::string salt = "salt-for-fuzzing";
    return scram_credential_from_salted_password(
               ScramMechanism::kSha256, salt,
               scram_salted_password(ScramHash::kSha256, "pencil", salt, kScramMinIterations), kScramMinIterations)
        .value();
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      (void)ClientFirstMessage::parse(rest);
      (void)ServerFirstMessage::parse(rest);
      (void)ClientFinalMessage::parse(rest);
      (void)ServerFinalMessage::parse(rest);
      (void)decode_scram_credential_record(rest);
      (void)scram_username(rest);
      break;
    case 1: {
      const auto [first, final] = split(rest);
      ScramServer server(
          ScramMechanism::kSha256,
          [](std::string_view user, ScramMechanism) -> std::optional<ScramCredential> {
            if (user == "user") return credential();
            return std::nullopt;
          },
          [] { return std::string("server-nonce"); });
      (void)server.evaluate(first);
      (void)server.evaluate(final);
      (void)server.evaluate(final);
      break;
    }
    default: {
      const auto [jaas, message] = split(rest);
      auto module = parse_server_jaas_config(jaas);
      if (!module.ok()) break;
      auto users = PlainUsers::from_jaas(*module);
      if (!users.ok()) break;
      PlainServer server(std::make_shared<const PlainUsers>(std::move(users).value()));
      (void)server.evaluate(message);
    }
  }
  return 0;
}
