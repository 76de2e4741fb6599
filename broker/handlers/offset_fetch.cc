#include "protocol/messages/offset_fetch.h"

#include "broker/coordinators.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "coordinator/group_service.h"

namespace rokka::broker {

namespace {

template <typename TopicList>
std::optional<std::vector<coordinator::TopicPartitions>> to_args(const std::optional<TopicList>& topics) {
  if (!topics) return std::nullopt;
  std::vector<coordinator::TopicPartitions> out;
  for (const auto& t : *topics) out.push_back({std::string(t.name), t.partition_indexes});
  return out;
}

// Topics the request may not DESCRIBE: left out when all topics were asked for,
// TOPIC_AUTHORIZATION_FAILED with no offset when named (as in Kafka).
template <typename OutTopic>
void fill(const RequestContext& ctx, bool all_topics, const coordinator::OffsetFetchResult& r,
          std::vector<OutTopic>& out) {
  for (const auto& t : r.topics) {
    const bool denied = !authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, t.topic);
    if (denied && all_topics) continue;
    auto& ot = out.emplace_back();
    ot.name = t.topic;
    for (const auto& p : t.partitions) {
      auto& op = ot.partitions.emplace_back();
      op.partition_index = p.partition;
      op.committed_offset = p.offset;
      op.committed_leader_epoch = p.leader_epoch;
      op.metadata = p.metadata;
      op.error_code = to_kafka(p.error);
      if (denied) {
        op.committed_offset = -1;
        op.committed_leader_epoch = -1;
        op.metadata = std::string();
        op.error_code = protocol::ErrorCode::kTopicAuthorizationFailed;
      }
    }
  }
}

}  // namespace

// librdkafka 2.0.2 asks for all topics at v6-v7 with a 4-byte zero where the compact array
// belongs (it reserves an int32 count and never finalizes it): group, 00 00 00 00,
// require_stable, 00 (tags). Kafka reads the first zero as a null array, the second as
// require_stable=false, and ignores the rest. Rokka reads the same and, for that exact
// shape, keeps the require_stable the client meant (the byte two places on).
bool decode_request(const RequestContext& ctx, protocol::OffsetFetchRequest& req) {
  const int16_t v = ctx.version();
  protocol::Reader r(ctx.body());
  if (!protocol::decode_message(req, r, v, protocol::is_flexible(protocol::ApiKey::kOffsetFetch, v))) return false;
  const protocol::Bytes rest = ctx.body().subspan(r.position());
  if (v == 7 && !req.topics && !req.require_stable && rest.size() == 3 && rest[0] == std::byte{0} &&
      rest[1] == std::byte{1} && rest[2] == std::byte{0}) {
    req.require_stable = true;
  }
  return true;
}

// Committed offsets of one group (v0-v7) or several (v8+); -1 where none was committed.
boost::asio::awaitable<HandlerResult> handle_offset_fetch(RequestContext& ctx, protocol::OffsetFetchRequest& req) {
  const int16_t v = ctx.version();
  const std::shared_ptr<CoordinatorPair> coord = ctx.services->coordinators.current();
  coordinator::GroupService& groups = coord->groups();
  protocol::OffsetFetchResponse resp;
  if (v < 8) {
    coordinator::OffsetFetchArgs args;
    args.group_id = std::string(req.group_id);
    args.topics = to_args(req.topics);
    args.require_stable = req.require_stable;
    const bool denied = !authorized_group(ctx, AclOperation::kDescribe, req.group_id);
    const bool elsewhere = !denied && !coordinates(*ctx.services, req.group_id);
    coordinator::OffsetFetchResult r;
    if (!denied && !elsewhere) r = co_await groups.fetch_offsets(std::move(args));
    resp.error_code = denied      ? protocol::ErrorCode::kGroupAuthorizationFailed
                           : elsewhere ? protocol::ErrorCode::kNotCoordinator
                                       : to_kafka(r.error);
    fill(ctx, !req.topics, r, resp.topics);
    // v0-v1 have no group-level error: carry it on every partition asked for.
    if (v < 2 && resp.error_code != protocol::ErrorCode::kNone && req.topics) {
      for (const auto& t : *req.topics) {
        auto& ot = resp.topics.emplace_back();
        ot.name = std::string(t.name);
        for (int32_t p : t.partition_indexes) ot.partitions.push_back({p, -1, -1, std::string(), resp.error_code});
      }
    }
  } else {
    for (const auto& g : req.groups) {
      coordinator::OffsetFetchArgs args;
      args.group_id = std::string(g.group_id);
      args.topics = to_args(g.topics);
      args.require_stable = req.require_stable;
      if (g.member_id) args.member_id = std::string(*g.member_id);
      args.member_epoch = g.member_epoch;
      auto& og = resp.groups.emplace_back();
      og.group_id = std::string(g.group_id);
      if (!authorized_group(ctx, AclOperation::kDescribe, g.group_id)) {
        og.error_code = protocol::ErrorCode::kGroupAuthorizationFailed;
        continue;
      }
      if (!coordinates(*ctx.services, g.group_id)) {
        og.error_code = protocol::ErrorCode::kNotCoordinator;
        continue;
      }
      coordinator::OffsetFetchResult r = co_await groups.fetch_offsets(std::move(args));
      og.error_code = to_kafka(r.error);
      fill(ctx, !g.topics, r, og.topics);
    }
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
