#include "security/sasl_client.h"

#include "security/scram_messages.h"
#include "security/scram_server.h"

namespace rokka::security {

Result<SaslClient> SaslClient::create(std::string_view mechanism, std::string username, std::string password,
                                      std::string nonce) {
  SaslClient c;
  c.mechanism_ = std::string(mechanism);
  if (mechanism != "PLAIN") {
    const auto m = scram_mechanism_from_name(mechanism);
    if (!m) return Error("SASL mechanism " + std::string(mechanism) +
                         " is not supported for the broker's own connections (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)");
    c.hash_ = scram_hash(*m);
  }
  if (username.empty()) return Error("no username for SASL " + c.mechanism_);
  c.username_ = std::move(username);
  c.password_ = std::move(password);
  c.nonce_ = nonce.empty() ? random_scram_nonce() : std::move(nonce);
  return c;
}

std::string SaslClient::initial() {
  if (!hash_) {
    state_ = State::kComplete;  // the server's answer to the token is the whole exchange
    return std::string(1, '\0') + username_ + std::string(1, '\0') + password_;
  }
  const std::string first = ClientFirstMessage::format(username_, nonce_);
  client_first_bare_ = first.substr(3);  // after "n,,"
  state_ = State::kServerFirst;
  return first;
}

Result<std::optional<std::string>> SaslClient::respond(std::string_view reply) {
  auto fail = [&](std::string why) -> Result<std::optional<std::string>> {
    state_ = State::kFailed;
    return Error(mechanism_ + ": " + std::move(why));
  };
  switch (state_) {
    case State::kComplete:
      return std::optional<std::string>();
    case State::kInitial:
    case State::kFailed:
      return fail("no exchange under way");
    case State::kServerFirst: {
      if (reply.size() > kMaxScramMessageBytes) return fail("server-first message too long");
      auto sf = ServerFirstMessage::parse(reply);
      if (!sf.ok()) return fail("server-first message: " + sf.error().message());
      if (!sf->nonce.starts_with(nonce_) || sf->nonce.size() == nonce_.size())
        return fail("the server's nonce does not extend ours");
      if (sf->iterations < kScramMinIterations || sf->iterations > kScramMaxIterations)
        return fail("server asks for " + std::to_string(sf->iterations) + " iterations");
      const std::string salted = scram_salted_password(*hash_, password_, sf->salt, sf->iterations);
      const std::string client_key = scram_client_key(*hash_, salted);
      server_key_ = scram_server_key(*hash_, salted);
      const std::string without_proof = ClientFinalMessage::format_without_proof("n,,", sf->nonce);
      auth_message_ = scram_auth_message(client_first_bare_, reply, without_proof);
      const std::string signature = scram_hmac(*hash_, scram_digest(*hash_, client_key), auth_message_);
      state_ = State::kServerFinal;
      return std::optional(ClientFinalMessage::format(without_proof, scram_xor(client_key, signature)));
    }
    case State::kServerFinal: {
      if (reply.size() > kMaxScramMessageBytes) return fail("server-final message too long");
      auto m = ServerFinalMessage::parse(reply);
      if (!m.ok()) return fail("server-final message: " + m.error().message());
      if (m->error) return fail("the server refused: " + *m->error);
      if (!constant_time_equal(m->signature, scram_hmac(*hash_, server_key_, auth_message_)))
        return fail("the server's signature is wrong (it does not know the credential)");
      state_ = State::kComplete;
      return std::optional<std::string>();
    }
  }
  return fail("unreachable");
}

}  // namespace rokka::security
