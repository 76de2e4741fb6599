#include "protocol/messages/describe_topic_partitions.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"

namespace rokka::broker {
namespace {

using protocol::DescribeTopicPartitionsRequest;
using protocol::DescribeTopicPartitionsResponse;
using protocol::ErrorCode;

// Kafka's max.request.partition.size.limit default: a request's ResponsePartitionLimit
// is clamped to it.
constexpr int32_t kMaxResponsePartitions = 2000;

// The names Kafka's Topic.isInternal knows (an unknown topic's answer still carries it).
bool internal_name(std::string_view name) { return name == "__consumer_offsets" || name == "__transaction_state"; }

DescribeTopicPartitionsResponse::Topic topic_error(std::string_view name, ErrorCode error) {
  DescribeTopicPartitionsResponse::Topic out;
  out.error_code = error;
  out.name = std::string(name);
  out.is_internal = internal_name(name);
  return out;
}

// Every requested topic with `error` and nothing else: Kafka's answer to a request it
// rejects as a whole (DescribeTopicPartitionsRequest.getErrorResponse).
DescribeTopicPartitionsResponse reject(const DescribeTopicPartitionsRequest& req, ErrorCode error) {
  DescribeTopicPartitionsResponse resp;
  for (const auto& asked : req.topics) {
    auto& out = resp.topics.emplace_back();
    out.error_code = error;
    out.name = std::string(asked.name);
  }
  return resp;
}

}  // namespace

// DescribeTopicPartitions (KIP-966, what kafka-topics.sh --describe sends to 3.9+
// brokers): the named topics, or every topic the principal may DESCRIBE, sorted by name
// and each named once, from the Cursor on. At most ResponsePartitionLimit partitions
// (clamped to 2000) come back; when the limit cuts the answer, NextCursor names the
// topic and partition the next page starts at. As in Kafka: a cursor topic missing from
// a non-empty topic list is INVALID_REQUEST for every topic; a named topic the principal
// may not DESCRIBE answers TOPIC_AUTHORIZATION_FAILED (whether it exists or not) after
// the others and outside the limit; an unknown one UNKNOWN_TOPIC_OR_PARTITION, or
// INVALID_TOPIC_EXCEPTION for a name no topic can have.
boost::asio::awaitable<HandlerResult> handle_describe_topic_partitions(RequestContext& ctx, DescribeTopicPartitionsRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  const bool all = req.topics.empty();
  const std::string_view cursor_topic = req.cursor ? req.cursor->topic_name : std::string_view();
  std::set<std::string> names;  // sorted, each once, none before the cursor's topic
  if (all) {
    for (const TopicPtr& t : svc.topics.all())
      if (t->name >= cursor_topic) names.insert(t->name);
  } else {
    for (const auto& asked : req.topics)
      if (asked.name >= cursor_topic) names.emplace(asked.name);
    if (req.cursor && !names.contains(std::string(cursor_topic)))
      co_return make_response(reject(req, ErrorCode::kInvalidRequest), v);
  }

  DescribeTopicPartitionsResponse resp;
  const PartitionPlaces places(svc);
  std::vector<DescribeTopicPartitionsResponse::Topic> denied;
  int64_t remaining = std::min(kMaxResponsePartitions, req.response_partition_limit);
  for (const std::string& name : names) {
    // Listing all topics only filters: a hidden one is not a refusal to log.
    if (!authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, name, !all)) {
      if (!all) denied.push_back(topic_error(name, ErrorCode::kTopicAuthorizationFailed));
      continue;
    }
    if (remaining == 0) {  // the previous topic used the last of the limit: the next page starts here
      resp.next_cursor = DescribeTopicPartitionsResponse::Cursor{name, 0};
      break;
    }
    if (remaining < 0) continue;  // a negative limit answers nothing, as in Kafka
    const TopicPtr t = svc.topics.find(name);
    if (!t) {
      if (!all) {
        const bool valid = TopicRegistry::validate_name(name).ok();
        resp.topics.push_back(
            topic_error(name, valid ? ErrorCode::kUnknownTopicOrPartition : ErrorCode::kInvalidTopicException));
      }
      continue;
    }
    const int64_t count = static_cast<int64_t>(t->partitions.size());
    const int64_t first = req.cursor && name == cursor_topic ? req.cursor->partition_index : 0;
    const int64_t end = std::min(count, first + remaining);
    auto& out = resp.topics.emplace_back();
    out.name = t->name;
    out.topic_id = t->id;
    out.is_internal = t->internal;
    for (int64_t i = std::max<int64_t>(first, 0); i < end; ++i) {
      auto& p = out.partitions.emplace_back();
      p.partition_index = static_cast<int32_t>(i);
      describe_place(p, places.of(*t, p.partition_index));
      p.eligible_leader_replicas.emplace();  // no ELR on a single broker: empty, not null
      p.last_known_elr.emplace();
    }
    if (end < count) {
      resp.next_cursor = DescribeTopicPartitionsResponse::Cursor{name, static_cast<int32_t>(end)};
      break;
    }
    remaining -= static_cast<int64_t>(out.partitions.size());
  }
  for (auto& out : resp.topics)
    out.topic_authorized_operations =
        authorized_operations(ctx, kAllTopicOperations, ResourceType::kTopic, out.name.value_or(""));
  for (auto& out : denied) resp.topics.push_back(std::move(out));
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
