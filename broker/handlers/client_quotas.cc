// DescribeClientQuotas (48) and AlterClientQuotas (49): the broker's client quotas
// (broker/meta/client_quotas.h) over the wire, with the checks and messages of Kafka's
// controller. Describing needs Cluster DESCRIBE_CONFIGS, altering Cluster
// ALTER_CONFIGS, as in Kafka. An alteration is durable before its response leaves; its
// valid entries are one atomic write, an invalid one changes nothing.
#include <set>
#include <string>
#include <vector>

#include "broker/net/async.h"
#include "broker/meta/client_quotas.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/client_quotas.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;

constexpr std::string_view kClusterAuthorizationFailed = "Cluster authorization failed.";

std::string describe_entity(const QuotaEntity& entity) {
  std::string out = "ClientQuotaEntity(entries={";
  bool first = true;
  for (const auto& [type, name] : entity) {
    if (!first) out += ", ";
    first = false;
    out += type + "=" + (name ? *name : "null");
  }
  return out + "})";
}

}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // GCC 12 false positive with coroutine frames

boost::asio::awaitable<HandlerResult> handle_describe_client_quotas(RequestContext& ctx, protocol::DescribeClientQuotasRequest& req) {
  protocol::DescribeClientQuotasResponse resp;
  auto fail = [&](ErrorCode e, std::string message) {
    resp.error_code = e;
    resp.error_message = std::move(message);
    return make_response(resp, ctx.version());
  };
  if (!authorized_cluster(ctx, AclOperation::kDescribeConfigs))
    co_return fail(ErrorCode::kClusterAuthorizationFailed, std::string(kClusterAuthorizationFailed));

  std::vector<QuotaFilterComponent> filter;
  for (const auto& c : req.components) {
    QuotaFilterComponent f;
    f.entity_type = std::string(c.entity_type);
    switch (c.match_type) {
      case protocol::DescribeClientQuotasRequest::kMatchExact: f.match = QuotaFilterComponent::Match::kExact; break;
      case protocol::DescribeClientQuotasRequest::kMatchDefault: f.match = QuotaFilterComponent::Match::kDefault; break;
      case protocol::DescribeClientQuotasRequest::kMatchSpecified:
        f.match = QuotaFilterComponent::Match::kSpecified;
        break;
      default:
        co_return fail(ErrorCode::kInvalidRequest, "Unknown match type " + std::to_string(c.match_type));
    }
    if (c.match) f.name = std::string(*c.match);
    filter.push_back(std::move(f));
  }
  if (QuotaError e = validate_filter(filter); !e.ok()) co_return fail(e.code, e.message);

  auto& entries = resp.entries.emplace();
  for (const auto& [entity, values] : ctx.services->client_quotas.describe()) {
    if (!filter_matches(entity, filter, req.strict)) continue;
    auto& out = entries.emplace_back();
    for (const auto& [type, name] : entity) out.entity.push_back({type, name});
    for (const auto& [key, value] : values) out.values.push_back({key, value});
  }
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_alter_client_quotas(RequestContext& ctx, protocol::AlterClientQuotasRequest& req) {
  const bool allowed = authorized_cluster(ctx, AclOperation::kAlterConfigs);

  std::vector<QuotaError> outcome(req.entries.size());
  std::vector<QuotaAlteration> valid;
  std::vector<size_t> valid_index;  // entries' positions, for a failed write
  std::set<QuotaEntity> seen;
  for (size_t i = 0; i < req.entries.size(); ++i) {
    const auto& e = req.entries[i];
    if (!allowed) {
      outcome[i] = {ErrorCode::kClusterAuthorizationFailed, std::string(kClusterAuthorizationFailed)};
      continue;
    }
    QuotaAlteration a;
    bool duplicate_type = false;
    for (const auto& part : e.entity) {
      auto name = part.entity_name ? std::optional<std::string>(std::string(*part.entity_name)) : std::nullopt;
      duplicate_type |= !a.entity.emplace(std::string(part.entity_type), std::move(name)).second;
    }
    if (duplicate_type) {
      outcome[i] = {ErrorCode::kInvalidRequest, "Invalid client quota entity, duplicate entity entry"};
      continue;
    }
    for (const auto& op : e.ops)
      a.ops.emplace_back(std::string(op.key), op.remove ? std::nullopt : std::optional<double>(op.value));
    if (!seen.insert(a.entity).second) {
      outcome[i] = {ErrorCode::kInvalidRequest, "Ignoring duplicate entity " + describe_entity(a.entity)};
      continue;
    }
    if (QuotaError err = validate_alteration(a); !err.ok()) {
      outcome[i] = std::move(err);
      continue;
    }
    valid.push_back(std::move(a));
    valid_index.push_back(i);
  }

  if (!req.validate_only && !valid.empty()) {
    ClientQuotas& quotas = ctx.services->client_quotas;
    const storage::Status s = co_await await_callback<storage::Status>(
        [&](std::function<void(storage::Status)> done) { quotas.alter(std::move(valid), std::move(done)); });
    if (!s.ok())
      for (size_t i : valid_index) outcome[i] = {to_kafka(s), s.message()};
  }

  protocol::AlterClientQuotasResponse resp;
  for (size_t i = 0; i < req.entries.size(); ++i) {
    auto& out = resp.entries.emplace_back();
    out.error_code = outcome[i].code;
    if (!outcome[i].ok()) out.error_message = outcome[i].message;
    for (const auto& part : req.entries[i].entity)
      out.entity.push_back({std::string(part.entity_type),
                            part.entity_name ? std::optional<std::string>(std::string(*part.entity_name)) : std::nullopt});
  }
  co_return make_response(resp, ctx.version());
}
#pragma GCC diagnostic pop

}  // namespace rokka::broker
