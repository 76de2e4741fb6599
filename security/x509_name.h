// A certificate subject as Java's X500Principal.getName() prints it (RFC 2253),
// the string ssl.principal.mapping.rules see in Kafka:
//   - RDNs last to first, joined by ','; the attributes of a multi-valued RDN joined by '+';
//   - the keywords CN C L ST O OU STREET DC UID; any other attribute as its
//     dotted OID with the value as '#' and the lower-case hex of its DER;
//   - string values (UTF8, Printable, IA5, Teletex, General, BMP) as UTF-8 with
//     , = + < > # ; " \ escaped by '\', NUL as \00, and leading and trailing
//     spaces (and CRs) escaped by '\'; values of other types as '#' + hex DER.
// Java reads a BMPString's bytes as if they were UTF-8; we convert them.
#pragma once

#include <openssl/types.h>

#include <string>

namespace rokka::security {

std::string x509_name_rfc2253(const X509_NAME* name);

}  // namespace rokka::security
