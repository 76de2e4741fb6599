#include "protocol/messages/offset_for_leader_epoch.h"

#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;

// A partition of a replication group's store answers from the epochs its leaders stamped
// into its batches (Store::epoch_end_offset): an epoch that ended ends where the next one
// starts. A store that never took a replicated role (the root store) has had one leader
// epoch (kLeaderEpoch) for its whole life, so the end offset of that epoch is the log end;
// an epoch it never had has no end offset.
boost::asio::awaitable<HandlerResult> handle_offset_for_leader_epoch(RequestContext& ctx, protocol::OffsetForLeaderEpochRequest& req) {
  Services& svc = *ctx.services;
  protocol::OffsetForLeaderEpochResponse resp;
  for (const auto& t : req.topics) {
    auto& out_topic = resp.topics.emplace_back();
    out_topic.topic = std::string(t.topic);
    const TopicPtr topic = svc.topics.find(t.topic);
    const bool allowed = authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, t.topic);
    for (const auto& p : t.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition = p.partition;
      PartitionRef ref = resolve_led_partition(svc, allowed, topic, p.partition);
      if (ref.error == ErrorCode::kNone) ref.error = check_leader_epoch(p.current_leader_epoch, ref.leader_epoch);
      if (ref.error != ErrorCode::kNone) {
        out.error_code = ref.error;
        continue;
      }
      if (!ref.store->epochs().empty()) {
        auto end = ref.store->epoch_end_offset(ref.pid, p.leader_epoch);
        if (!end.ok()) {
          out.error_code = to_kafka(end.status());
          continue;
        }
        out.leader_epoch = end->leader_epoch;
        out.end_offset = end->end_offset;
        continue;
      }
      if (p.leader_epoch > kLeaderEpoch) continue;  // unknown epoch: -1 / -1
      auto offs = ref.store->offsets(ref.pid);
      if (!offs.ok()) {
        out.error_code = to_kafka(offs.status());
        continue;
      }
      out.leader_epoch = kLeaderEpoch;
      out.end_offset = offs->next_offset;
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
