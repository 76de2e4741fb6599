#include "protocol/messages/fetch.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <unordered_map>

#include "broker/error_mapping.h"
#include "broker/records/fetch_waiters.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/routing.h"
#include "broker/link/cluster_link.h"
#include "broker/metrics.h"
#include "broker/net/quota_manager.h"
#include "protocol/record_batch.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;
using protocol::FetchRequest;
using protocol::FetchResponse;

namespace {

// One partition of the request, resolved once.
struct Target {
  FetchResponse::PartitionData* out;
  const storage::Store* store = nullptr;  // the partition's store, when valid
  storage::PartitionId pid = 0;
  int64_t offset = 0;
  int32_t max_bytes = 0;
  bool valid = false;
  bool follower = false;  // read from a replication group's follower (KIP-392): up to its high watermark
  int32_t preferred = -1;  // the replica the leader sends the consumer to: no records read here
};

// A partition as the request names it; Kafka keys a fetch by partition, so a partition
// named again replaces the earlier entry's position and limits but keeps its place.
// `topic` is the key: the name (v4-12), or the 16 bytes of the topic id (v13+).
struct Wanted {
  std::string_view topic;
  const FetchRequest::FetchTopic* t;
  const FetchRequest::FetchPartition* p;
};

std::string_view topic_key(const FetchRequest::FetchTopic& t, int16_t version) {
  if (version <= 12) return t.topic;
  return {reinterpret_cast<const char*>(t.topic_id.data()), t.topic_id.size()};
}

struct TopicPartitionHash {
  size_t operator()(const std::pair<std::string_view, int32_t>& k) const {
    return std::hash<std::string_view>()(k.first) * 31 + std::hash<int32_t>()(k.second);
  }
};

std::vector<Wanted> wanted_partitions(const FetchRequest& req, int16_t version) {
  std::vector<Wanted> out;
  std::unordered_map<std::pair<std::string_view, int32_t>, size_t, TopicPartitionHash> seen;
  for (const auto& t : req.topics) {
    for (const auto& p : t.partitions) {
      auto [it, fresh] = seen.try_emplace({topic_key(t, version), p.partition}, out.size());
      if (fresh) {
        out.push_back({topic_key(t, version), &t, &p});
      } else {
        out[it->second].p = &p;
      }
    }
  }
  return out;
}

// Kafka's answer to a read it cannot make (FetchRequest's error response, v4-12):
// the error at the top and in every partition named, with no offsets and no records.
FetchResponse error_response(const FetchRequest& req, ErrorCode e) {
  FetchResponse resp;
  resp.error_code = e;
  for (const auto& t : req.topics) {
    auto& out_topic = resp.responses.emplace_back();
    out_topic.topic = std::string(t.topic);
    out_topic.topic_id = t.topic_id;
    for (const auto& p : t.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition_index = p.partition;
      out.error_code = e;
      out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
      out.records.data = protocol::Bytes{};
    }
  }
  return resp;
}

// Reads every valid target into its response slot. Returns the record bytes placed.
// KIP-74: the response stays within max_bytes except that the first batch of the
// first partition with data is returned whole, so a consumer can always progress.
// A negative limit (the partition's, or the request's for the first partition read)
// fails a partition that has records to return with UNKNOWN_SERVER_ERROR, as Kafka's
// log read refuses a negative size; at the end of the log it is simply empty.
int64_t read_all(std::vector<Target>& targets, int32_t max_bytes, bool read_committed) {
  int64_t total = 0;
  int64_t limit = max_bytes;  // Kafka's limitBytes: the request's, then what is left of it
  for (Target& t : targets) {
    if (!t.valid) continue;
    auto& out = *t.out;
    out.records = {};
    out.records.data = protocol::Bytes{};  // empty, never null: clients reject a null record set
    const bool negative_limit = std::min<int64_t>(t.max_bytes, limit) < 0;
    const int64_t budget = std::min<int64_t>(t.max_bytes, std::max<int64_t>(0, max_bytes - total));
    const storage::Store& store = *t.store;
    if (t.preferred >= 0) {
      // KIP-392: the offsets and where to read from, no records (as Kafka's leader answers).
      out.preferred_read_replica = t.preferred;
      auto offs = store.offsets(t.pid);
      if (!offs.ok()) {
        out.error_code = to_kafka(offs.status());
        continue;
      }
      out.high_watermark = offs->high_watermark;
      out.last_stable_offset = offs->last_stable_offset;
      out.log_start_offset = offs->log_start_offset;
      continue;
    }
    auto r = store.read(t.pid, t.offset, std::max<int64_t>(budget, 1));
    if (!r.ok() && t.follower && r.status().code() == storage::StatusCode::kOutOfRange) {
      // A follower cannot tell an offset the leader has not written from one it has not
      // received yet: above its high watermark the answer is empty, as Kafka's follower answers.
      if (auto offs = store.offsets(t.pid); offs.ok() && t.offset > offs->high_watermark) {
        out.error_code = ErrorCode::kNone;
        out.high_watermark = offs->high_watermark;
        out.last_stable_offset = offs->last_stable_offset;
        out.log_start_offset = offs->log_start_offset;
        if (read_committed) out.aborted_transactions.emplace();
        continue;
      }
    }
    if (!r.ok()) {
      out.error_code = to_kafka(r.status());
      out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
      if (r.status().code() == storage::StatusCode::kOutOfRange) {
        if (auto offs = store.offsets(t.pid); offs.ok()) {
          out.high_watermark = out.last_stable_offset = offs->high_watermark;
          out.log_start_offset = offs->log_start_offset;
        }
      }
      continue;
    }
    out.error_code = ErrorCode::kNone;
    out.high_watermark = r->offsets.high_watermark;  // the next offset, but in a group store's replicated roles
    out.last_stable_offset = r->offsets.last_stable_offset;
    out.log_start_offset = r->offsets.log_start_offset;
    // read_committed stops at the last stable offset: batches of open transactions wait.
    const int64_t stable_end = read_committed ? r->offsets.last_stable_offset : r->offsets.high_watermark;
    if (negative_limit && t.offset < stable_end) {
      out.error_code = ErrorCode::kUnknownServerError;
      out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
      limit = 0;
      continue;
    }
    int64_t placed = 0;
    int64_t end_offset = t.offset;  // after the last batch placed
    for (auto& slice : r->batches) {
      const auto size = static_cast<int64_t>(slice.bytes.size());
      const bool first_of_response = total == 0 && placed == 0;
      if (!first_of_response && placed + size > budget) break;
      protocol::RecordBatchView batch;
      if (protocol::RecordBatchView::parse(slice.bytes, &batch) != protocol::BatchCheck::kOk) break;  // stored: valid
      if (batch.base_offset() >= stable_end) break;
      end_offset = batch.last_offset() + 1;
      out.records.data.reset();  // the parts are the records
      out.records.parts.push_back({slice.bytes, std::move(slice.hold)});
      placed += size;
    }
    if (read_committed) {
      // The aborted transactions that begin inside what is returned (the store gives
      // those ending at or after the fetch offset).
      auto& aborted = out.aborted_transactions.emplace();
      for (const storage::AbortedTxn& a : r->aborted)
        if (a.first_offset < end_offset) aborted.push_back({a.producer_id, a.first_offset});
    }
    total += placed;
    limit = std::max<int64_t>(0, limit - placed);
  }
  return total;
}

}  // namespace

