// ssl.principal.mapping.rules as Kafka's SslPrincipalMapper reads and applies
// them to a client certificate's subject (RFC 2253 form, x509_name.h):
//
//   DEFAULT                    the subject as it is
//   RULE:<pattern>/<replacement>/[L|U]
//
// Rules are separated by commas (a RULE's pattern and replacement may hold
// commas; '/' and '\' in them are escaped with '\'); the first rule whose
// pattern matches the whole subject decides, L or U lower- or upper-cases the
// result (ASCII letters). Patterns are Perl-style regular expressions
// (boost::regex), which read like Java's for what mapping rules use; the
// replacement uses Java's syntax: $n and ${name} for groups, '\' escapes the
// next character. A $n past the pattern's groups is literal text, as Kafka's
// escapeLiteralBackReferences intends. No matching rule is an error, as in Kafka.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "security/result.h"

namespace rokka::security {

inline constexpr size_t kMaxDistinguishedNameBytes = 8 * 1024;

class SslPrincipalMapper {
 public:
  SslPrincipalMapper();
  ~SslPrincipalMapper();
  SslPrincipalMapper(SslPrincipalMapper&&) noexcept;
  SslPrincipalMapper& operator=(SslPrincipalMapper&&) noexcept;

  // Errors carry Kafka's "Invalid rule: `...`, unmatched substring: `...`".
  static Result<SslPrincipalMapper> parse(std::string_view rules);
  // The principal name for `distinguished_name`.
  Result<std::string> map(std::string_view distinguished_name) const;
  std::string to_string() const;  // "[DEFAULT, RULE:...]"

 private:
  struct Rule;
  std::vector<Rule> rules_;
};

}  // namespace rokka::security
