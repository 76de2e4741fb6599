// JAAS configuration values as Kafka parses them (sasl.jaas.config and the
// broker's listener.name.<listener>.<mechanism>.sasl.jaas.config):
//
//   <login module class> <control flag> (<option>=<value>)* ;   (one or more entries)
//
// Tokens follow java.io.StreamTokenizer as Kafka configures it: words of letters,
// digits, '.', '-', '_', '$' and bytes >= 0x80 (a word cannot start with a digit,
// '.' or '-': those start a number, which is no string); values in double or
// single quotes with Java escapes (\n \t \b \f \r \a \v, octal \0-\377, any other
// character after '\' stands for itself), a quoted string ending at its quote, a
// line break or the end; blanks are bytes 0-32; comments are // and /* */ (and a
// lone '/' comments out the rest of its line). An unquoted value must therefore
// be a word: `password=123` is refused, `password="123"` is fine. The last of
// duplicate options wins.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "security/result.h"

namespace rokka::security {

inline constexpr std::string_view kPlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule";
inline constexpr std::string_view kScramLoginModule = "org.apache.kafka.common.security.scram.ScramLoginModule";
inline constexpr std::string_view kOAuthBearerLoginModule =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

enum class JaasControlFlag { kRequired, kRequisite, kSufficient, kOptional };

struct JaasModule {
  std::string login_module;
  JaasControlFlag control_flag = JaasControlFlag::kRequired;
  std::map<std::string, std::string, std::less<>> options;

  // The option's value, or nullptr.
  const std::string* option(std::string_view key) const;
};

// Every entry of a JAAS value. Errors carry Kafka's messages ("JAAS config entry
// not terminated by semi-colon", "Invalid login module control flag 'x' in JAAS
// config", ...).
Result<std::vector<JaasModule>> parse_jaas_config(std::string_view text);

// A broker's per-mechanism JAAS value, as JaasContext.loadServerContext takes it:
// exactly one entry, not a disallowed login module (JndiLoginModule).
Result<JaasModule> parse_server_jaas_config(std::string_view text);

}  // namespace rokka::security
