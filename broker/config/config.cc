#include "broker/config/config.h"

#include <unistd.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <charconv>
#include <map>
#include <ranges>
#include <sstream>

#include "broker/config/config_schema.h"
#include "cluster/keys.h"
#include "cluster/records.h"
#include "security/config_map.h"

namespace rokka::broker {

std::optional<int64_t> parse_integer(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

namespace {

using storage::Result;
using storage::Status;

using cfg::Row;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> parse_int(std::string_view s) { return parse_integer(trim(s)); }

// The items of a comma-separated list, trimmed, empty ones left out.
std::vector<std::string_view> list_items(std::string_view list) {
  std::vector<std::string_view> out;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    if (std::string_view item = trim(list.substr(start, comma - start)); !item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

// A row's `choices` ("a,b,c"): whether `v` is one, and all of them as "a, b, c".
bool is_choice(std::string_view choices, std::string_view v) {
  const std::vector<std::string_view> all = list_items(choices);
  return std::find(all.begin(), all.end(), v) != all.end();
}
std::string choice_list(std::string_view choices) {
  std::string out;
  for (char ch : choices) out += ch == ',' ? std::string(", ") : std::string(1, ch);
  return out;
}

template <typename T>
T BrokerConfig::*member(const Row& row) {
  return std::get<T BrokerConfig::*>(row.field);
}

void set_integer(const Row& row, BrokerConfig& c, int64_t v) {
  if (auto* m = std::get_if<int16_t BrokerConfig::*>(&row.field)) {
    c.*(*m) = static_cast<int16_t>(v);
  } else if (auto* m32 = std::get_if<int32_t BrokerConfig::*>(&row.field)) {
    c.*(*m32) = static_cast<int32_t>(v);
  } else {
    c.*member<int64_t>(row) = v;
  }
}

std::string join(const std::vector<Listener>& listeners) {
  std::string out;
  for (const auto& l : listeners) out += (out.empty() ? "" : ",") + l.to_string();
  return out;
}

// rokka.http.listeners: "host:port[,host:port]"; empty = no HTTP endpoints.
std::string apply_http_listeners(BrokerConfig& c, std::string_view v) {
  c.http_listeners.clear();
  for (std::string_view item : list_items(v)) {
    auto hp = parse_host_port(item);
    if (!hp.ok()) return hp.status().message();
    Listener l;
    l.name = "http";
    l.host = std::move(hp->host);
    l.port = hp->port;
    c.http_listeners.push_back(std::move(l));
  }
  return {};
}

// Every piece of `s` between `sep`s, trimmed (empty pieces kept).
std::vector<std::string_view> split_trimmed(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t end = std::min(s.find(sep, start), s.size());
    out.push_back(trim(s.substr(start, end - start)));
    if (end == s.size()) return out;
    start = end + 1;
  }
}

// The rows of Rokka's keys, in table order.
auto rokka_rows() {
  return cfg::kSchema | std::views::filter([](const Row& r) { return r.rokka(); });
}

const Row* find_rokka_row(std::string_view name) {
  const Row* row = cfg::find_broker_key(name);
  return row != nullptr && row->rokka() ? row : nullptr;
}

// Java properties: key=value or key:value or "key value"; # and ! comments;
// a trailing backslash continues the line.
std::vector<std::pair<std::string, std::string>> parse_properties(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string logical;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::string_view l = trim(line);
    if (logical.empty() && (l.empty() || l.front() == '#' || l.front() == '!')) continue;
    if (!l.empty() && l.back() == '\\') {
      logical += l.substr(0, l.size() - 1);
      continue;
    }
    logical += l;
    std::string_view kv = logical;
    const size_t sep = kv.find_first_of("=: \t");
    std::string_view key = trim(kv.substr(0, sep));
    std::string_view value;
    if (sep != std::string_view::npos) {
      value = trim(kv.substr(sep + 1));
      if (!value.empty() && (value.front() == '=' || value.front() == ':')) value = trim(value.substr(1));
    }
    if (!key.empty()) out.emplace_back(std::string(key), std::string(value));
    logical.clear();
  }
  return out;
}


// Every listener's security protocol from listener.security.protocol.map, as Kafka
// requires: each listener (and advertised listener) name must have an entry.
Status resolve_security_protocols(BrokerConfig& config) {
  std::map<std::string, std::string, std::less<>> map;
  for (const std::string& item : security::config_list(config.listener_security_protocol_map)) {
    const size_t colon = item.find(':');
    std::string_view name = colon == std::string::npos ? std::string_view(item) : trim(std::string_view(item).substr(0, colon));
    std::string_view protocol = colon == std::string::npos ? "" : trim(std::string_view(item).substr(colon + 1));
    if (std::find(std::begin(kSecurityProtocols), std::end(kSecurityProtocols), protocol) == std::end(kSecurityProtocols))
      return Status::invalid_argument("config listener.security.protocol.map: '" + item +
                                      "' is not NAME:PROTOCOL with PROTOCOL one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
    map[std::string(name)] = std::string(protocol);
  }
  for (auto* list : {&config.listeners, &config.advertised_listeners}) {
    for (Listener& l : *list) {
      auto it = map.find(l.name);
      if (it == map.end())
        return Status::invalid_argument("config listeners: no security protocol defined for listener " + l.name +
                                        " (add it to listener.security.protocol.map)");
      l.security_protocol = it->second;
    }
  }
  for (const Listener& a : config.advertised_listeners) {
    const bool known = std::any_of(config.listeners.begin(), config.listeners.end(),
                                   [&](const Listener& l) { return l.name == a.name; });
    if (!known)
      return Status::invalid_argument("config advertised.listeners: listener " + a.name + " is not in listeners");
  }
  return {};
}

}  // namespace

std::string HostPort::to_string() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<HostPort> parse_host_port(std::string_view text) {
  text = trim(text);
  const std::string quoted = "'" + std::string(text) + "'";
  if (text.find("://") != std::string_view::npos)
    return Status::invalid_argument("expected host:port, without a scheme");
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return Status::invalid_argument(quoted + " has no port");
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  auto port = parse_int(text.substr(colon + 1));
  if (!port || *port < 0 || *port > 65535) return Status::invalid_argument(quoted + " has a bad port");
  return HostPort{std::string(host), static_cast<uint16_t>(*port)};
}

Result<std::vector<ReplicationGroup>> parse_replication_groups(std::string_view text) {
  std::vector<ReplicationGroup> out;
  if (trim(text).empty()) return out;
  std::vector<std::string_view> items = split_trimmed(text, ';');
  if (items.size() > 1 && items.back().empty()) items.pop_back();  // a trailing ';'
  for (std::string_view item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return Status::invalid_argument("'" + std::string(item) + "' is not name=id,id,...");
    ReplicationGroup g;
    g.name = std::string(trim(item.substr(0, eq)));
    const std::string where = "group '" + g.name + "': ";
    if (!cluster::valid_group_name(g.name))
      return Status::invalid_argument(where + "a group name is 1 to 32 of a-z, 0-9, '_' and '-'");
    for (const ReplicationGroup& other : out)
      if (other.name == g.name) return Status::invalid_argument(where + "named twice");
    const std::string_view members = trim(item.substr(eq + 1));
    if (members.empty()) return Status::invalid_argument(where + "has no member");
    for (std::string_view id : split_trimmed(members, ',')) {
      const std::optional<int64_t> n = parse_integer(id);
      if (!n || *n < 0 || *n > INT32_MAX)
        return Status::invalid_argument(where + "member '" + std::string(id) + "' is not a broker id");
      const auto member = static_cast<int32_t>(*n);
      if (std::find(g.members.begin(), g.members.end(), member) != g.members.end())
        return Status::invalid_argument(where + "broker " + std::to_string(member) + " is a member twice");
      g.members.push_back(member);
    }
    if (g.members.size() > cluster::kMaxGroupMembers)
      return Status::invalid_argument(where + "has more than " + std::to_string(cluster::kMaxGroupMembers) +
                                      " members");
    out.push_back(std::move(g));
  }
  return out;
}

std::string format_replication_groups(const std::vector<ReplicationGroup>& groups) {
  std::string out;
  for (const ReplicationGroup& g : groups) {
    out += (out.empty() ? "" : ";") + g.name + "=";
    for (size_t i = 0; i < g.members.size(); ++i) out += (i ? "," : "") + std::to_string(g.members[i]);
  }
  return out;
}

int64_t cfg::integer_value(const Row& row, const BrokerConfig& c) {
  if (auto* m = std::get_if<int16_t BrokerConfig::*>(&row.field)) return c.*(*m);
  if (auto* m32 = std::get_if<int32_t BrokerConfig::*>(&row.field)) return c.*(*m32);
  return c.*member<int64_t>(row);
}

std::string cfg::apply(const Row& row, BrokerConfig& c, std::string_view v) {
  switch (row.read) {
    case Read::kNone:
      return {};
    case Read::kInteger: {
      auto n = parse_int(v);
      if (!n) return "expected an integer";
      if (*n < row.min || *n > row.max)
        return "must be between " + std::to_string(row.min) + " and " + std::to_string(row.max);
      set_integer(row, c, *n);
      return {};
    }
    case Read::kBoolean:
      v = trim(v);
      if (v != "true" && v != "false") return "expected true or false";
      c.*member<bool>(row) = v == "true";
      return {};
    case Read::kChoice:
      v = trim(v);
      if (!is_choice(row.choices, v)) return "expected one of: " + choice_list(row.choices);
      c.*member<std::string>(row) = std::string(v);
      return {};
    case Read::kText:
      v = trim(v);
      if (v.empty()) return "must not be empty";
      c.*member<std::string>(row) = std::string(v);
      return {};
    case Read::kOptionalText:
      c.*member<std::string>(row) = std::string(trim(v));
      return {};
    case Read::kListeners: {
      auto& out = c.*member<std::vector<Listener>>(row);
      if (row.default_value.empty() && trim(v).empty()) {
        out.clear();
        return {};
      }
      auto parsed = parse_listeners(v);
      if (!parsed.ok()) return parsed.status().message();
      out = std::move(parsed).value();
      return {};
    }
    case Read::kHttpListeners:
      return apply_http_listeners(c, v);
    case Read::kRetention: {
      auto n = parse_int(v);
      if (!n) return "expected an integer";
      if (*n < -1) return "must be -1 (unlimited) or more";
      if (*n > INT64_MAX / row.unit_ms) return "too large";
      c.*member<int64_t>(row) = *n < 0 ? -1 : *n * row.unit_ms;
      return {};
    }
    case Read::kAuthorizer:
      // Naming any of Kafka's authorizer classes turns Rokka's built-in authorizer on.
      v = trim(v);
      if (!v.empty() && !is_choice(row.choices, v))
        return "Rokka's built-in authorizer stands in for one of: " + choice_list(row.choices) + " (or empty: none)";
      c.*member<std::string>(row) = std::string(v);
      return {};
    case Read::kOptionalChoice:
      v = trim(v);
      if (!v.empty() && !is_choice(row.choices, v)) return "expected empty or one of: " + choice_list(row.choices);
      c.*member<std::string>(row) = std::string(v);
      return {};
    case Read::kHostPort: {
      auto& out = c.*member<std::optional<HostPort>>(row);
      if (trim(v).empty()) {
        out.reset();
        return {};
      }
      auto parsed = parse_host_port(v);
      if (!parsed.ok()) return parsed.status().message();
      out = std::move(parsed).value();
      return {};
    }
    case Read::kReplicationGroups: {
      auto parsed = parse_replication_groups(v);
      if (!parsed.ok()) return parsed.status().message();
      c.*member<std::vector<ReplicationGroup>>(row) = std::move(parsed).value();
      return {};
    }
    case Read::kSecurity:
      c.security_settings[std::string(row.name)] = std::string(v);
      return {};
  }
  return {};
}

std::string cfg::value(const Row& row, const BrokerConfig& c) {
  switch (row.read) {
    case Read::kNone:
      return {};
    case Read::kInteger:
      return std::to_string(integer_value(row, c));
    case Read::kBoolean:
      return c.*member<bool>(row) ? "true" : "false";
    case Read::kChoice:
    case Read::kText:
    case Read::kOptionalText:
    case Read::kAuthorizer:
    case Read::kOptionalChoice:
      return c.*member<std::string>(row);
    case Read::kHostPort: {
      const auto& hp = c.*member<std::optional<HostPort>>(row);
      return hp ? hp->to_string() : std::string();
    }
    case Read::kReplicationGroups:
      return format_replication_groups(c.*member<std::vector<ReplicationGroup>>(row));
    case Read::kSecurity: {
      auto it = c.security_settings.find(row.name);
      return std::string(it != c.security_settings.end() ? std::string_view(it->second) : row.default_value);
    }
    case Read::kListeners:
      return join(c.*member<std::vector<Listener>>(row));
    case Read::kHttpListeners: {
      std::string out;
      for (const auto& l : c.http_listeners) out += (out.empty() ? "" : ",") + HostPort{l.host, l.port}.to_string();
      return out;
    }
    case Read::kRetention: {
      const int64_t ms = c.*member<int64_t>(row);
      return ms < 0 ? std::string("-1") : std::to_string(ms / row.unit_ms);
    }
  }
  return {};
}

bool is_security_key(std::string_view key) {
  if (key.starts_with("listener.name.")) return true;
  return key.starts_with("ssl.") || key.starts_with("sasl.") || key.ends_with(".sasl.jaas.config") ||
         key == "connections.max.reauth.ms" || key.ends_with(".connections.max.reauth.ms");
}

std::string Listener::to_string() const { return name + "://" + host + ":" + std::to_string(port); }

Result<std::vector<Listener>> parse_listeners(std::string_view text) {
  std::vector<Listener> out;
  for (std::string_view item : list_items(text)) {
    const size_t scheme = item.find("://");
    if (scheme == std::string_view::npos || scheme == 0)
      return Status::invalid_argument("listener '" + std::string(item) + "' is not NAME://host:port");
    Listener l;
    l.name = std::string(item.substr(0, scheme));
    for (char ch : l.name)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
        return Status::invalid_argument("listener '" + std::string(item) + "': a listener name is letters, digits, '_' and '-'");
    l.security_protocol = l.name;
    std::string_view hostport = item.substr(scheme + 3);
    const size_t colon = hostport.rfind(':');
    if (colon == std::string_view::npos)
      return Status::invalid_argument("listener '" + std::string(item) + "' has no port");
    std::string_view host = hostport.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    l.host = std::string(host);
    auto port = parse_int(hostport.substr(colon + 1));
    if (!port || *port < 0 || *port > 65535)
      return Status::invalid_argument("listener '" + std::string(item) + "' has a bad port");
    l.port = static_cast<uint16_t>(*port);
    for (const auto& other : out)
      if (other.name == l.name) return Status::invalid_argument("listener name '" + l.name + "' used twice");
    out.push_back(std::move(l));
  }
  if (out.empty()) return Status::invalid_argument("no listener given");
  return out;
}

std::vector<Listener> BrokerConfig::effective_advertised_listeners() const {
  std::vector<Listener> out = advertised_listeners.empty() ? listeners : advertised_listeners;
  for (auto& l : out) {
    if (l.host.empty() || l.host == "0.0.0.0" || l.host == "::") {
      char name[256] = {};
      l.host = ::gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "localhost";
    }
  }
  return out;
}

std::vector<const ReplicationGroup*> BrokerConfig::replication_groups_of(int32_t broker) const {
  std::vector<const ReplicationGroup*> out;
  for (const ReplicationGroup& g : replication_groups)
    if (std::find(g.members.begin(), g.members.end(), broker) != g.members.end()) out.push_back(&g);
  return out;
}

std::optional<HostPort> BrokerConfig::effective_replication_advertised_listener() const {
  if (replication_advertised_listener) return replication_advertised_listener;
  if (!replication_listener) return std::nullopt;
  const std::vector<Listener> advertised = effective_advertised_listeners();
  if (advertised.empty()) return std::nullopt;
  return HostPort{advertised.front().host, replication_listener->port};
}

std::vector<std::string> consumer_assignor_names(const BrokerConfig& config) {
  std::vector<std::string> out;
  for (const std::string& item : security::config_list(config.group_consumer_assignors)) {
    // Kafka's class names stand for the same assignors.
    if (item == "org.apache.kafka.coordinator.group.assignor.UniformAssignor" ||
        item == "org.apache.kafka.coordinator.group.api.assignor.UniformAssignor")
      out.push_back("uniform");
    else if (item == "org.apache.kafka.coordinator.group.assignor.RangeAssignor" ||
             item == "org.apache.kafka.coordinator.group.api.assignor.RangeAssignor")
      out.push_back("range");
    else
      out.push_back(item);
  }
  return out;
}

Status check_consumer_group_configs(const BrokerConfig& c) {
  auto within = [](int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; };
  if (!within(c.group_consumer_heartbeat_interval_ms, c.group_consumer_min_heartbeat_interval_ms,
              c.group_consumer_max_heartbeat_interval_ms))
    return Status::invalid_argument("config group.consumer.heartbeat.interval.ms must be between "
                                    "group.consumer.min.heartbeat.interval.ms and group.consumer.max.heartbeat.interval.ms");
  if (!within(c.group_consumer_session_timeout_ms, c.group_consumer_min_session_timeout_ms,
              c.group_consumer_max_session_timeout_ms))
    return Status::invalid_argument("config group.consumer.session.timeout.ms must be between "
                                    "group.consumer.min.session.timeout.ms and group.consumer.max.session.timeout.ms");
  if (c.group_consumer_heartbeat_interval_ms >= c.group_consumer_session_timeout_ms)
    return Status::invalid_argument("config group.consumer.heartbeat.interval.ms must be less than "
                                    "group.consumer.session.timeout.ms");
  const std::vector<std::string> names = consumer_assignor_names(c);
  if (names.empty()) return Status::invalid_argument("config group.consumer.assignors must name at least one assignor");
  for (const std::string& n : names)
    if (n != "uniform" && n != "range")
      return Status::invalid_argument("config group.consumer.assignors: unknown assignor '" + n +
                                      "' (Rokka offers uniform and range)");
  return Status();
}

namespace {

// The replication keys together (each is checked alone by its row).
Status check_replication_configs(const BrokerConfig& c) {
  if (!c.replication_groups.empty() && c.cluster_etcd_endpoints.empty())
    return Status::invalid_argument("config rokka.replication.groups needs rokka.cluster.etcd.endpoints: "
                                    "replication groups exist in cluster mode only");
  if (const auto groups = c.replication_groups_of(c.broker_id); !groups.empty() && !c.replication_listener)
    return Status::invalid_argument("config rokka.replication.listener must be set: broker " +
                                    std::to_string(c.broker_id) + " is a member of replication group " +
                                    groups.front()->name);
  if (c.replication_listener && !c.replication_listener->host.empty()) {  // it binds: no name lookup
    boost::system::error_code ec;
    (void)boost::asio::ip::make_address(c.replication_listener->host, ec);
    if (ec)
      return Status::invalid_argument("config rokka.replication.listener: the host must be an IP address (or empty: "
                                      "every interface), not " + c.replication_listener->host);
  }
  if (c.replication_advertised_listener) {
    const std::string& host = c.replication_advertised_listener->host;
    if (host.empty() || host == "0.0.0.0" || host == "::")
      return Status::invalid_argument("config rokka.replication.advertised.listener needs a host the other "
                                      "brokers can reach, not every interface");
  }
  if (c.replication_idle_timeout_ms <= c.replication_heartbeat_ms)
    return Status::invalid_argument("config rokka.replication.idle.timeout.ms must be more than "
                                    "rokka.replication.heartbeat.ms");
  return Status();
}

}  // namespace

Result<BrokerConfig> load_config(std::string_view properties,
                                 const std::vector<std::pair<std::string, std::string>>& overrides) {
  // Later settings of a key win: file first, then overrides in order.
  std::map<std::string, std::string> given;
  BrokerConfig config;
  for (auto& [k, v] : parse_properties(properties)) given[k] = v;
  for (const auto& [k, v] : overrides) given[k] = v;

  for (const Row& row : rokka_rows()) {
    auto it = given.find(std::string(row.name));
    const bool set = it != given.end();
    // An optional key; or a security key: the listeners read its default themselves, and only
    // given values go into security_settings.
    if (!set && (row.default_value.empty() || row.read == cfg::Read::kSecurity)) continue;
    const std::string value = set ? it->second : std::string(row.default_value);
    if (std::string err = cfg::apply(row, config, value); !err.empty())
      return Status::invalid_argument("config " + std::string(row.name) + "=" + value + ": " + err);
  }
  for (const auto& [k, v] : given) {
    if (find_rokka_row(k) != nullptr) config.given_keys.push_back(k);
    else if (is_security_key(k)) config.security_settings.emplace(k, v);
    else config.unknown_keys.push_back(k);
  }
  if (auto s = resolve_security_protocols(config); !s.ok()) return s;

  if (config.group_min_session_timeout_ms > config.group_max_session_timeout_ms)
    return Status::invalid_argument("config group.min.session.timeout.ms exceeds group.max.session.timeout.ms");
  if (auto s = check_consumer_group_configs(config); !s.ok()) return s;
  if (auto s = check_replication_configs(config); !s.ok()) return s;
  if (config.num_partitions > config.max_partitions_per_topic)
    return Status::invalid_argument("config num.partitions exceeds rokka.max.partitions.per.topic");
  if (config.message_max_bytes > config.log_segment_bytes / 2)
    return Status::invalid_argument("config message.max.bytes must be at most half of log.segment.bytes");
  return config;
}

Result<CommandLine> parse_command_line(int argc, char** argv) {
  CommandLine cl;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      cl.help = true;
    } else if (arg == "--version") {
      cl.version = true;
    } else if (arg == "--override") {
      if (i + 1 >= argc) return Status::invalid_argument("--override needs key=value");
      std::string_view kv = argv[++i];
      const size_t eq = kv.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return Status::invalid_argument("--override '" + std::string(kv) + "' is not key=value");
      cl.overrides.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    } else if (!arg.empty() && arg.front() == '-') {
      return Status::invalid_argument("unknown option '" + std::string(arg) + "' (see --help)");
    } else if (!cl.config_file) {
      cl.config_file = std::string(arg);
    } else {
      return Status::invalid_argument("more than one config file given");
    }
  }
  return cl;
}

std::vector<std::string_view> config_keys() {
  std::vector<std::string_view> out;
  for (const Row& row : rokka_rows()) out.push_back(row.name);
  return out;
}

std::string config_help() {
  std::ostringstream out;
  out << "Usage: rokka [CONFIG_FILE] [--override key=value]...\n"
         "\n"
         "Runs the Rokka broker. With no CONFIG_FILE the embedded defaults below apply\n"
         "(listening on 127.0.0.1:9092, data in ./rokka-data). Overrides win over the file.\n"
         "SIGTERM or SIGINT shut down gracefully. Dynamic broker configs set with AlterConfigs\n"
         "are stored by the broker and reported over these (live: max.connections,\n"
         "max.connections.per.ip; see README).\n"
         "\n"
         "Options:\n"
         "  --override key=value  set one configuration key (repeatable)\n"
         "  --help                this text\n"
         "  --version             print the version\n"
         "\n"
         "Configuration keys (default in brackets):\n";
  for (const Row& row : rokka_rows()) {
    out << "  " << row.name << " [" << (row.default_value.empty() ? "unset" : row.default_value) << "]\n"
        << "      " << row.doc << "\n";
  }
  return out.str();
}

std::vector<ConfigValue> config_values(const BrokerConfig& config) {
  auto is_given = [&](std::string_view name) {
    return std::find(config.given_keys.begin(), config.given_keys.end(), name) != config.given_keys.end();
  };
  std::vector<ConfigValue> out;
  for (const Row& row : rokka_rows()) {
    if (!row.synonym.empty()) continue;  // shown as the key it is another unit of
    bool given = is_given(row.name);
    for (const Row& other : rokka_rows()) given = given || (other.synonym == row.name && is_given(other.name));
    out.push_back({std::string(row.name), cfg::value(row, config), given, row.doc});
  }
  return out;
}

std::string describe_config(const BrokerConfig& config) {
  std::string out;
  for (const auto& v : config_values(config)) out += v.name + "=" + v.value + "\n";
  return out;
}

std::string check_config_value(std::string_view name, std::string_view value) {
  const Row* row = find_rokka_row(name);
  if (row == nullptr) return {};
  BrokerConfig scratch;
  return cfg::apply(*row, scratch, value);
}

}  // namespace rokka::broker
