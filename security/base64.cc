#include "security/base64.h"

#include <array>
#include <cstdint>

namespace rokka::security {
namespace {

constexpr std::string_view kStandard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::array<int8_t, 256> reverse_table(std::string_view alphabet) {
  std::array<int8_t, 256> table;
  table.fill(-1);
  for (size_t i = 0; i < alphabet.size(); ++i) table[static_cast<uint8_t>(alphabet[i])] = static_cast<int8_t>(i);
  return table;
}

std::string encode(std::string_view bytes, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(alphabet[(v >> shift) & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (rest == 2) out.push_back(alphabet[(v >> 6) & 63]);
    if (pad) out.append(3 - rest, '=');
  }
  return out;
}

// `text` holds only alphabet characters (no padding); its length mod 4 is not 1.
std::optional<std::string> decode_symbols(std::string_view text, const std::array<int8_t, 256>& table,
                                          size_t max_decoded_bytes) {
  if (text.size() % 4 == 1) return std::nullopt;
  const size_t decoded = text.size() / 4 * 3 + (text.size() % 4 == 0 ? 0 : text.size() % 4 - 1);
  if (decoded > max_decoded_bytes) return std::nullopt;
  std::string out;
  out.reserve(decoded);
  uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    const int8_t v = table[static_cast<uint8_t>(c)];
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace

std::string base64_encode(std::string_view bytes) { return encode(bytes, kStandard, true); }
std::string base64url_encode(std::string_view bytes) { return encode(bytes, kUrl, false); }

std::optional<std::string> base64_decode(std::string_view text, size_t max_decoded_bytes) {
  static const auto table = reverse_table(kStandard);
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  return decode_symbols(text.substr(0, text.size() - pad), table, max_decoded_bytes);
}

std::optional<std::string> base64url_decode(std::string_view text, size_t max_decoded_bytes) {
  static const auto table = reverse_table(kUrl);
  return decode_symbols(text, table, max_decoded_bytes);
}

}  // namespace rokka::security
