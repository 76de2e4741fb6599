#include "tools/admin/text.h"

#include <cctype>
#include <charconv>
#include <ctime>
#include <limits>

namespace rokka::admin {

int64_t parse_int64(std::string_view text, std::string_view what) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty())
    throw UsageError(std::string(what) + ": not an integer: '" + std::string(text) + "'");
  return v;
}

int32_t parse_int32(std::string_view text, std::string_view what) {
  const int64_t v = parse_int64(text, what);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    throw UsageError(std::string(what) + ": out of range: '" + std::string(text) + "'");
  return static_cast<int32_t>(v);
}

std::pair<std::string, std::string> parse_key_value(std::string_view text, std::string_view what) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(std::string(what) + ": expected key=value, got '" + std::string(text) + "'");
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(separator, start);
    out.emplace_back(text.substr(start, at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

TopicSpec parse_topic_spec(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return {std::string(text), std::nullopt};
  TopicSpec spec{std::string(text.substr(0, colon)), std::vector<int32_t>{}};
  if (spec.topic.empty()) throw UsageError("topic: empty name in '" + std::string(text) + "'");
  for (const std::string& p : split(text.substr(colon + 1), ','))
    spec.partitions->push_back(parse_int32(p, "partition"));
  return spec;
}

int64_t parse_datetime_ms(std::string_view text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos)
    return parse_int64(text, "datetime");
  const auto bad = [&] {
    return UsageError("datetime: expected YYYY-MM-DDTHH:MM:SS[.sss][Z|+HH:MM] or epoch milliseconds, got '" +
                      std::string(text) + "'");
  };
  std::tm tm{};
  int consumed = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &consumed) != 6)
    throw bad();
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::string_view rest = text.substr(static_cast<size_t>(consumed));
  int64_t millis = 0;
  if (!rest.empty() && rest[0] == '.') {
    size_t digits = 1;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    std::string frac(rest.substr(1, digits - 1));
    if (frac.empty() || frac.size() > 3) throw bad();
    frac.resize(3, '0');
    millis = parse_int64(frac, "datetime");
    rest = rest.substr(digits);
  }
  std::optional<int64_t> offset_s;  // the zone's offset from UTC; none: local time
  if (rest == "Z") {
    offset_s = 0;
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    const int64_t h = parse_int64(rest.substr(1, 2), "datetime zone");
    const int64_t m = parse_int64(rest.substr(4, 2), "datetime zone");
    offset_s = (rest[0] == '+' ? 1 : -1) * (h * 3600 + m * 60);
  } else if (!rest.empty()) {
    throw bad();
  }
  int64_t seconds;
  if (offset_s) {
    seconds = static_cast<int64_t>(::timegm(&tm)) - *offset_s;
  } else {
    tm.tm_isdst = -1;
    seconds = static_cast<int64_t>(std::mktime(&tm));
  }
  return seconds * 1000 + millis;
}

std::string normalized_name(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '-' && c != '_') out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0.
size_t utf8_sequence(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

bool valid_utf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const size_t n = utf8_sequence(bytes.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const size_t n = utf8_sequence(bytes.substr(i));
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out += bytes.substr(i, n);
      i += n;
    }
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

}  // namespace rokka::admin
