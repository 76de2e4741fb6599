#include "protocol/messages/init_producer_id.h"

#include "broker/coordinators.h"
#include "broker/net/async.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/meta/producer_ids.h"
#include "coordinator/transaction_service.h"

namespace rokka::broker {

using protocol::ErrorCode;

namespace {

// A transactional producer: its id and epoch come from the transaction coordinator,
// which fences the id's previous producer (KIP-98) or bumps its epoch (KIP-360, v3+).
boost::asio::awaitable<HandlerResult> init_transactional(RequestContext& ctx,
                                                         const protocol::InitProducerIdRequest& req) {
  coordinator::InitProducerIdArgs args;
  args.transactional_id = std::string(*req.transactional_id);
  args.transaction_timeout_ms = req.transaction_timeout_ms;
  args.producer_id = req.producer_id;
  args.producer_epoch = req.producer_epoch;
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  const coordinator::InitProducerIdResult r = co_await coord->txns().init_producer_id(std::move(args));
  protocol::InitProducerIdResponse resp;
  resp.error_code = to_kafka(r.error, ctx.version() >= 4);
  if (r.error == coordinator::TxnError::kNone) {
    resp.producer_id = r.producer_id;
    resp.producer_epoch = r.producer_epoch;
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace

// Idempotent producers get a fresh producer id with epoch 0 (as Kafka does for a
// producer without a transactional id, also when it passes its old id in v3+);
// transactional ones go to the transaction coordinator.
boost::asio::awaitable<HandlerResult> handle_init_producer_id(RequestContext& ctx, protocol::InitProducerIdRequest& req) {
  protocol::InitProducerIdResponse resp;
  if (req.transactional_id && !req.transactional_id->empty()) {
    if (!authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, *req.transactional_id)) {
      resp.error_code = ErrorCode::kTransactionalIdAuthorizationFailed;
      co_return make_response(resp, ctx.version());
    }
    if (!coordinates(*ctx.services, *req.transactional_id)) {
      resp.error_code = ErrorCode::kNotCoordinator;
      resp.producer_id = -1;
      resp.producer_epoch = -1;
      co_return make_response(resp, ctx.version());
    }
    HandlerResult r = co_await init_transactional(ctx, req);
    co_return r;
  }
  // An idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
  const Authorizer& authorizer = ctx.services->authorizer;
  if (!authorized_cluster(ctx, AclOperation::kIdempotentWrite) &&
      !authorizer.allowed_on_any(ctx.principal, acl_host(ctx), AclOperation::kWrite, ResourceType::kTopic)) {
    resp.error_code = ErrorCode::kClusterAuthorizationFailed;
    co_return make_response(resp, ctx.version());
  }
  auto id = co_await await_callback<storage::Result<int64_t>>(
      [&](std::function<void(storage::Result<int64_t>)> done) { ctx.services->producer_ids.allocate(done); });
  if (id.ok()) {
    resp.producer_id = *id;
    resp.producer_epoch = 0;
  } else {
    resp.error_code = ErrorCode::kKafkaStorageError;
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