// Reads from many partitions at once; with less than min_bytes available it parks
// until an append wakes it or max_wait_ms passes. Record bytes are never copied:
// the response points into the mapped CommitLog.
boost::asio::awaitable<HandlerResult> handle_fetch(RequestContext& ctx, FetchRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  FetchResponse resp;
  if (v >= 7 && req.session_id != 0) {
    // No fetch sessions are kept (full fetches only): an unknown session.
    resp.error_code = ErrorCode::kFetchSessionIdNotFound;
    co_return make_response(resp, v);
  }

  // One entry per partition, in the order first named; consecutive entries of one
  // topic share a topic in the response, as Kafka builds it.
  const std::vector<Wanted> wanted = wanted_partitions(req, v);
  std::vector<size_t> topic_of(wanted.size());
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (i == 0 || wanted[i].topic != wanted[i - 1].topic) {
      auto& out_topic = resp.responses.emplace_back();
      out_topic.topic = std::string(wanted[i].t->topic);
      out_topic.topic_id = wanted[i].t->topic_id;
    }
    topic_of[i] = resp.responses.size() - 1;
    resp.responses.back().partitions.emplace_back();
  }
  LeaderHints leader_hints(ctx);
  // Kafka's consumers fetch with no replica id (v15+ carries a follower's in a tagged field
  // Rokka's replication does not use: every v15+ fetch is a consumer's). A replication group's
  // follower serves them too, and the leader may send them to one in their rack (KIP-392).
  const bool consumer = v >= 15 || req.replica_id < 0;
  // As Kafka's brokers: a follower serves a consumer whose request carries client metadata (v11+,
  // rack_id); an older consumer fetch is the leader's alone.
  const bool follower_reads = consumer && v >= 11;
  std::shared_ptr<const ClusterPicture> racks;  // the picture, when a preferred replica may be chosen
  if (consumer && v >= 11 && svc.cluster != nullptr && !req.rack_id.empty() &&
      svc.config.replica_selector_class == kRackAwareReplicaSelector)
    racks = svc.cluster->picture();
  std::vector<Target> targets;
  std::vector<uint64_t> keys;  // partition_key() of each valid target
  targets.reserve(wanted.size());
  TopicPtr topic;
  bool allowed = false;
  size_t next_in_topic = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    auto& out_topic = resp.responses[topic_of[i]];
    if (i == 0 || topic_of[i] != topic_of[i - 1]) {
      // v13+: by id. An id this broker does not know (never created, or deleted, even if
      // a topic of the same name exists again) is UNKNOWN_TOPIC_ID in every partition.
      topic = v >= 13 ? svc.topics.find(out_topic.topic_id) : svc.topics.find(out_topic.topic);
      allowed = (v >= 13 && !topic) ||
                authorized(ctx, AclOperation::kRead, ResourceType::kTopic, topic ? topic->name : out_topic.topic);
      next_in_topic = 0;
    }
    const FetchRequest::FetchPartition& p = *wanted[i].p;
    auto& out = out_topic.partitions[next_in_topic++];
    out.partition_index = p.partition;
    out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
    bool follower = false;
    PartitionRef ref = follower_reads ? resolve_readable_partition(svc, allowed, topic, p.partition, &follower)
                                : resolve_led_partition(svc, allowed, topic, p.partition);
    if (v >= 13 && !topic) ref.error = ErrorCode::kUnknownTopicId;
    if (ref.error == ErrorCode::kNone) ref.error = check_leader_epoch(p.current_leader_epoch, ref.leader_epoch);
    if (ref.error == ErrorCode::kNotLeaderOrFollower && v >= 12)
      out.current_leader = leader_hints.hint(*topic, p.partition);
    out.error_code = ref.error;
    out.records.data = protocol::Bytes{};
    if (ref.error != ErrorCode::kNone) {
      targets.push_back({&out});
      continue;
    }
    int32_t preferred = -1;
    if (racks && !follower && ref.slot != kRootSlot && ref.slot < svc.stores.size())
      if (const ClusterGroup* g = racks->group(svc.stores.entries()[ref.slot].name))
        preferred = preferred_read_replica(svc.config.replica_selector_class, req.rack_id, svc.config.broker_id, *g,
                                           *racks);
    targets.push_back({&out, ref.store, ref.pid, p.fetch_offset, p.partition_max_bytes, true, follower, preferred});
    if (preferred < 0) keys.push_back(partition_key(ref.slot, ref.pid));
  }
  // Kafka reads the isolation level once it has a partition to read, and an unknown
  // one fails the whole request (UNKNOWN_SERVER_ERROR, its answer to the exception).
  if (!keys.empty() && req.isolation_level != 0 && req.isolation_level != 1)
    co_return make_response(error_response(req, ErrorCode::kUnknownServerError), v);

  // The broker's fetch.max.bytes caps the response, and so the min_bytes it waits
  // for: a client asking for more than the cap is answered once the cap's worth is there.
  // So does a consumer_byte_rate: at most what the quota allows in its window, as in Kafka.
  int32_t max_bytes = std::min(req.max_bytes, svc.config.fetch_max_bytes);
  if (auto quota_max = svc.quotas.fetch_max_bytes(quota_user(ctx.principal), ctx.header.client_id.value_or("")))
    max_bytes = static_cast<int32_t>(std::min<int64_t>(max_bytes, std::max<int64_t>(*quota_max, 1)));
  const int32_t min_bytes = std::min(req.min_bytes, max_bytes);
  const bool read_committed = req.isolation_level == 1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, req.max_wait_ms));
  std::chrono::nanoseconds waited{0};
  auto ex = co_await boost::asio::this_coro::executor;
  for (;;) {
    const int64_t bytes = read_all(targets, max_bytes, read_committed);
    // A partition redirected elsewhere answers at once, as an error does (Kafka's too).
    bool errors = false;
    for (const Target& t : targets) errors = errors || t.out->error_code != ErrorCode::kNone || t.preferred >= 0;
    if (bytes >= min_bytes || errors || keys.empty() || std::chrono::steady_clock::now() >= deadline) break;

    // Park until an append to one of our partitions, or the deadline.
    auto waiter = svc.fetch_waiters.add(keys, ex);
    bool grown = false;
    for (const Target& t : targets) {
      if (!t.valid) continue;
      auto offs = t.store->offsets(t.pid);
      grown = grown || (offs.ok() && offs->high_watermark > t.out->high_watermark);  // readable since the read
    }
    if (!grown && !waiter->woken.load()) {
      const auto parked = std::chrono::steady_clock::now();
      waiter->timer.expires_at(deadline);
      co_await waiter->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
      waited += std::chrono::steady_clock::now() - parked;
    }
    svc.fetch_waiters.remove(waiter, keys);
    if (!grown && !waiter->woken.load()) {
      // Timed out: answer with what there is (re-read: data may have come meanwhile).
      read_all(targets, max_bytes, read_committed);
      break;
    }
  }
  if (v >= 16) resp.node_endpoints = leader_hints.endpoints();
  Response out = make_response(resp, v);
  out.waited = waited;
  // consumer_byte_rate counts the response. Over it, Kafka answers with no partitions
  // (the bytes are not counted: the client fetches them again after the throttle).
  const int32_t throttle = svc.quotas.record_fetch(quota_user(ctx.principal), ctx.header.client_id.value_or(""),
                                                  static_cast<int64_t>(out.body.size()));
  if (throttle > 0) {
    if (svc.metrics) svc.metrics->throttled(QuotaManager::Kind::kFetch, throttle);
    FetchResponse empty;
    empty.throttle_time_ms = throttle;
    empty.session_id = resp.session_id;
    Response throttled = make_response(empty, v);
    throttled.throttle_ms = throttle;
    throttled.waited = waited;
    co_return throttled;
  }
  if (svc.metrics) {
    for (const auto& t : resp.responses) {
      int64_t bytes = 0;
      for (const auto& p : t.partitions) bytes += static_cast<int64_t>(p.records.size());
      svc.metrics->fetched(t.topic, bytes);
    }
  }
  co_return out;
}

}  // namespace rokka::broker
