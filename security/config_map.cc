#include "security/config_map.h"

namespace rokka::security {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::vector<std::string_view> split_all(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::string_view trim_blanks(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\r\n";
  const size_t begin = s.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kBlanks) - begin + 1);
}

std::optional<std::string_view> config_value(const ConfigMap& config, std::string_view key) {
  const auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  return std::string_view(it->second);
}

ConfigMap listener_config(const ConfigMap& config, std::string_view listener_name) {
  const std::string prefix = "listener.name." + ascii_lower(listener_name) + ".";
  ConfigMap out;
  for (const auto& [key, value] : config)
    if (!key.starts_with(prefix)) out.emplace(key, value);
  for (const auto& [key, value] : config)
    if (key.starts_with(prefix)) out[key.substr(prefix.size())] = value;
  return out;
}

std::optional<std::string_view> mechanism_value(const ConfigMap& listener_config, std::string_view mechanism,
                                                std::string_view key) {
  if (auto v = config_value(listener_config, ascii_lower(mechanism) + "." + std::string(key))) return v;
  return config_value(listener_config, key);
}

std::vector<std::string> config_list(std::string_view value) {
  std::vector<std::string> items;
  for (const std::string_view piece : split_all(value, ','))
    if (!trim_blanks(piece).empty()) items.emplace_back(trim_blanks(piece));
  return items;
}

}  // namespace rokka::security
