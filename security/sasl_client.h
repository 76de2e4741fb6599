// The client side of the SASL exchanges the broker starts itself (its requests to other
// brokers on inter.broker.listener.name): PLAIN (RFC 4616: "\0user\0password") and
// SCRAM-SHA-256/512 (RFC 5802/7677 with gs2 header "n,,", as the Java client speaks them).
// No I/O: the caller carries the messages in SaslAuthenticate requests.
//
//   SaslClient c = *SaslClient::create("SCRAM-SHA-512", "admin", "secret");
//   send(c.initial());                 // client-first (PLAIN: the whole token)
//   auto next = c.respond(reply);      // client-final; then the server-final is checked
//   ... until c.complete()
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "security/result.h"
#include "security/scram_crypto.h"

namespace rokka::security {

class SaslClient {
 public:
  // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; anything else is an error naming the mechanism.
  // `nonce`: SCRAM's client nonce (random when empty; tests give their own).
  static Result<SaslClient> create(std::string_view mechanism, std::string username, std::string password,
                                   std::string nonce = {});

  const std::string& mechanism() const { return mechanism_; }
  // The first message of the exchange.
  std::string initial();
  // The message answering the server's `reply`, or nullopt when the exchange needs no more
  // (PLAIN after its token; SCRAM once the server's signature checked out). An error when
  // the reply is malformed, carries the server's e=, or its signature is not the server's.
  Result<std::optional<std::string>> respond(std::string_view reply);
  bool complete() const { return state_ == State::kComplete; }

 private:
  enum class State { kInitial, kServerFirst, kServerFinal, kComplete, kFailed };
  SaslClient() = default;

  std::string mechanism_;
  std::optional<ScramHash> hash_;  // none for PLAIN
  std::string username_, password_, nonce_;
  State state_ = State::kInitial;
  std::string client_first_bare_, server_key_, auth_message_;
};

}  // namespace rokka::security
