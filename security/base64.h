// Base64 (RFC 4648 section 4, padded: SCRAM's salt, proof and signature) and
// base64url (section 5, unpadded: JWS segments and JWK members). Decoders are
// strict and bounded: the caller says how many decoded bytes it accepts, and an
// input that would decode to more is refused before anything is allocated.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rokka::security {

std::string base64_encode(std::string_view bytes);
// Only the canonical padded form: length a multiple of 4, '=' only as the last one or two characters.
std::optional<std::string> base64_decode(std::string_view text, size_t max_decoded_bytes);

std::string base64url_encode(std::string_view bytes);
// Alphabet A-Z a-z 0-9 '-' '_', no padding, no whitespace.
std::optional<std::string> base64url_decode(std::string_view text, size_t max_decoded_bytes);

}  // namespace rokka::security
