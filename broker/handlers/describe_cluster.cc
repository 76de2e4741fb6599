#include "protocol/messages/describe_cluster.h"

#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"

namespace rokka::broker {

boost::asio::awaitable<HandlerResult> handle_describe_cluster(RequestContext& ctx, protocol::DescribeClusterRequest& req) {
  Services& svc = *ctx.services;
  protocol::DescribeClusterResponse resp;
  resp.endpoint_type = req.endpoint_type;
  if (ctx.version() >= 1 && req.endpoint_type != 1) {  // 1 = brokers; 2 = controllers (KRaft only)
    resp.error_code = protocol::ErrorCode::kInvalidRequest;
    resp.error_message = "only broker endpoints (type 1) are served";
  }
  resp.cluster_id = svc.cluster_id;
  resp.controller_id = controller_id(svc);
  // The live brokers. One that lost its lease is gone from the cluster's view, not listed
  // as fenced: include_fenced_brokers (v2+) adds nothing.
  for (const BrokerAddress& b : broker_addresses(ctx)) resp.brokers.push_back({b.id, b.host, b.port, b.rack, false});
  if (req.include_cluster_authorized_operations)
    resp.cluster_authorized_operations =
        authorized_operations(ctx, kAllClusterOperations, ResourceType::kCluster, kClusterResourceName);
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
