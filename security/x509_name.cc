#include "security/x509_name.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include <cstring>
#include <vector>

namespace rokka::security {
namespace {

const char* rfc2253_keyword(int nid) {
  switch (nid) {
    case NID_commonName: return "CN";
    case NID_countryName: return "C";
    case NID_localityName: return "L";
    case NID_stateOrProvinceName: return "ST";
    case NID_organizationName: return "O";
    case NID_organizationalUnitName: return "OU";
    case NID_streetAddress: return "STREET";
    case NID_domainComponent: return "DC";
    case NID_userId: return "UID";
    default: return nullptr;
  }
}

// '#' then the DER of the value (tag, length, content) in lower-case hex.
std::string hex_der(const ASN1_STRING* value) {
  const int tag = ASN1_STRING_type(value);
  const size_t len = static_cast<size_t>(ASN1_STRING_length(value));
  std::string der;
  der.push_back(static_cast<char>(tag));
  if (len < 0x80) {
    der.push_back(static_cast<char>(len));
  } else {
    std::string bytes;
    for (size_t n = len; n > 0; n >>= 8) bytes.insert(bytes.begin(), static_cast<char>(n & 0xff));
    der.push_back(static_cast<char>(0x80 | bytes.size()));
    der += bytes;
  }
  der.append(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)), len);
  constexpr char kHex[] = "0123456789abcdef";
  std::string out = "#";
  for (const char c : der) {
    out.push_back(kHex[(static_cast<unsigned char>(c) >> 4) & 0xf]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 0xf]);
  }
  return out;
}

std::string escape(std::string_view value) {
  constexpr std::string_view kEscapees = ",=+<>#;\"\\";
  std::string buf;
  for (const char c : value) {
    if (c == '\0') {
      buf += "\\00";
      continue;
    }
    if (kEscapees.find(c) != std::string_view::npos) buf.push_back('\\');
    buf.push_back(c);
  }
  size_t lead = 0;
  while (lead < buf.size() && (buf[lead] == ' ' || buf[lead] == '\r')) ++lead;
  size_t trail = buf.size();
  while (trail > 0 && (buf[trail - 1] == ' ' || buf[trail - 1] == '\r')) --trail;
  std::string out;
  for (size_t i = 0; i < buf.size(); ++i) {
    if (i < lead || i >= trail) out.push_back('\\');
    out.push_back(buf[i]);
  }
  return out;
}

std::string attribute(const X509_NAME_ENTRY* entry) {
  const ASN1_OBJECT* obj = X509_NAME_ENTRY_get_object(entry);
  const ASN1_STRING* value = X509_NAME_ENTRY_get_data(entry);
  const char* keyword = rfc2253_keyword(OBJ_obj2nid(obj));
  std::string out;
  if (keyword == nullptr) {
    char oid[128];
    OBJ_obj2txt(oid, sizeof(oid), obj, 1);
    return std::string(oid) + "=" + hex_der(value);
  }
  out = std::string(keyword) + "=";
  switch (ASN1_STRING_type(value)) {
    case V_ASN1_UTF8STRING:
    case V_ASN1_PRINTABLESTRING:
    case V_ASN1_IA5STRING:
    case V_ASN1_T61STRING:
    case V_ASN1_GENERALSTRING:
      return out + escape(std::string_view(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
                                           static_cast<size_t>(ASN1_STRING_length(value))));
    case V_ASN1_BMPSTRING: {
      unsigned char* utf8 = nullptr;
      const int n = ASN1_STRING_to_UTF8(&utf8, value);
      if (n < 0) return out + hex_der(value);
      out += escape(std::string_view(reinterpret_cast<char*>(utf8), static_cast<size_t>(n)));
      OPENSSL_free(utf8);
      return out;
    }
    default: return out + hex_der(value);
  }
}

}  // namespace

std::string x509_name_rfc2253(const X509_NAME* name) {
  // Group the entries into RDNs (entries sharing a set number), then print the RDNs last first.
  std::vector<std::string> rdns;
  int last_set = -1;
  for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
    const X509_NAME_ENTRY* entry = X509_NAME_get_entry(name, i);
    const int set = X509_NAME_ENTRY_set(entry);
    if (set == last_set && !rdns.empty()) rdns.back() += "+" + attribute(entry);
    else rdns.push_back(attribute(entry));
    last_set = set;
  }
  std::string out;
  for (auto it = rdns.rbegin(); it != rdns.rend(); ++it) out += (out.empty() ? "" : ",") + *it;
  return out;
}

}  // namespace rokka::security
