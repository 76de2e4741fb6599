// The server side of one SASL exchange on one connection (SaslAuthenticate's
// auth_bytes in, auth_bytes out), one object per authentication attempt.
//
// Kafka sends a failed exchange's own message to the client only when the
// mechanism raised a SaslAuthenticationException (PLAIN's "Authentication
// failed: Invalid username or password"); for every other failure it sends
// "Authentication failed during authentication due to invalid credentials with
// SASL mechanism <M>", so that nothing about the user leaks. SaslStep keeps that
// distinction: client_message is set for the first kind, and failure_message()
// builds what SaslAuthenticate's error_message carries either way.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rokka::security {

struct SaslStep {
  enum class Kind {
    kChallenge,  // send `data` back; the exchange goes on
    kComplete,   // send `data` back (maybe empty); authenticated
    kFailed,     // SASL_AUTHENTICATION_FAILED with failure_message(); then close the connection
  };
  Kind kind = Kind::kFailed;
  std::string data;
  std::optional<std::string> client_message;  // kFailed: Kafka's own text for the client, else nullopt
  std::string detail;                         // kFailed: the reason, for the broker's log only

  static SaslStep challenge(std::string data) { return {Kind::kChallenge, std::move(data), std::nullopt, {}}; }
  static SaslStep complete(std::string data) { return {Kind::kComplete, std::move(data), std::nullopt, {}}; }
  // A failure whose text goes to the client (a SaslAuthenticationException in Kafka).
  static SaslStep rejected(std::string message) { return {Kind::kFailed, {}, message, std::move(message)}; }
  // A failure the client learns nothing about (a SaslException in Kafka).
  static SaslStep failed(std::string detail) { return {Kind::kFailed, {}, std::nullopt, std::move(detail)}; }
};

// SaslAuthenticate's error_message for a failed step (`reauthentication`: KIP-368's second and later exchanges).
std::string failure_message(const SaslStep& step, std::string_view mechanism, bool reauthentication);

class SaslServer {
 public:
  virtual ~SaslServer() = default;
  virtual std::string_view mechanism() const = 0;
  // One client message. After kComplete or kFailed every further call fails.
  virtual SaslStep evaluate(std::string_view client_message) = 0;
  SaslStep evaluate(std::span<const std::byte> bytes) {
    return evaluate(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  virtual bool complete() const = 0;
  // After complete(): the authorization id; the principal is User:<it>.
  virtual const std::string& authorization_id() const = 0;
  // After complete(): when the credential stops being valid (an OAUTHBEARER
  // token's exp), in ms since the epoch; nullopt when it does not expire.
  virtual std::optional<int64_t> credential_expiry_ms() const { return std::nullopt; }
};

}  // namespace rokka::security
