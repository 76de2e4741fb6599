#include "protocol/messages/end_txn.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/transaction_service.h"

namespace rokka::broker {

// Commits or aborts the producer's transaction. Answered once the transaction is
// complete: markers on every partition and committed offsets durable (see
// coordinator/transaction_coordinator.h), so a read_committed consumer that starts
// after the answer sees the outcome.
boost::asio::awaitable<HandlerResult> handle_end_txn(RequestContext& ctx, protocol::EndTxnRequest& req) {
  if (const auto refused = txn_gate(ctx, req.transactional_id); refused != protocol::ErrorCode::kNone)
    co_return error_response<protocol::EndTxnResponse>(refused, ctx.version());
  coordinator::ProducerRef producer{std::string(req.transactional_id), req.producer_id, req.producer_epoch};
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  const coordinator::TxnError e = co_await coord->txns().end_txn(std::move(producer), req.committed);
  protocol::EndTxnResponse resp;
  resp.error_code = to_kafka(e, ctx.version() >= 2);
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
