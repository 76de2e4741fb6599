#include "protocol/messages/init_producer_id.h"

#include "broker/async.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/producer_ids.h"

namespace rokka::broker {

using protocol::ErrorCode;

// Idempotent producers get a fresh producer id with epoch 0 (as Kafka does for a
// producer without a transactional id, also when it passes its old id in v3+).
// Transactions are not served yet: a transactional id is refused.
boost::asio::awaitable<HandlerResult> handle_init_producer_id(RequestContext ctx) {
  protocol::InitProducerIdRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("InitProducerIdRequest");
  protocol::InitProducerIdResponse resp;
  if (req.transactional_id && !req.transactional_id->empty()) {
    resp.error_code = code(ErrorCode::kTransactionalIdAuthorizationFailed);
    co_return make_response(resp, ctx.version());
  }
  auto id = co_await await_callback<storage::Result<int64_t>>(
      [&](std::function<void(storage::Result<int64_t>)> done) { ctx.services->producer_ids->allocate(done); });
  if (id.ok()) {
    resp.producer_id = *id;
    resp.producer_epoch = 0;
  } else {
    resp.error_code = code(ErrorCode::kKafkaStorageError);
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
