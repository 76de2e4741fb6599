// CreateAcls (30), DescribeAcls (29), DeleteAcls (31): the Authorizer's bindings over
// the wire. Without an authorizer all three answer SECURITY_DISABLED, as Kafka does;
// reading ACLs needs Cluster DESCRIBE, changing them Cluster ALTER.
#include <map>
#include <tuple>

#include "broker/net/async.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;

constexpr std::string_view kNoAuthorizer = "No Authorizer is configured on the broker";

std::optional<std::string> owned(std::optional<std::string_view> s) {
  return s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
}

// Describe and delete filters have the same fields.
template <typename WireFilter>
AclFilter to_filter(const WireFilter& w) {
  return AclFilter{to_resource_type(w.resource_type_filter), owned(w.resource_name_filter),
                   to_pattern_type(w.pattern_type_filter),   owned(w.principal_filter),
                   owned(w.host_filter),                     to_acl_operation(w.operation),
                   to_acl_permission(w.permission_type)};
}

// Why the ACL APIs cannot be used by this request at all, or kNone.
ErrorCode acl_api_error(const RequestContext& ctx, AclOperation needed) {
  if (!ctx.services->authorizer.enabled()) return ErrorCode::kSecurityDisabled;
  if (!authorized_cluster(ctx, needed)) return ErrorCode::kClusterAuthorizationFailed;
  return ErrorCode::kNone;
}

std::optional<std::string> api_error_message(ErrorCode e) {
  if (e == ErrorCode::kSecurityDisabled) return std::string(kNoAuthorizer);
  return std::nullopt;
}

// A creation result or filter result that failed.
template <typename Out>
void set_error(Out& out, ErrorCode e, std::optional<std::string> message) {
  out.error_code = e;
  out.error_message = std::move(message);
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_describe_acls(RequestContext& ctx, protocol::DescribeAclsRequest& req) {
  protocol::DescribeAclsResponse resp;
  const AclFilter filter = to_filter(req);
  ErrorCode error = acl_api_error(ctx, AclOperation::kDescribe);
  std::optional<std::string> message = api_error_message(error);
  if (error == ErrorCode::kNone) {
    if (auto why = validate_filter(filter)) {
      error = ErrorCode::kInvalidRequest;
      message = std::move(why);
    }
  }
  resp.error_code = error;
  resp.error_message = std::move(message);
  if (error != ErrorCode::kNone) co_return make_response(resp, ctx.version());

  // describe() returns bindings ordered by resource first: group consecutive ones.
  for (const AclBinding& b : ctx.services->authorizer.describe(filter)) {
    if (resp.resources.empty() || resp.resources.back().resource_type != static_cast<int8_t>(b.resource_type) ||
        resp.resources.back().resource_name != b.resource_name ||
        resp.resources.back().pattern_type != static_cast<int8_t>(b.pattern_type)) {
      auto& r = resp.resources.emplace_back();
      r.resource_type = static_cast<int8_t>(b.resource_type);
      r.resource_name = b.resource_name;
      r.pattern_type = static_cast<int8_t>(b.pattern_type);
    }
    resp.resources.back().acls.push_back(
        {b.principal, b.host, static_cast<int8_t>(b.operation), static_cast<int8_t>(b.permission)});
  }
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_create_acls(RequestContext& ctx, protocol::CreateAclsRequest& req) {
  protocol::CreateAclsResponse resp;
  const ErrorCode api_error = acl_api_error(ctx, AclOperation::kAlter);
  std::vector<AclBinding> valid;
  std::vector<size_t> valid_index;
  for (const auto& c : req.creations) {
    auto& out = resp.results.emplace_back();
    if (api_error != ErrorCode::kNone) {
      set_error(out, api_error, api_error_message(api_error));
      continue;
    }
    AclBinding b{to_resource_type(c.resource_type), std::string(c.resource_name), to_pattern_type(c.resource_pattern_type),
                 std::string(c.principal), std::string(c.host), to_acl_operation(c.operation),
                 to_acl_permission(c.permission_type)};
    if (auto why = validate_binding(b)) {
      set_error(out, ErrorCode::kInvalidRequest, std::move(why));
      continue;
    }
    valid.push_back(std::move(b));
    valid_index.push_back(resp.results.size() - 1);
  }
  if (!valid.empty()) {
    Authorizer& authorizer = ctx.services->authorizer;
    const storage::Status s = co_await await_callback<storage::Status>(
        [&](std::function<void(storage::Status)> done) { authorizer.create(std::move(valid), std::move(done)); });
    if (!s.ok()) {
      for (size_t i : valid_index) set_error(resp.results[i], to_kafka(s), s.message());
    }
  }
  co_return make_response(resp, ctx.version());
}

boost::asio::awaitable<HandlerResult> handle_delete_acls(RequestContext& ctx, protocol::DeleteAclsRequest& req) {
  protocol::DeleteAclsResponse resp;
  const ErrorCode api_error = acl_api_error(ctx, AclOperation::kAlter);
  std::vector<AclFilter> valid;
  std::vector<size_t> valid_index;
  for (const auto& f : req.filters) {
    auto& out = resp.filter_results.emplace_back();
    AclFilter filter = to_filter(f);
    if (api_error != ErrorCode::kNone) {
      set_error(out, api_error, api_error_message(api_error));
    } else if (auto why = validate_filter(filter)) {
      set_error(out, ErrorCode::kInvalidRequest, std::move(why));
    } else {
      valid.push_back(std::move(filter));
      valid_index.push_back(resp.filter_results.size() - 1);
    }
  }
  if (!valid.empty()) {
    Authorizer& authorizer = ctx.services->authorizer;
    auto removed = co_await await_callback<storage::Result<std::vector<std::vector<AclBinding>>>>(
        [&](Authorizer::RemoveCallback done) { authorizer.remove(std::move(valid), std::move(done)); });
    for (size_t i = 0; i < valid_index.size(); ++i) {
      auto& out = resp.filter_results[valid_index[i]];
      if (!removed.ok()) {
        set_error(out, to_kafka(removed.status()), removed.status().message());
        continue;
      }
      for (const AclBinding& b : removed.value()[i]) {
        auto& m = out.matching_acls.emplace_back();
        m.resource_type = static_cast<int8_t>(b.resource_type);
        m.resource_name = b.resource_name;
        m.pattern_type = static_cast<int8_t>(b.pattern_type);
        m.principal = b.principal;
        m.host = b.host;
        m.operation = static_cast<int8_t>(b.operation);
        m.permission_type = static_cast<int8_t>(b.permission);
      }
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
