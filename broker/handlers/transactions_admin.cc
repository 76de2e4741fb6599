#include <re2/re2.h>

#include <map>
#include <memory>

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/client_regex.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/transaction_service.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/list_transactions.h"

namespace rokka::broker {

// DescribeTransactions: each id's state, timeout, start time, producer and the
// partitions in its current transaction; an unknown id gets TRANSACTIONAL_ID_NOT_FOUND.
// With an authorizer: an id needs TransactionalId DESCRIBE (else 53), and topics the
// caller may not DESCRIBE are left out, as Kafka does.
boost::asio::awaitable<HandlerResult> handle_describe_transactions(RequestContext& ctx, protocol::DescribeTransactionsRequest& req) {
  protocol::DescribeTransactionsResponse resp;
  std::vector<std::string> ids;
  for (std::string_view id : req.transactional_ids) {
    const bool may = authorized(ctx, AclOperation::kDescribe, ResourceType::kTransactionalId, id);
    if (may && coordinates(*ctx.services, id)) {
      ids.emplace_back(id);
      continue;
    }
    auto& denied = resp.transaction_states.emplace_back();
    denied.error_code =
        may ? protocol::ErrorCode::kNotCoordinator : protocol::ErrorCode::kTransactionalIdAuthorizationFailed;
    denied.transactional_id = std::string(id);
  }
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  const std::vector<coordinator::TxnDescription> described = co_await coord->txns().describe(std::move(ids));

  resp.transaction_states.reserve(resp.transaction_states.size() + described.size());
  for (const coordinator::TxnDescription& d : described) {
    auto& out = resp.transaction_states.emplace_back();
    out.error_code = to_kafka(d.error, true);
    out.transactional_id = d.meta.transactional_id;
    if (d.error != coordinator::TxnError::kNone) continue;
    out.transaction_state = std::string(coordinator::txn_state_name(d.meta.state));
    out.transaction_timeout_ms = d.meta.timeout_ms;
    out.transaction_start_time_ms = d.meta.start_ms;
    out.producer_id = d.meta.producer_id;
    out.producer_epoch = d.meta.producer_epoch;
    std::map<std::string_view, std::vector<int32_t>> by_topic;  // partitions are sorted by (topic, partition)
    for (const coordinator::TopicPartition& tp : d.meta.partitions)
      if (authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, tp.topic))
        by_topic[tp.topic].push_back(tp.partition);
    for (auto& [topic, partitions] : by_topic) out.topics.push_back({std::string(topic), std::move(partitions)});
  }
  co_return make_response(resp, ctx.version());
}

// ListTransactions: the transactional ids matching every filter given; state names
// Kafka does not know come back in UnknownStateFilters (and match nothing). v2's
// TransactionalIdPattern (KIP-1152; null or empty: no filter) is a regular expression in
// RE2 syntax, as Kafka's RE2/J, that must match the whole id; one that does not compile
// answers INVALID_REGULAR_EXPRESSION and nothing else, as Kafka's error response does.
// With an authorizer, ids the caller may not DESCRIBE are left out.
boost::asio::awaitable<HandlerResult> handle_list_transactions(RequestContext& ctx, protocol::ListTransactionsRequest& req) {
  protocol::ListTransactionsResponse resp;
  std::unique_ptr<re2::RE2> pattern;
  if (req.transactional_id_pattern && !req.transactional_id_pattern->empty()) {
    pattern = compile_client_regex(*req.transactional_id_pattern);
    if (!pattern) {
      resp.error_code = protocol::ErrorCode::kInvalidRegularExpression;
      co_return make_response(resp, ctx.version());
    }
  }
  coordinator::TxnListFilter filter;
  if (!req.state_filters.empty()) {
    filter.states.emplace();
    for (std::string_view name : req.state_filters) {
      if (auto state = coordinator::txn_state_from_name(name)) filter.states->push_back(*state);
      else resp.unknown_state_filters.emplace_back(name);
    }
  }
  filter.producer_ids = std::move(req.producer_id_filters);
  filter.longer_than_ms = req.duration_filter;

  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::TxnListResult listed;  // a broker coordinating nothing lists nothing
  if (coord->serving()) listed = co_await coord->txns().list(std::move(filter));
  resp.error_code = to_kafka(listed.error, true);
  resp.transaction_states.reserve(listed.txns.size());
  for (const coordinator::TxnMetadata& m : listed.txns)
    if ((!pattern || re2::RE2::FullMatch(m.transactional_id, *pattern)) &&
        authorized(ctx, AclOperation::kDescribe, ResourceType::kTransactionalId, m.transactional_id))
      resp.transaction_states.push_back({m.transactional_id, m.producer_id, std::string(coordinator::txn_state_name(m.state))});
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
