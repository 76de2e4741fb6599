#include "protocol/messages/delete_records.h"

#include "broker/net/async.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;

// Moves partitions' log start offsets forward; -1 means the high watermark.
boost::asio::awaitable<HandlerResult> handle_delete_records(RequestContext& ctx, protocol::DeleteRecordsRequest& req) {
  Services& svc = *ctx.services;
  protocol::DeleteRecordsResponse resp;
  struct Target {
    protocol::DeleteRecordsResponse::DeleteRecordsPartitionResult* out;
    storage::Store* store;
    storage::PartitionId pid;
    int64_t offset;
  };
  std::vector<Target> targets;
  resp.topics.reserve(req.topics.size());
  for (const auto& t : req.topics) {
    auto& out_topic = resp.topics.emplace_back();
    out_topic.name = std::string(t.name);
    out_topic.partitions.reserve(t.partitions.size());
    const TopicPtr topic = svc.topics.find(t.name);
    const bool allowed = authorized(ctx, AclOperation::kDelete, ResourceType::kTopic, t.name);
    for (const auto& p : t.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition_index = p.partition_index;
      out.low_watermark = -1;
      PartitionRef ref = resolve_led_partition(svc, allowed, topic, p.partition_index);
      if (ref.error != ErrorCode::kNone) {
        out.error_code = ref.error;
        continue;
      }
      int64_t offset = p.offset;
      if (offset == -1) {
        auto offs = ref.store->offsets(ref.pid);
        if (!offs.ok()) {
          out.error_code = to_kafka(offs.status());
          continue;
        }
        offset = offs->high_watermark;  // the next offset, but in a group store's replicated roles
      } else if (offset < 0) {
        out.error_code = ErrorCode::kOffsetOutOfRange;
        continue;
      }
      targets.push_back({&out, ref.store, ref.pid, offset});
    }
  }
  using R = storage::Result<int64_t>;
  auto results = co_await await_all<R>(targets.size(), [&](size_t i, std::function<void(R)> done) {
    targets[i].store->delete_records(targets[i].pid, targets[i].offset, done);
  });
  for (size_t i = 0; i < targets.size(); ++i) {
    if (results[i].ok()) {
      targets[i].out->low_watermark = *results[i];
    } else {
      targets[i].out->error_code = to_kafka(results[i].status());
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
