// The server side of SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677) as
// Kafka's ScramSaslServer runs it: client-first -> server-first (salt,
// iterations, the client's nonce plus ours) -> client-final (proof) ->
// server-final "v=<ServerSignature>". Failures carry Kafka's texts; all but
// the authzid mismatch reach the client only as the generic SASL message.
// Stricter than Kafka where RFC 5802 says MUST: c= must repeat the gs2 header,
// the final nonce must end with the combined nonce (Kafka's endsWith: librdkafka
// 2.0 repeats its own nonce in front), and AuthMessage is built from
// the bytes as received.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "security/scram_crypto.h"
#include "security/scram_messages.h"
#include "security/sasl_server.h"

namespace rokka::security {

// The credential of (user, mechanism) at the moment of the lookup, or nullopt.
using ScramCredentialLookup = std::function<std::optional<ScramCredential>(std::string_view user, ScramMechanism)>;
// The server's share of the nonce: printable ASCII without ','.
using ScramNonceSource = std::function<std::string()>;

// 24 characters of base64 from 18 RAND_bytes (144 bits).
std::string random_scram_nonce();

class ScramServer final : public SaslServer {
 public:
  ScramServer(ScramMechanism mechanism, ScramCredentialLookup lookup, ScramNonceSource nonce = random_scram_nonce);
  std::string_view mechanism() const override { return scram_mechanism_name(mechanism_); }
  SaslStep evaluate(std::string_view message) override;
  using SaslServer::evaluate;
  bool complete() const override { return state_ == State::kComplete; }
  const std::string& authorization_id() const override { return user_; }
  const ScramExtensions& extensions() const { return client_first_.extensions; }

 private:
  enum class State { kClientFirst, kClientFinal, kComplete, kFailed };
  SaslStep client_first(std::string_view message);
  SaslStep client_final(std::string_view message);

  ScramMechanism mechanism_;
  ScramCredentialLookup lookup_;
  ScramNonceSource nonce_source_;
  State state_ = State::kClientFirst;
  ClientFirstMessage client_first_;
  std::string server_first_;
  std::string nonce_;
  ScramCredential credential_;
  std::string user_;
};

}  // namespace rokka::security
