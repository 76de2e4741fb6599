#include "broker/meta/group_configs.h"

#include <mutex>

#include "broker/config/config_schema.h"
#include "coordinator/byte_codec.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {

constexpr std::string_view kPrefix = storage::meta_prefix::kGroupConfigs;

std::optional<int32_t> parse_int(std::string_view s) {
  const std::optional<int64_t> v = parse_integer(s);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*v);
}

std::string encode(const std::map<std::string, std::string>& values) {
  coordinator::ByteWriter out;
  out.u8(0);  // version
  out.u32(static_cast<uint32_t>(values.size()));
  for (const auto& [name, value] : values) {
    out.str(name);
    out.str(value);
  }
  return std::move(out).take();
}

std::optional<std::map<std::string, std::string>> decode(std::string_view bytes) {
  coordinator::ByteReader in(bytes);
  if (in.u8() != 0) return std::nullopt;
  const std::optional<uint32_t> n = in.count(8);
  if (!n) return std::nullopt;
  std::map<std::string, std::string> out;
  for (uint32_t i = 0; i < *n; ++i) {
    std::string name(in.str());
    out[std::move(name)] = std::string(in.str());
  }
  if (!in.at_end()) return std::nullopt;
  return out;
}

}  // namespace

storage::Status GroupConfigs::load() {
  std::unique_lock lock(mu_);
  groups_.clear();
  for (const auto& [key, value] : meta_.scan(kPrefix)) {
    auto values = decode(value);
    if (!values) return storage::Status::corruption("undecodable group config record: " + key);
    groups_[key.substr(kPrefix.size())] = std::move(*values);
  }
  return storage::Status();
}

std::map<std::string, std::string> GroupConfigs::apply(std::map<std::string, std::string> values,
                                                       const Changes& changes, bool replace) {
  if (replace) values.clear();
  for (const auto& [name, value] : changes) {
    if (value) values[name] = *value;
    else values.erase(name);
  }
  return values;
}

std::string GroupConfigs::validate(const std::string& group, const Changes& changes, bool replace) const {
  for (const auto& [name, value] : changes) {
    if (cfg::find_group_key(name) == nullptr) return "Unknown group config name: " + name;
    if (value && !parse_int(*value)) return "Invalid value " + *value + " for configuration " + name + ": Not a number of type INT";
  }
  const std::map<std::string, std::string> next = apply(values(group), changes, replace);
  auto value_of = [&](const cfg::Row& key) {
    auto it = next.find(std::string(key.name));
    return it == next.end() ? broker_default(key) : *parse_int(it->second);
  };
  const int32_t session = value_of(cfg::kConsumerSessionTimeoutMs);
  const int32_t heartbeat = value_of(cfg::kConsumerHeartbeatIntervalMs);
  if (session < config_.group_consumer_min_session_timeout_ms || session > config_.group_consumer_max_session_timeout_ms)
    return "consumer.session.timeout.ms must be between group.consumer.min.session.timeout.ms (" +
           std::to_string(config_.group_consumer_min_session_timeout_ms) + ") and group.consumer.max.session.timeout.ms (" +
           std::to_string(config_.group_consumer_max_session_timeout_ms) + ")";
  if (heartbeat < config_.group_consumer_min_heartbeat_interval_ms ||
      heartbeat > config_.group_consumer_max_heartbeat_interval_ms)
    return "consumer.heartbeat.interval.ms must be between group.consumer.min.heartbeat.interval.ms (" +
           std::to_string(config_.group_consumer_min_heartbeat_interval_ms) +
           ") and group.consumer.max.heartbeat.interval.ms (" +
           std::to_string(config_.group_consumer_max_heartbeat_interval_ms) + ")";
  if (heartbeat >= session) return "consumer.heartbeat.interval.ms must be less than consumer.session.timeout.ms";
  return {};
}

void GroupConfigs::alter(const std::string& group, Changes changes, bool replace,
                         std::function<void(storage::Status)> done) {
  std::map<std::string, std::string> next = apply(values(group), changes, replace);
  storage::MetaStore::Mutation m{std::string(kPrefix) + group, next.empty() ? "" : encode(next), next.empty()};
  meta_.write({std::move(m)}, [this, group, next = std::move(next), done = std::move(done)](storage::Status s) {
    if (s.ok()) {
      std::unique_lock lock(mu_);
      if (next.empty()) groups_.erase(group);
      else groups_[group] = next;
    }
    done(std::move(s));
  });
}

std::map<std::string, std::string> GroupConfigs::values(const std::string& group) const {
  std::shared_lock lock(mu_);
  auto it = groups_.find(group);
  return it == groups_.end() ? std::map<std::string, std::string>{} : it->second;
}

int32_t GroupConfigs::broker_default(const cfg::Row& key) const {
  return static_cast<int32_t>(cfg::integer_value(cfg::synonym_of(key), config_));
}

int32_t GroupConfigs::effective(const std::string& group, const cfg::Row& key) const {
  {
    std::shared_lock lock(mu_);
    auto it = groups_.find(group);
    if (it != groups_.end())
      if (auto v = it->second.find(std::string(key.name)); v != it->second.end())
        if (auto n = parse_int(v->second)) return *n;
  }
  return broker_default(key);
}

}  // namespace rokka::broker
