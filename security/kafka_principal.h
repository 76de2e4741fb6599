// Kafka's principal: "<type>:<name>", User:<name> for every authenticated
// client (SASL's authorization id, a certificate's mapped subject) and
// User:ANONYMOUS for the rest, as DefaultKafkaPrincipalBuilder makes them.
// to_string() is the form the authorizer and ACL bindings use.
#pragma once

#include <string>
#include <string_view>

#include "security/result.h"

namespace rokka::security {

struct KafkaPrincipal {
  std::string type = "User";
  std::string name;
  bool token_authenticated = false;  // SCRAM with delegation tokens; not part of equality

  static KafkaPrincipal user(std::string name) { return {"User", std::move(name), false}; }
  static KafkaPrincipal anonymous() { return user("ANONYMOUS"); }
  // "Type:name", split at the first ':' (SecurityUtils.parseKafkaPrincipal).
  static Result<KafkaPrincipal> parse(std::string_view text);

  std::string to_string() const { return type + ":" + name; }
  bool operator==(const KafkaPrincipal& o) const { return type == o.type && name == o.name; }
};

}  // namespace rokka::security
