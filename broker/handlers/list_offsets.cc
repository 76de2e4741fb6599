#include "protocol/messages/list_offsets.h"

#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/records/record_lookup.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;

namespace {

constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;
constexpr int64_t kMaxTimestamp = -3;
constexpr int64_t kEarliestLocal = -4;  // v8+ (KIP-405)
constexpr int64_t kLatestTiered = -5;   // v9+ (KIP-1005)

}  // namespace

// Earliest (-2), latest (-1), max timestamp (-3, v7+), earliest local (-4, v8+: the log
// start, nothing being tiered), latest tiered (-5, v9+: -1, as Kafka answers without
// remote storage), or the first record whose timestamp is at least the one given.
// timeout_ms (v10+) bounds remote-storage lookups, of which there are none.
boost::asio::awaitable<HandlerResult> handle_list_offsets(RequestContext& ctx, protocol::ListOffsetsRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();
  protocol::ListOffsetsResponse resp;
  for (const auto& t : req.topics) {
    auto& out_topic = resp.topics.emplace_back();
    out_topic.name = std::string(t.name);
    const TopicPtr topic = svc.topics.find(t.name);
    const bool allowed = authorized(ctx, AclOperation::kDescribe, ResourceType::kTopic, t.name);
    for (const auto& p : t.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition_index = p.partition_index;
      PartitionRef ref = resolve_led_partition(svc, allowed, topic, p.partition_index);
      if (ref.error == ErrorCode::kNone) ref.error = check_leader_epoch(p.current_leader_epoch, ref.leader_epoch);
      if (ref.error != ErrorCode::kNone) {
        out.error_code = ref.error;
        continue;
      }
      auto offs = ref.store->offsets(ref.pid);
      if (!offs.ok()) {
        out.error_code = to_kafka(offs.status());
        continue;
      }
      storage::TimestampOffset found;
      if (p.timestamp == kLatest) {
        // The high watermark (the next offset but in a group store's replicated roles);
        // read_committed (isolation level 1, v2+) sees up to the last stable offset.
        found = {-1, req.isolation_level == 1 ? offs->last_stable_offset : offs->high_watermark};
      } else if (p.timestamp == kEarliest || (p.timestamp == kEarliestLocal && v >= 8)) {
        // No tiered storage: the local log starts where the log starts.
        found = {-1, offs->log_start_offset};
      } else if (p.timestamp == kLatestTiered && v >= 9) {
        found = {-1, -1};  // nothing is tiered: Kafka answers -1 without remote storage
      } else if (p.timestamp == kMaxTimestamp && v >= 7) {
        auto r = max_timestamp_record(*ref.store, ref.pid);
        if (!r.ok()) {
          out.error_code = to_kafka(r.status());
          continue;
        }
        found = *r;
      } else if (p.timestamp >= 0) {
        auto r = first_record_at_or_after(*ref.store, ref.pid, p.timestamp);
        if (!r.ok()) {
          out.error_code = to_kafka(r.status());
          continue;
        }
        found = *r;
      } else {
        out.error_code = ErrorCode::kInvalidRequest;  // other negative timestamps are not defined
        continue;
      }
      if (v == 0) {
        if (found.offset >= 0) out.old_style_offsets.push_back(found.offset);
      } else {
        out.timestamp = found.timestamp;
        out.offset = found.offset;
        if (found.offset >= 0) out.leader_epoch = ref.leader_epoch;
      }
    }
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
