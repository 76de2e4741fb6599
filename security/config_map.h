// Kafka's key/value settings as the security room reads them, with Kafka's
// per-listener and per-mechanism prefixes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rokka::security {

using ConfigMap = std::map<std::string, std::string, std::less<>>;

// The value of `key`, if set.
std::optional<std::string_view> config_value(const ConfigMap& config, std::string_view key);

// The settings one listener sees, as Kafka's valuesWithPrefixOverride: every key,
// with "listener.name.<listener, lowercased>.<key>" overriding "<key>" and the
// prefix stripped. Keys of other listeners stay as they are (and match nothing).
ConfigMap listener_config(const ConfigMap& config, std::string_view listener_name);

// A SASL setting of one mechanism within a listener's settings (Kafka's
// ConfigurationUtils.get): "<mechanism, lowercased>.<key>", else "<key>".
std::optional<std::string_view> mechanism_value(const ConfigMap& listener_config, std::string_view mechanism,
                                                std::string_view key);

// A Kafka LIST value: comma-separated, each item trimmed, empty items dropped.
std::vector<std::string> config_list(std::string_view value);

// Every piece between `sep`s, empty ones included ("a,,b" -> "a", "", "b").
std::vector<std::string_view> split_all(std::string_view s, char sep);

std::string ascii_lower(std::string_view s);
std::string_view trim_blanks(std::string_view s);  // spaces, tabs, CR, LF

}  // namespace rokka::security
