// The four SCRAM messages (RFC 5802 section 7) with the grammar Kafka's
// ScramMessages accepts: ASCII only (bytes 0x01-0x7F), gs2 header "n" (no
// channel binding) with an optional a=<authzid>, an optional m= reserved
// attribute, extensions as ",<letters>=<value>", nonces of printable characters
// but ','. Each parser keeps the exact bytes the proofs are computed over
// (client-first-message-bare, client-final-message-without-proof).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "security/result.h"

namespace rokka::security {

// Longer SCRAM messages are refused unparsed; real ones are under 300 bytes.
inline constexpr size_t kMaxScramMessageBytes = 8 * 1024;

using ScramExtensions = std::map<std::string, std::string, std::less<>>;

// saslname: '=' as "=3D", ',' as "=2C".
std::string scram_sasl_name(std::string_view username);
Result<std::string> scram_username(std::string_view sasl_name);

struct ClientFirstMessage {
  std::string gs2_header;   // "n,," or "n,a=<authzid>,": what c= must carry back
  std::string authzid;      // decoded; empty if absent
  std::string username;     // decoded from n=
  std::string nonce;        // r=
  ScramExtensions extensions;
  std::string bare;         // everything after the gs2 header, as received

  static Result<ClientFirstMessage> parse(std::string_view message);
  // "n,,n=<saslname>,r=<nonce>[,k=v...]" (what a client sends).
  static std::string format(std::string_view username, std::string_view nonce, const ScramExtensions& extensions = {});
};

struct ServerFirstMessage {
  std::string nonce;  // client nonce + server nonce
  std::string salt;   // decoded
  int32_t iterations = 0;

  static Result<ServerFirstMessage> parse(std::string_view message);
  static std::string format(std::string_view nonce, std::string_view salt, int32_t iterations);
};

struct ClientFinalMessage {
  std::string channel_binding;  // decoded c=
  std::string nonce;
  ScramExtensions extensions;
  std::string proof;            // decoded p=
  std::string without_proof;    // everything before ",p=", as received

  static Result<ClientFinalMessage> parse(std::string_view message);
  static std::string format_without_proof(std::string_view channel_binding, std::string_view nonce);
  static std::string format(std::string_view without_proof, std::string_view proof);
};

struct ServerFinalMessage {
  std::optional<std::string> error;  // e=<server-error-value>
  std::string signature;             // decoded v=

  static Result<ServerFinalMessage> parse(std::string_view message);
  static std::string format_signature(std::string_view signature);
  static std::string format_error(std::string_view error);
};

// AuthMessage = client-first-message-bare "," server-first-message "," client-final-message-without-proof
std::string scram_auth_message(std::string_view client_first_bare, std::string_view server_first,
                               std::string_view client_final_without_proof);

}  // namespace rokka::security
