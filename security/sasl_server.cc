#include "security/sasl_server.h"

namespace rokka::security {

std::string failure_message(const SaslStep& step, std::string_view mechanism, bool reauthentication) {
  if (step.client_message) return *step.client_message;
  return std::string("Authentication failed during ") + (reauthentication ? "re-authentication" : "authentication") +
         " due to invalid credentials with SASL mechanism " + std::string(mechanism);
}

}  // namespace rokka::security
