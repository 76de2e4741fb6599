#include "broker/meta/dynamic_config.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "broker/config/config.h"
#include "broker/config/config_schema.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {

constexpr std::string_view kPrefix = storage::meta_prefix::kDynamicConfig;
constexpr std::string_view kListenerPrefix = "listener.name.";

// Whether `name` is a broker key of the schema with any of `scope` (cfg::Scope flags).
bool has_scope(std::string_view name, uint8_t scope) {
  const cfg::Row* row = cfg::find_broker_key(name);
  return row != nullptr && (row->scope & scope) != 0;
}

// "listener.name.<listener>.<config>" -> "<config>", else empty.
std::string_view listener_base(std::string_view name) {
  if (!name.starts_with(kListenerPrefix)) return {};
  name.remove_prefix(kListenerPrefix.size());
  const size_t dot = name.find('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(dot + 1);
}

// A listener-prefixed name is static only as a whole name of the schema (none is).
bool is_static(std::string_view name) {
  return !DynamicBrokerConfig::is_dynamic(name) && has_scope(name, cfg::kStatic);
}

// Kafka's message: the names as a Scala Set.
std::string name_set(std::string_view what, const std::vector<std::string>& names) {
  std::string out = std::string(what) + ": Set(";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + ")";
}

template <typename Pred>
std::vector<std::string> names_where(const DynamicBrokerConfig::Changes& changes, Pred pred) {
  std::vector<std::string> out;
  for (const auto& [name, value] : changes)
    if (pred(name)) out.push_back(name);
  return out;
}

}  // namespace

DynamicBrokerConfig::DynamicBrokerConfig(storage::MetaStore& meta, int32_t broker_id)
    : meta_(meta), broker_id_(broker_id) {}

bool DynamicBrokerConfig::is_dynamic(std::string_view name) {
  if (const std::string_view base = listener_base(name); !base.empty()) return is_dynamic(base);
  return has_scope(name, cfg::kDynamicBroker | cfg::kDynamicCluster);
}

bool DynamicBrokerConfig::is_list(std::string_view name) {
  if (const std::string_view base = listener_base(name); !base.empty()) return is_list(base);
  const cfg::Row* row = cfg::find_broker_key(name);
  return row != nullptr && row->type == ConfigType::kList;
}

// A password key of the schema, under any prefix (listener.name.<l>., <mechanism>.), and any
// key named *.password.
bool DynamicBrokerConfig::is_sensitive(std::string_view name) {
  if (name.ends_with(".password")) return true;
  return std::any_of(cfg::kSchema.begin(), cfg::kSchema.end(), [&](const cfg::Row& row) {
    return row.kind() == 0 && row.type == ConfigType::kPassword && name.ends_with(row.name);
  });
}

std::string DynamicBrokerConfig::prefix(DynamicScope scope) const {
  return std::string(kPrefix) +
         (scope == DynamicScope::kBroker ? "broker/" + std::to_string(broker_id_) + "/" : std::string("default/"));
}

std::string DynamicBrokerConfig::key(DynamicScope scope, std::string_view name) const {
  return prefix(scope) + std::string(name);
}

std::map<std::string, std::string>& DynamicBrokerConfig::scope_values(DynamicScope scope) {
  return scope == DynamicScope::kBroker ? broker_ : cluster_default_;
}

storage::Status DynamicBrokerConfig::load() {
  std::unique_lock lock(mu_);
  for (const DynamicScope scope : {DynamicScope::kBroker, DynamicScope::kClusterDefault}) {
    const std::string p = prefix(scope);
    auto& values = scope_values(scope);
    values.clear();
    for (auto& [k, v] : meta_.scan(p)) values[k.substr(p.size())] = v;
  }
  return {};
}

std::string DynamicBrokerConfig::validate(DynamicScope scope, const Changes& changes) {
  if (auto bad = names_where(changes, is_static); !bad.empty())
    return name_set("Cannot update these configs dynamically", bad);
  if (auto bad = names_where(changes, [](std::string_view n) { return has_scope(n, cfg::kListenerOnly); }); !bad.empty())
    return name_set("These security configs can be dynamically updated only per-listener using the listener prefix",
                    bad);
  for (const auto& [name, value] : changes) {
    if (!value) continue;
    if (std::string err = check_config_value(name, *value); !err.empty())
      return "Invalid value " + *value + " for configuration " + name + ": " + err;
  }
  if (scope == DynamicScope::kClusterDefault) {
    auto bad = names_where(changes, [](std::string_view n) {
      return has_scope(n, cfg::kDynamicBroker) || !listener_base(n).empty();
    });
    if (!bad.empty()) return name_set("Cannot update these configs at default cluster level, broker id must be specified", bad);
  }
  return {};
}

void DynamicBrokerConfig::alter(DynamicScope scope, Changes changes, bool replace,
                                std::function<void(storage::Status)> done) {
  if (replace) {
    for (const auto& [name, value] : this->values(scope))
      if (!changes.contains(name)) changes[name] = std::nullopt;
  }
  std::vector<storage::MetaStore::Mutation> batch;
  for (const auto& [name, value] : changes) batch.push_back({key(scope, name), value.value_or(""), !value});
  meta_.write(std::move(batch), [this, scope, changes = std::move(changes), done = std::move(done)](storage::Status s) {
    if (s.ok()) {
      std::unique_lock lock(mu_);
      auto& values = scope_values(scope);
      for (const auto& [name, value] : changes) {
        if (value) {
          values[name] = *value;
        } else {
          values.erase(name);
        }
      }
    }
    done(std::move(s));
  });
}

int64_t DynamicBrokerConfig::effective_int(const cfg::Row& key, const BrokerConfig& config) const {
  {
    std::shared_lock lock(mu_);
    for (const auto* values : {&broker_, &cluster_default_}) {
      auto it = values->find(std::string(key.name));
      if (it == values->end()) continue;
      if (const std::optional<int64_t> v = parse_integer(it->second)) return *v;
    }
  }
  return cfg::integer_value(key, config);
}

std::map<std::string, std::string> DynamicBrokerConfig::values(DynamicScope scope) const {
  std::shared_lock lock(mu_);
  return scope == DynamicScope::kBroker ? broker_ : cluster_default_;
}

}  // namespace rokka::broker
