// A SCRAM client for tests only: drives ScramServer the way librdkafka and the
// Java client do (gs2 header "n,,", c=biws), with the nonce given by the test.
#pragma once

#include <string>

#include "security/base64.h"
#include "security/scram_crypto.h"
#include "security/scram_messages.h"

namespace rokka::security::testing {

class ScramTestClient {
 public:
  ScramTestClient(ScramHash hash, std::string user, std::string password, std::string nonce)
      : hash_(hash), user_(std::move(user)), password_(std::move(password)), nonce_(std::move(nonce)) {}

  std::string first(const ScramExtensions& extensions = {}) {
    first_ = ClientFirstMessage::format(user_, nonce_, extensions);
    return first_;
  }

  // The client-final message for `server_first`, or "" if it does not parse.
  // `nonce_prefix`: sent before the combined nonce, as librdkafka 2.0 repeats its own.
  std::string final(const std::string& server_first, const std::string& nonce_prefix = "") {
    auto sf = ServerFirstMessage::parse(server_first);
    if (!sf.ok()) return {};
    const std::string salted = scram_salted_password(hash_, password_, sf->salt, sf->iterations);
    const std::string client_key = scram_client_key(hash_, salted);
    server_key_ = scram_server_key(hash_, salted);
    const std::string without_proof = ClientFinalMessage::format_without_proof("n,,", nonce_prefix + sf->nonce);
    auth_message_ = scram_auth_message(first_.substr(3), server_first, without_proof);
    const std::string signature = scram_hmac(hash_, scram_digest(hash_, client_key), auth_message_);
    return ClientFinalMessage::format(without_proof, scram_xor(client_key, signature));
  }

  // Whether `server_final` carries the signature only the real server can make.
  bool verify(const std::string& server_final) const {
    auto m = ServerFinalMessage::parse(server_final);
    return m.ok() && !m->error && m->signature == scram_hmac(hash_, server_key_, auth_message_);
  }

 private:
  ScramHash hash_;
  std::string user_, password_, nonce_;
  std::string first_, server_key_, auth_message_;
};

}  // namespace rokka::security::testing
