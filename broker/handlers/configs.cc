// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs: topic configs are
// dynamic (stored with the topic); broker configs are static (server.properties) except
// Kafka's dynamic broker configs, stored by DynamicBrokerConfig per broker or as the
// cluster-wide default (resource name ""); group configs (Kafka 4's GROUP resources:
// a consumer group's timeouts) are stored by GroupConfigs.
#include <set>
#include <sstream>

#include "broker/config/config_schema.h"
#include "broker/net/async.h"
#include "broker/meta/dynamic_config.h"
#include "broker/meta/group_configs.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/net/listener_security.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace rokka::broker {

using protocol::ErrorCode;

namespace {

constexpr int8_t kTopicResource = 2;
constexpr int8_t kBrokerResource = 4;
constexpr int8_t kBrokerLoggerResource = 8;
constexpr int8_t kGroupResource = 32;
// DescribeConfigs config sources, in Kafka's order of precedence.
constexpr int8_t kDynamicTopicConfig = 1;
constexpr int8_t kDynamicBrokerConfig = 2;
constexpr int8_t kDynamicDefaultBrokerConfig = 3;
constexpr int8_t kStaticBrokerConfig = 4;
constexpr int8_t kDefaultConfig = 5;
constexpr int8_t kGroupConfig = 8;

bool wanted(const std::optional<std::vector<std::string_view>>& keys, std::string_view name) {
  if (!keys) return true;
  for (auto k : *keys)
    if (k == name) return true;
  return false;
}

bool is_this_broker(const Services& svc, std::string_view name) {
  return name.empty() || name == std::to_string(svc.config.broker_id);
}

// The dynamic scope a BROKER resource names: this broker's id, or "" for the cluster
// default; another broker (or a name that is no id) is refused as Kafka does.
std::optional<DynamicScope> broker_scope(const Services& svc, std::string_view name, TopicError* error) {
  if (name.empty()) return DynamicScope::kClusterDefault;
  if (name == std::to_string(svc.config.broker_id)) return DynamicScope::kBroker;
  *error = {ErrorCode::kInvalidRequest, "Unexpected broker id, expected " + std::to_string(svc.config.broker_id) +
                                            " or empty string, but received " + std::string(name)};
  return std::nullopt;
}

// A config resource's authorization (op = DESCRIBE_CONFIGS or ALTER_CONFIGS): a topic's
// or a group's own, the cluster's for broker and broker-logger resources. A failure, or ok.
TopicError config_access(const RequestContext& ctx, int8_t resource_type, std::string_view name, AclOperation op) {
  if (resource_type == kTopicResource) {
    if (!authorized(ctx, op, ResourceType::kTopic, name))
      return {ErrorCode::kTopicAuthorizationFailed, "not authorized for the topic's configs"};
  } else if (resource_type == kGroupResource) {
    if (!authorized_group(ctx, op, name))
      return {ErrorCode::kGroupAuthorizationFailed, "not authorized for the group's configs"};
  } else if (!authorized_cluster(ctx, op)) {
    return {ErrorCode::kClusterAuthorizationFailed, "not authorized for the cluster's configs"};
  }
  return {};
}

// Marks each resource the request may not alter (unless already failed).
template <typename Resource>
void check_alter_access(const RequestContext& ctx, const std::vector<Resource>& resources,
                        std::vector<TopicError>& pre) {
  for (size_t i = 0; i < resources.size(); ++i) {
    if (!pre[i].ok()) continue;
    pre[i] = config_access(ctx, resources[i].resource_type, resources[i].resource_name, AclOperation::kAlterConfigs);
  }
}

using DescribeResult = protocol::DescribeConfigsResponse::DescribeConfigsResult;
using DescribeEntry = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;

void describe_topic(const Services& svc, const protocol::DescribeConfigsRequest& req,
                    const protocol::DescribeConfigsRequest::DescribeConfigsResource& res, int16_t v,
                    DescribeResult& out) {
  const TopicPtr t = svc.topics.find(res.resource_name);
  if (!t) {
    out.error_code = ErrorCode::kUnknownTopicOrPartition;
    out.error_message = "no topic '" + std::string(res.resource_name) + "'";
    return;
  }
  for (auto& [name, value, is_default] : svc.topics.describe_configs(*t)) {
    if (!wanted(res.configuration_keys, name)) continue;
    DescribeEntry e;
    e.name = name;
    e.value = value;
    e.is_default = is_default;
    e.config_source = is_default ? kDefaultConfig : kDynamicTopicConfig;
    if (const cfg::Row* k = cfg::find_topic_key(name)) {
      e.config_type = static_cast<int8_t>(k->type);
      if (req.include_documentation && v >= 3) e.documentation = std::string(k->doc);
    }
    if (req.include_synonyms && !is_default) e.synonyms.push_back({name, value, kDynamicTopicConfig});
    out.configs.push_back(std::move(e));
  }
}

using Synonym = protocol::DescribeConfigsResponse::DescribeConfigsSynonym;

// One broker config as DescribeConfigs shows it: `chain` holds its values from the
// highest precedence down (the first is the effective one).
DescribeEntry broker_entry(const protocol::DescribeConfigsRequest& req, int16_t v, std::string name,
                           std::vector<Synonym> chain, std::string_view doc) {
  DescribeEntry e;
  const bool sensitive = DynamicBrokerConfig::is_sensitive(name);
  if (sensitive)
    for (auto& syn : chain) syn.value = std::nullopt;
  e.value = chain.front().value;
  e.config_source = chain.front().source;
  e.is_default = e.config_source == kDefaultConfig;
  e.is_sensitive = sensitive;
  e.read_only = !DynamicBrokerConfig::is_dynamic(name);
  if (req.include_documentation && v >= 3 && !doc.empty()) e.documentation = std::string(doc);
  if (req.include_synonyms) e.synonyms = std::move(chain);
  e.name = std::move(name);
  return e;
}

// This broker: every static config (with any dynamic value over it), then the dynamic
// configs Rokka's table does not know. The cluster default: its dynamic values only.
void describe_broker(const Services& svc, const protocol::DescribeConfigsRequest& req,
                     const protocol::DescribeConfigsRequest::DescribeConfigsResource& res, DynamicScope scope,
                     int16_t v, DescribeResult& out) {
  const auto per_broker = svc.dynamic_config.values(DynamicScope::kBroker);
  const auto defaults = svc.dynamic_config.values(DynamicScope::kClusterDefault);
  auto dynamic_chain = [&](const std::string& name) {
    std::vector<Synonym> chain;
    if (scope == DynamicScope::kBroker)
      if (auto it = per_broker.find(name); it != per_broker.end())
        chain.push_back({name, it->second, kDynamicBrokerConfig});
    if (auto it = defaults.find(name); it != defaults.end())
      chain.push_back({name, it->second, kDynamicDefaultBrokerConfig});
    return chain;
  };
  std::set<std::string> shown;
  if (scope == DynamicScope::kBroker) {
    for (auto& cv : config_values(svc.config)) {
      if (!wanted(res.configuration_keys, cv.name)) continue;
      std::vector<Synonym> chain = dynamic_chain(cv.name);
      chain.push_back({cv.name, cv.value, cv.given ? kStaticBrokerConfig : kDefaultConfig});
      shown.insert(cv.name);
      out.configs.push_back(broker_entry(req, v, cv.name, std::move(chain), cv.doc));
    }
    // The other TLS and SASL settings given (secrets with a null value, as Kafka shows its
    // PASSWORD configs); the table's security keys are among the configs above, given or not.
    for (const auto& [name, value] : svc.config.security_settings) {
      if (shown.contains(name) || !wanted(res.configuration_keys, name)) continue;
      std::vector<Synonym> chain = dynamic_chain(name);
      chain.push_back({name, value, kStaticBrokerConfig});
      shown.insert(name);
      out.configs.push_back(broker_entry(req, v, name, std::move(chain), {}));
    }
  }
  std::set<std::string> others;
  for (const auto* values : {&per_broker, &defaults})
    for (const auto& [name, value] : *values)
      if (!shown.contains(name) && wanted(res.configuration_keys, name)) others.insert(name);
  for (const auto& name : others) {
    std::vector<Synonym> chain = dynamic_chain(name);
    if (!chain.empty()) out.configs.push_back(broker_entry(req, v, name, std::move(chain), {}));
  }
}

// A group: every group config, its own value or else the broker's (a default).
void describe_group(const Services& svc, const protocol::DescribeConfigsRequest& req,
                    const protocol::DescribeConfigsRequest::DescribeConfigsResource& res, int16_t v,
                    DescribeResult& out) {
  const std::map<std::string, std::string> own = svc.group_configs.values(std::string(res.resource_name));
  for (const cfg::Row& k : cfg::group_keys()) {
    if (!wanted(res.configuration_keys, k.name)) continue;
    DescribeEntry e;
    e.name = std::string(k.name);
    auto it = own.find(e.name);
    e.value = it != own.end() ? it->second : std::to_string(svc.group_configs.broker_default(k));
    e.is_default = it == own.end();
    e.config_source = e.is_default ? kDefaultConfig : kGroupConfig;
    e.config_type = static_cast<int8_t>(k.type);
    if (req.include_documentation && v >= 3) e.documentation = std::string(k.doc);
    if (req.include_synonyms && !e.is_default) e.synonyms.push_back({e.name, e.value, kGroupConfig});
    out.configs.push_back(std::move(e));
  }
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_describe_configs(RequestContext& ctx, protocol::DescribeConfigsRequest& req) {
  const Services& svc = *ctx.services;
  protocol::DescribeConfigsResponse resp;
  for (const auto& res : req.resources) {
    auto& out = resp.results.emplace_back();
    out.resource_type = res.resource_type;
    out.resource_name = std::string(res.resource_name);
    if (TopicError denied = config_access(ctx, res.resource_type, res.resource_name, AclOperation::kDescribeConfigs);
        !denied.ok()) {
      out.error_code = denied.code;
      out.error_message = std::move(denied.message);
    } else if (res.resource_type == kTopicResource) {
      describe_topic(svc, req, res, ctx.version(), out);
    } else if (res.resource_type == kGroupResource) {
      describe_group(svc, req, res, ctx.version(), out);
    } else if (res.resource_type == kBrokerResource) {
      TopicError error;
      if (auto scope = broker_scope(svc, res.resource_name, &error)) {
        describe_broker(svc, req, res, *scope, ctx.version(), out);
      } else {
        out.error_code = error.code;
        out.error_message = std::move(error.message);
      }
    } else if (res.resource_type == kBrokerLoggerResource && is_this_broker(svc, res.resource_name)) {
      // No per-logger levels to show; the log level is the broker config rokka.log.level.
    } else {
      out.error_code = ErrorCode::kInvalidRequest;
      out.error_message = "unsupported resource type " + std::to_string(res.resource_type) + " or unknown broker";
    }
  }
  co_return make_response(resp, ctx.version());
}

namespace {

using Changes = std::map<std::string, std::optional<std::string>>;

// A scope's dynamic values after `changes`: replace (AlterConfigs) keeps only the
// changes' non-null values, merge (IncrementalAlterConfigs) applies them to `values`.
std::map<std::string, std::string> replace_or_merge(std::map<std::string, std::string> values, const Changes& changes,
                                                    bool replace) {
  if (replace) values.clear();
  for (const auto& [name, value] : changes) {
    if (value) {
      values[name] = *value;
    } else {
      values.erase(name);
    }
  }
  return values;
}

// The keys a change to `scope` names: its own, and for AlterConfigs (which replaces the
// scope's values) every key it removes by leaving it out.
std::vector<std::string> changed_keys(const Services& svc, DynamicScope scope, const Changes& changes,
                                      bool incremental) {
  std::vector<std::string> out;
  for (const auto& [name, value] : changes) out.push_back(name);
  if (!incremental)
    for (const auto& [name, value] : svc.dynamic_config.values(scope))
      if (!changes.contains(name)) out.push_back(name);
  return out;
}

// A change to a BROKER resource: the named scope, Kafka's validation, then (unless
// validate_only) stored durably. AlterConfigs (incremental=false) replaces the scope's values.
void alter_broker(Services& svc, std::string_view name, Changes changes, bool incremental, bool validate_only,
                  std::function<void(TopicError)> done) {
  TopicError error;
  const auto scope = broker_scope(svc, name, &error);
  if (!scope) return done(std::move(error));
  if (std::string err = DynamicBrokerConfig::validate(*scope, changes); !err.empty())
    return done({ErrorCode::kInvalidRequest, std::move(err)});
  if (*scope == DynamicScope::kBroker) {
    // As Kafka validates a reconfigured SslFactory: the listeners must build with the change.
    std::map<std::string, std::string> next = replace_or_merge(svc.dynamic_config.values(*scope), changes, !incremental);
    if (std::string err = svc.listener_security.validate(next, changed_keys(svc, *scope, changes, incremental)); !err.empty())
      return done({ErrorCode::kInvalidRequest, "Invalid config value for resource ConfigResource(type=BROKER, name='" +
                                                   std::string(name) + "'): " + err});
  }
  if (validate_only) return done({});
  svc.dynamic_config.alter(*scope, std::move(changes), !incremental, [done](storage::Status s) {
    done(s.ok() ? TopicError{} : TopicError{ErrorCode::kKafkaStorageError, s.to_string()});
  });
}

// A change to a GROUP resource: Kafka's validation, then (unless validate_only) stored.
void alter_group(Services& svc, std::string_view name, Changes changes, bool incremental, bool validate_only,
                 std::function<void(TopicError)> done) {
  if (name.empty()) return done({ErrorCode::kInvalidRequest, "Group name can't be empty"});
  const std::string group(name);
  if (std::string err = svc.group_configs.validate(group, changes, !incremental); !err.empty())
    return done({ErrorCode::kInvalidConfig, std::move(err)});
  if (validate_only) return done({});
  svc.group_configs.alter(group, std::move(changes), !incremental, [done](storage::Status s) {
    done(s.ok() ? TopicError{} : TopicError{ErrorCode::kKafkaStorageError, s.to_string()});
  });
}

// Applies topic config changes (topic registry), broker config changes (dynamic config)
// and group config changes (group configs).
template <typename Resource, typename Out>
boost::asio::awaitable<void> alter_all(Services& svc, const std::vector<Resource>& resources,
                                       std::vector<Changes> changes, std::vector<TopicError> pre, bool incremental,
                                       bool validate_only, std::vector<Out>& out) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < resources.size(); ++i) {
    auto& o = out.emplace_back();
    o.resource_type = resources[i].resource_type;
    o.resource_name = std::string(resources[i].resource_name);
    if (!pre[i].ok()) {
      o.error_code = pre[i].code;
      o.error_message = pre[i].message;
    } else if (resources[i].resource_type == kTopicResource || resources[i].resource_type == kBrokerResource ||
               resources[i].resource_type == kGroupResource) {
      todo.push_back(i);
    } else if (resources[i].resource_type == kBrokerLoggerResource) {
      o.error_code = ErrorCode::kInvalidRequest;
      o.error_message = "Rokka has no per-logger levels: set rokka.log.level and restart";
    } else {
      o.error_code = ErrorCode::kInvalidRequest;
      o.error_message = "unsupported resource type " + std::to_string(resources[i].resource_type);
    }
  }
  std::vector<std::vector<std::string>> named(resources.size());
  for (size_t i : todo) {
    TopicError ignored;
    const auto scope = resources[i].resource_type == kBrokerResource
                           ? broker_scope(svc, resources[i].resource_name, &ignored)
                           : std::nullopt;
    if (scope) named[i] = changed_keys(svc, *scope, changes[i], incremental);
  }
  auto results = co_await await_all<TopicError>(todo.size(), [&](size_t j, std::function<void(TopicError)> done) {
    const size_t i = todo[j];
    if (resources[i].resource_type == kTopicResource) {
      svc.topics.alter_configs(resources[i].resource_name, changes[i], incremental, validate_only, done);
    } else if (resources[i].resource_type == kGroupResource) {
      alter_group(svc, resources[i].resource_name, std::move(changes[i]), incremental, validate_only, done);
    } else {
      alter_broker(svc, resources[i].resource_name, std::move(changes[i]), incremental, validate_only, done);
    }
  });
  std::vector<std::string> broker_keys;  // named by the broker changes stored
  for (size_t j = 0; j < todo.size(); ++j) {
    if (results[j].ok()) {
      if (resources[todo[j]].resource_type == kBrokerResource)
        broker_keys.insert(broker_keys.end(), named[todo[j]].begin(), named[todo[j]].end());
      continue;
    }
    out[todo[j]].error_code = results[j].code;
    out[todo[j]].error_message = results[j].message;
  }
  // Stored: the listeners it changes (or whose key and trust store files were
  // rewritten since they were read) take it for their new connections.
  if (!broker_keys.empty() && !validate_only) svc.listener_security.reload(broker_keys);
}

// APPEND (op 2) or SUBTRACT (op 3) of `value` to the comma-separated list `current`;
// nullopt when the list ends up empty (back to the default).
std::optional<std::string> list_op(const std::string& current, int8_t op, const std::string& value) {
  std::vector<std::string> items;
  std::stringstream ss(current);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) items.push_back(item);
  auto found = std::find(items.begin(), items.end(), value);
  if (op == 2 && found == items.end()) items.push_back(value);
  if (op == 3 && found != items.end()) items.erase(found);
  std::string joined;
  for (const auto& item : items) joined += (joined.empty() ? "" : ",") + item;
  return joined.empty() ? std::nullopt : std::optional<std::string>(joined);
}

