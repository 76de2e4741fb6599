// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs: topic configs are
// dynamic (stored with the topic); broker configs are static (server.properties)
// and can be described but not altered.
#include <sstream>

#include "broker/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace rokka::broker {

using protocol::ErrorCode;

namespace {

constexpr int8_t kTopicResource = 2;
constexpr int8_t kBrokerResource = 4;
constexpr int8_t kBrokerLoggerResource = 8;
// DescribeConfigs config sources.
constexpr int8_t kDynamicTopicConfig = 1;
constexpr int8_t kStaticBrokerConfig = 5;
constexpr int8_t kDefaultConfig = 6;

bool wanted(const std::optional<std::vector<std::string_view>>& keys, std::string_view name) {
  if (!keys) return true;
  for (auto k : *keys)
    if (k == name) return true;
  return false;
}

bool is_this_broker(const Services& svc, std::string_view name) {
  return name.empty() || name == std::to_string(svc.config.broker_id);
}

// A config resource's authorization (op = DESCRIBE_CONFIGS or ALTER_CONFIGS): a topic's
// own, the cluster's for broker and broker-logger resources. A failure, or ok.
TopicError config_access(const RequestContext& ctx, int8_t resource_type, std::string_view name, AclOperation op) {
  if (resource_type == kTopicResource) {
    if (!authorized(ctx, op, ResourceType::kTopic, name))
      return {ErrorCode::kTopicAuthorizationFailed, "not authorized for the topic's configs"};
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
  const TopicPtr t = svc.topics->find(res.resource_name);
  if (!t) {
    out.error_code = code(ErrorCode::kUnknownTopicOrPartition);
    out.error_message = "no topic '" + std::string(res.resource_name) + "'";
    return;
  }
  for (auto& [name, value, is_default] : svc.topics->describe_configs(*t)) {
    if (!wanted(res.configuration_keys, name)) continue;
    DescribeEntry e;
    e.name = name;
    e.value = value;
    e.is_default = is_default;
    e.config_source = is_default ? kDefaultConfig : kDynamicTopicConfig;
    if (const TopicConfigKey* k = find_topic_config_key(name)) {
      e.config_type = static_cast<int8_t>(k->type);
      if (req.include_documentation && v >= 3) e.documentation = std::string(k->doc);
    }
    if (req.include_synonyms && !is_default) e.synonyms.push_back({name, value, kDynamicTopicConfig});
    out.configs.push_back(std::move(e));
  }
}

void describe_broker(const Services& svc, const protocol::DescribeConfigsRequest::DescribeConfigsResource& res,
                     DescribeResult& out) {
  std::istringstream in(describe_config(svc.config));
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    std::string name = line.substr(0, eq);
    if (!wanted(res.configuration_keys, name)) continue;
    DescribeEntry e;
    e.name = std::move(name);
    e.value = line.substr(eq + 1);
    e.read_only = true;
    e.config_source = kStaticBrokerConfig;
    out.configs.push_back(std::move(e));
  }
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_describe_configs(RequestContext ctx) {
  protocol::DescribeConfigsRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("DescribeConfigsRequest");
  const Services& svc = *ctx.services;
  protocol::DescribeConfigsResponse resp;
  for (const auto& res : req.resources) {
    auto& out = resp.results.emplace_back();
    out.resource_type = res.resource_type;
    out.resource_name = std::string(res.resource_name);
    if (TopicError denied = config_access(ctx, res.resource_type, res.resource_name, AclOperation::kDescribeConfigs);
        !denied.ok()) {
      out.error_code = code(denied.code);
      out.error_message = std::move(denied.message);
    } else if (res.resource_type == kTopicResource) {
      describe_topic(svc, req, res, ctx.version(), out);
    } else if (res.resource_type == kBrokerResource && is_this_broker(svc, res.resource_name)) {
      describe_broker(svc, res, out);
    } else if (res.resource_type == kBrokerLoggerResource && is_this_broker(svc, res.resource_name)) {
      // No per-logger levels to show; the log level is the broker config rokka.log.level.
    } else {
      out.error_code = code(ErrorCode::kInvalidRequest);
      out.error_message = "unsupported resource type " + std::to_string(res.resource_type) + " or unknown broker";
    }
  }
  co_return make_response(resp, ctx.version());
}

namespace {

using Changes = std::map<std::string, std::optional<std::string>>;

// Applies topic config changes; broker resources answer as static configs do.
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
      o.error_code = code(pre[i].code);
      o.error_message = pre[i].message;
    } else if (resources[i].resource_type == kTopicResource) {
      todo.push_back(i);
    } else if (resources[i].resource_type == kBrokerResource || resources[i].resource_type == kBrokerLoggerResource) {
      o.error_code = code(ErrorCode::kInvalidRequest);
      o.error_message = "broker configs are static: set them in server.properties and restart";
    } else {
      o.error_code = code(ErrorCode::kInvalidRequest);
      o.error_message = "unsupported resource type " + std::to_string(resources[i].resource_type);
    }
  }
  auto results = co_await await_all<TopicError>(todo.size(), [&](size_t j, std::function<void(TopicError)> done) {
    const size_t i = todo[j];
    svc.topics->alter_configs(resources[i].resource_name, changes[i], incremental, validate_only, done);
  });
  for (size_t j = 0; j < todo.size(); ++j) {
    if (results[j].ok()) continue;
    out[todo[j]].error_code = code(results[j].code);
    out[todo[j]].error_message = results[j].message;
  }
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_alter_configs(RequestContext ctx) {
  protocol::AlterConfigsRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("AlterConfigsRequest");
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

boost::asio::awaitable<HandlerResult> handle_incremental_alter_configs(RequestContext ctx) {
  protocol::IncrementalAlterConfigsRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("IncrementalAlterConfigsRequest");
  Services& svc = *ctx.services;
  std::vector<Changes> changes;
  std::vector<TopicError> pre(req.resources.size());
  for (size_t i = 0; i < req.resources.size(); ++i) {
    const auto& res = req.resources[i];
    Changes& c = changes.emplace_back();
    const TopicPtr t = res.resource_type == kTopicResource ? svc.topics->find(res.resource_name) : nullptr;
    for (const auto& cfg : res.configs) {
      const std::string name(cfg.name);
      const TopicConfigKey* key = find_topic_config_key(name);
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
          if (key == nullptr || key->type != ConfigType::kList || !cfg.value) {
            pre[i] = {ErrorCode::kInvalidConfig, "append/subtract needs a list config and a value: " + name};
            break;
          }
          std::vector<std::string> items;
          std::string current;
          if (t) {
            auto it = t->configs.find(name);
            if (it != t->configs.end()) current = it->second;
          }
          std::stringstream ss(current);
          for (std::string item; std::getline(ss, item, ',');)
            if (!item.empty()) items.push_back(item);
          const std::string value(*cfg.value);
          auto found = std::find(items.begin(), items.end(), value);
          if (cfg.config_operation == 2 && found == items.end()) items.push_back(value);
          if (cfg.config_operation == 3 && found != items.end()) items.erase(found);
          std::string joined;
          for (const auto& item : items) joined += (joined.empty() ? "" : ",") + item;
          c[name] = joined.empty() ? std::nullopt : std::optional<std::string>(joined);
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
