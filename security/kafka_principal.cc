#include "security/kafka_principal.h"

namespace rokka::security {

Result<KafkaPrincipal> KafkaPrincipal::parse(std::string_view text) {
  const size_t colon = text.find(':');
  if (text.empty() || colon == std::string_view::npos)
    return Error("expected a string in format principalType:principalName but got " + std::string(text));
  return KafkaPrincipal{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1)), false};
}

}  // namespace rokka::security
