// Hex <-> bytes for golden-bytes tests. Whitespace in hex input is ignored.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rokka::testutil {

inline std::vector<std::byte> from_hex(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument("bad hex digit");
  };
  std::vector<std::byte> out;
  int hi = -1;
  for (char c : hex) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    const int v = nibble(c);
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<std::byte>(hi << 4 | v));
      hi = -1;
    }
  }
  if (hi >= 0) throw std::invalid_argument("odd hex length");
  return out;
}

inline std::string to_hex(std::span<const std::byte> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::byte b : bytes) {
    out.push_back(kDigits[std::to_integer<int>(b) >> 4]);
    out.push_back(kDigits[std::to_integer<int>(b) & 15]);
  }
  return out;
}

}  // namespace rokka::testutil
