#include "protocol/messages/delete_topics.h"

#include "broker/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"

namespace rokka::broker {

using protocol::DeleteTopicsRequest;
using protocol::DeleteTopicsResponse;
using protocol::ErrorCode;

// Deletes topics by name (v0-v5) or by name or id (v6+). The name is free again at once.
boost::asio::awaitable<HandlerResult> handle_delete_topics(RequestContext ctx) {
  DeleteTopicsRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("DeleteTopicsRequest");
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  DeleteTopicsResponse resp;
  std::vector<TopicPtr> targets;
  auto add = [&](std::optional<std::string_view> name, const protocol::Uuid& id) {
    auto& out = resp.responses.emplace_back();
    TopicPtr t = name ? svc.topics->find(*name) : svc.topics->find(id);
    out.name = name ? std::optional<std::string>(std::string(*name)) : std::nullopt;
    out.topic_id = id;
    const bool named = t || name;  // an unknown id names nothing to authorize
    if (named && !authorized(ctx, AclOperation::kDelete, ResourceType::kTopic, t ? std::string_view(t->name) : *name)) {
      out.error_code = code(ErrorCode::kTopicAuthorizationFailed);
    } else if (!svc.config.delete_topic_enable) {
      out.error_code = code(ErrorCode::kTopicDeletionDisabled);
    } else if (!t) {
      out.error_code = code(name ? ErrorCode::kUnknownTopicOrPartition : ErrorCode::kUnknownTopicId);
    } else {
      out.name = t->name;
      out.topic_id = t->id;
    }
    targets.push_back(out.error_code == 0 ? t : nullptr);
  };
  if (v >= 6) {
    for (const auto& t : req.topics) add(t.name, t.topic_id);
  } else {
    for (auto name : req.topic_names) add(name, protocol::Uuid{});
  }

  auto results = co_await await_all<TopicError>(targets.size(), [&](size_t i, std::function<void(TopicError)> done) {
    if (!targets[i]) return done({});
    svc.topics->remove(targets[i]->name, done);
  });
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      resp.responses[i].error_code = code(results[i].code);
      resp.responses[i].error_message = results[i].message;
    }
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