// Whether `name` of a resource takes APPEND/SUBTRACT, and its current value there.
bool list_config(const Services& svc, const protocol::IncrementalAlterConfigsRequest::AlterConfigsResource& res,
                 const std::string& name, std::string* current) {
  if (res.resource_type == kTopicResource) {
    const cfg::Row* key = cfg::find_topic_key(name);
    if (key == nullptr || key->type != ConfigType::kList) return false;
    if (const TopicPtr t = svc.topics.find(res.resource_name)) {
      if (auto it = t->configs.find(name); it != t->configs.end()) *current = it->second;
    }
    return true;
  }
  TopicError ignored;
  const auto scope = res.resource_type == kBrokerResource ? broker_scope(svc, res.resource_name, &ignored)
                                                          : std::nullopt;
  if (!scope || !DynamicBrokerConfig::is_list(name)) return false;
  const auto values = svc.dynamic_config.values(*scope);
  if (auto it = values.find(name); it != values.end()) *current = it->second;
  return true;
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_alter_configs(RequestContext& ctx, protocol::AlterConfigsRequest& req) {
  std::vector<Changes> changes;
  std::vector<TopicError> pre(req.resources.size());
  for (const auto& res : req.resources) {
    Changes& c = changes.emplace_back();
    for (const auto& cfg : res.configs) {
      if (cfg.value) c[std::string(cfg.name)] = std::string(*cfg.value);
    }
  }
  check_alter_access(ctx, req.resources, pre);
  protocol::AlterConfigsResponse resp;
  co_await alter_all(*ctx.services, req.resources, std::move(changes), std::move(pre), /*incremental=*/false,
                     req.validate_only, resp.responses);
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_incremental_alter_configs(RequestContext& ctx, protocol::IncrementalAlterConfigsRequest& req) {
  Services& svc = *ctx.services;
  std::vector<Changes> changes;
  std::vector<TopicError> pre(req.resources.size());
  for (size_t i = 0; i < req.resources.size(); ++i) {
    const auto& res = req.resources[i];
    Changes& c = changes.emplace_back();
    for (const auto& cfg : res.configs) {
      const std::string name(cfg.name);
      switch (cfg.config_operation) {
        case 0:  // SET
          if (!cfg.value) {
            pre[i] = {ErrorCode::kInvalidRequest, "null value to set for " + name};
          } else {
            c[name] = std::string(*cfg.value);
          }
          break;
        case 1:  // DELETE (back to the default)
          c[name] = std::nullopt;
          break;
        case 2:    // APPEND
        case 3: {  // SUBTRACT: list-typed configs only
          std::string current;
          if (!cfg.value || !list_config(svc, res, name, &current)) {
            pre[i] = {ErrorCode::kInvalidConfig, "append/subtract needs a list config and a value: " + name};
            break;
          }
          c[name] = list_op(current, cfg.config_operation, std::string(*cfg.value));
          break;
        }
        default:
          pre[i] = {ErrorCode::kInvalidRequest, "unknown config operation " + std::to_string(cfg.config_operation)};
      }
    }
  }
  check_alter_access(ctx, req.resources, pre);
  protocol::IncrementalAlterConfigsResponse resp;
  co_await alter_all(svc, req.resources, std::move(changes), std::move(pre), /*incremental=*/true, req.validate_only,
                     resp.responses);
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
