#include "security/scram_server.h"

#include <openssl/rand.h>

#include <cstdlib>

#include "security/base64.h"
#include "security/config_map.h"

namespace rokka::security {

std::string random_scram_nonce() {
  unsigned char bytes[18];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) std::abort();  // no randomness: nothing safe to do
  return base64_encode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

ScramServer::ScramServer(ScramMechanism mechanism, ScramCredentialLookup lookup, ScramNonceSource nonce)
    : mechanism_(mechanism), lookup_(std::move(lookup)), nonce_source_(std::move(nonce)) {}

SaslStep ScramServer::evaluate(std::string_view message) {
  SaslStep step;
  switch (state_) {
    case State::kClientFirst: step = client_first(message); break;
    case State::kClientFinal: step = client_final(message); break;
    case State::kComplete:
    case State::kFailed:
      return SaslStep::failed(std::string("Unexpected challenge in Sasl server state ") +
                              (state_ == State::kComplete ? "COMPLETE" : "FAILED"));
  }
  if (step.kind == SaslStep::Kind::kFailed) {
    state_ = State::kFailed;
    credential_ = {};
  }
  return step;
}

SaslStep ScramServer::client_first(std::string_view message) {
  auto first = ClientFirstMessage::parse(message);
  if (!first.ok()) return SaslStep::failed(first.error().message());
  client_first_ = std::move(first).value();
  const auto token = client_first_.extensions.find("tokenauth");
  if (token != client_first_.extensions.end() && ascii_lower(token->second) == "true")
    return SaslStep::failed("Token Authentication failed: Invalid tokenId : " + client_first_.username);
  const auto credential = lookup_(client_first_.username, mechanism_);
  if (!credential) return SaslStep::failed("Authentication failed: Invalid user credentials");
  if (!client_first_.authzid.empty() && client_first_.authzid != client_first_.username)
    return SaslStep::rejected(
        "Authentication failed: Client requested an authorization id that is different from username");
  if (credential->iterations < kScramMinIterations)
    return SaslStep::failed("Iterations " + std::to_string(credential->iterations) + " is less than the minimum " +
                            std::to_string(kScramMinIterations) + " for " + std::string(mechanism()));
  const size_t digest = scram_digest_size(scram_hash(mechanism_));
  if (credential->stored_key.size() != digest || credential->server_key.size() != digest)
    return SaslStep::failed("Authentication failed: Credentials could not be obtained");
  credential_ = *credential;
  user_ = client_first_.username;
  nonce_ = client_first_.nonce + nonce_source_();
  server_first_ = ServerFirstMessage::format(nonce_, credential_.salt, credential_.iterations);
  state_ = State::kClientFinal;
  return SaslStep::challenge(server_first_);
}

SaslStep ScramServer::client_final(std::string_view message) {
  auto final = ClientFinalMessage::parse(message);
  if (!final.ok()) return SaslStep::failed(final.error().message());
  if (final->channel_binding != client_first_.gs2_header)
    return SaslStep::failed("Invalid channel binding in the final client message.");
  // Kafka's rule: the final nonce ends with the combined one. librdkafka before 2.x's
  // fix sends its own nonce again in front; the proof covers those bytes as received.
  const bool nonce_ok = final->nonce.size() >= nonce_.size() &&
                        constant_time_equal(std::string_view(final->nonce).substr(final->nonce.size() - nonce_.size()), nonce_);
  if (!nonce_ok) return SaslStep::failed("Invalid client nonce in the final client message.");
  const ScramHash h = scram_hash(mechanism_);
  if (final->proof.size() != scram_digest_size(h))
    return SaslStep::failed("Invalid client credentials: the proof has " + std::to_string(final->proof.size()) +
                            " bytes");
  const std::string auth_message = scram_auth_message(client_first_.bare, server_first_, final->without_proof);
  const std::string client_signature = scram_hmac(h, credential_.stored_key, auth_message);
  const std::string client_key = scram_xor(client_signature, final->proof);
  if (!constant_time_equal(scram_digest(h, client_key), credential_.stored_key))
    return SaslStep::failed("Invalid client credentials");
  const std::string server_signature = scram_hmac(h, credential_.server_key, auth_message);
  credential_ = {};
  state_ = State::kComplete;
  return SaslStep::complete(ServerFinalMessage::format_signature(server_signature));
}

}  // namespace rokka::security
