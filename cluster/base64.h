// Base64 (RFC 4648 standard alphabet, with '=' padding): etcd's JSON gateway carries every
// key and value as base64, the way Go's encoding/json marshals []byte.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rokka::cluster {

std::string base64_encode(std::string_view bytes);

// The decoded bytes, or nullopt for anything that is not canonical padded base64
// (bad characters, a length that is not a multiple of 4, misplaced or missing padding,
// non-zero bits after the last byte). Input comes from the network: nothing is trusted.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace rokka::cluster
