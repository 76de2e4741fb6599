// SASL/PLAIN (RFC 4616) against the users of the listener's JAAS entry
// (PlainLoginModule's user_<name>="<password>" options), as Kafka's
// PlainSaslServer and PlainServerCallbackHandler check them.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "security/jaas_config.h"
#include "security/result.h"
#include "security/sasl_server.h"

namespace rokka::security {

inline constexpr std::string_view kPlainMechanism = "PLAIN";
// A PLAIN message longer than this is refused unread (RFC 4616 asks for 255 bytes per field).
inline constexpr size_t kMaxPlainMessageBytes = 64 * 1024;

class PlainUsers {
 public:
  // The user_<name> options of a PlainLoginModule entry (another login module is an error).
  static Result<PlainUsers> from_jaas(const JaasModule& module);
  // Constant time in the password (both sides are hashed before the comparison).
  bool authenticate(std::string_view user, std::string_view password) const;
  size_t size() const { return passwords_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> passwords_;
};

class PlainServer final : public SaslServer {
 public:
  explicit PlainServer(std::shared_ptr<const PlainUsers> users) : users_(std::move(users)) {}
  std::string_view mechanism() const override { return kPlainMechanism; }
  SaslStep evaluate(std::string_view message) override;
  using SaslServer::evaluate;
  bool complete() const override { return complete_; }
  const std::string& authorization_id() const override { return authorization_id_; }

 private:
  std::shared_ptr<const PlainUsers> users_;
  bool done_ = false;
  bool complete_ = false;
  std::string authorization_id_;
};

}  // namespace rokka::security
