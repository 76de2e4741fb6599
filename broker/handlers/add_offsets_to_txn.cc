#include "protocol/messages/add_offsets_to_txn.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/transaction_service.h"

namespace rokka::broker {

// Adds a consumer group to the producer's transaction, before TxnOffsetCommit.
boost::asio::awaitable<HandlerResult> handle_add_offsets_to_txn(RequestContext& ctx, protocol::AddOffsetsToTxnRequest& req) {
  if (!authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, req.transactional_id) ||
      !authorized_group(ctx, AclOperation::kRead, req.group_id)) {
    protocol::AddOffsetsToTxnResponse denied;
    const bool txn_ok = authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, req.transactional_id);
    denied.error_code = txn_ok ? protocol::ErrorCode::kGroupAuthorizationFailed
                                    : protocol::ErrorCode::kTransactionalIdAuthorizationFailed;
    co_return make_response(denied, ctx.version());
  }
  if (!coordinates(*ctx.services, req.transactional_id)) {
    protocol::AddOffsetsToTxnResponse elsewhere;
    elsewhere.error_code = protocol::ErrorCode::kNotCoordinator;
    co_return make_response(elsewhere, ctx.version());
  }
  coordinator::ProducerRef producer{std::string(req.transactional_id), req.producer_id, req.producer_epoch};
  std::string group_id(req.group_id);
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  const coordinator::TxnError e = co_await coord->txns().add_offsets(std::move(producer), std::move(group_id));
  protocol::AddOffsetsToTxnResponse resp;
  resp.error_code = to_kafka(e, ctx.version() >= 2);
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
