#include "protocol/messages/delete_topics.h"

#include <map>

#include "broker/net/async.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/mutation_quota.h"

namespace rokka::broker {

using protocol::DeleteTopicsRequest;
using protocol::DeleteTopicsResponse;
using protocol::ErrorCode;

// GCC 12 reports asio's coroutine frame of this handler as mismatched new/delete (the
// false positive create_topics.cc describes); it appeared with the mutation quota's branch.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
// Deletes topics by name (v0-v5) or by name or id (v6+). The name is free again at once.
// As Kafka's controller does, an entry naming both a name and an id, or neither, is
// INVALID_REQUEST, and a name or id given twice gets one INVALID_REQUEST answer and is
// not deleted.
boost::asio::awaitable<HandlerResult> handle_delete_topics(RequestContext& ctx, DeleteTopicsRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  // (name, id) per entry: exactly one of them is set in a valid entry.
  std::vector<std::pair<std::optional<std::string_view>, protocol::Uuid>> entries;
  if (v >= 6) {
    for (const auto& t : req.topics) entries.emplace_back(t.name, t.topic_id);
  } else {
    for (auto name : req.topic_names) entries.emplace_back(name, protocol::Uuid{});
  }
  std::map<std::string_view, int> name_count;
  std::map<protocol::Uuid, int> id_count;
  for (const auto& [name, id] : entries) {
    if (name && id == protocol::Uuid{}) ++name_count[*name];
    if (!name && id != protocol::Uuid{}) ++id_count[id];
  }

  DeleteTopicsResponse resp;
  std::vector<TopicPtr> targets;
  auto refuse = [&](std::optional<std::string_view> name, const protocol::Uuid& id, std::string message) {
    auto& out = resp.responses.emplace_back();
    if (name) out.name = std::string(*name);
    out.topic_id = id;
    out.error_code = ErrorCode::kInvalidRequest;
    out.error_message = std::move(message);
    targets.push_back(nullptr);
  };
  auto add = [&](std::optional<std::string_view> name, const protocol::Uuid& id) {
    auto& out = resp.responses.emplace_back();
    TopicPtr t = name ? svc.topics.find(*name) : svc.topics.find(id);
    out.name = name ? std::optional<std::string>(std::string(*name)) : std::nullopt;
    out.topic_id = id;
    const bool named = t || name;  // an unknown id names nothing to authorize
    if (named && !authorized(ctx, AclOperation::kDelete, ResourceType::kTopic, t ? std::string_view(t->name) : *name)) {
      out.error_code = ErrorCode::kTopicAuthorizationFailed;
    } else if (!svc.config.delete_topic_enable) {
      out.error_code = ErrorCode::kTopicDeletionDisabled;
    } else if (!t) {
      out.error_code = name ? ErrorCode::kUnknownTopicOrPartition : ErrorCode::kUnknownTopicId;
    } else if (!admit_mutation(ctx, static_cast<int64_t>(t->partitions.size()), /*strict=*/v >= 5)) {
      out.name = t->name;
      out.topic_id = t->id;
      out.error_code = ErrorCode::kThrottlingQuotaExceeded;
      out.error_message = kThrottlingQuotaExceededMessage;
    } else {
      out.name = t->name;
      out.topic_id = t->id;
    }
    targets.push_back(out.error_code == ErrorCode::kNone ? t : nullptr);
  };
  for (const auto& [name, id] : entries) {
    if (name && id != protocol::Uuid{}) {
      refuse(name, id, "a topic is named by its name or by its id, not both");
    } else if (!name && id == protocol::Uuid{}) {
      refuse(std::nullopt, id, "neither a topic name nor a topic id was given");
    } else if (int& n = name ? name_count[*name] : id_count[id]; n != 1) {
      // n > 1 at its first mention, then -1: one answer for all its mentions.
      if (n > 1) refuse(name, id, name ? "the topic name is given more than once" : "the topic id is given more than once");
      n = -1;
    } else {
      add(name, id);
    }
  }

  auto results = co_await await_all<TopicError>(targets.size(), [&](size_t i, std::function<void(TopicError)> done) {
    if (!targets[i]) return done({});
    svc.topics.remove(targets[i]->name, done);
  });
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      resp.responses[i].error_code = results[i].code;
      resp.responses[i].error_message = results[i].message;
    }
  }
  resp.throttle_time_ms = mutation_throttle(ctx);
  Response r = make_response(resp, v);
  r.throttle_ms = resp.throttle_time_ms;
  co_return r;
}

#pragma GCC diagnostic pop

}  // namespace rokka::broker
