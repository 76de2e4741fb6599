#include "protocol/messages/fetch.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "broker/error_mapping.h"
#include "broker/fetch_waiters.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
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
  storage::PartitionId pid = 0;
  int64_t offset = 0;
  int32_t max_bytes = 0;
  bool valid = false;
};

// Reads every valid target into its response slot. Returns the record bytes placed.
// KIP-74: the response stays within max_bytes except that the first batch of the
// first partition with data is returned whole, so a consumer can always progress.
int64_t read_all(const storage::Store& store, std::vector<Target>& targets, int32_t max_bytes, bool read_committed) {
  int64_t total = 0;
  for (Target& t : targets) {
    if (!t.valid) continue;
    auto& out = *t.out;
    out.records = {};
    out.records.data = protocol::Bytes{};  // empty, never null: clients reject a null record set
    const int64_t budget = std::min<int64_t>(t.max_bytes, std::max<int64_t>(0, max_bytes - total));
    auto r = store.read(t.pid, t.offset, std::max<int64_t>(budget, 1));
    if (!r.ok()) {
      out.error_code = code(to_kafka(r.status()));
      out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
      if (r.status().code() == storage::StatusCode::kOutOfRange) {
        if (auto offs = store.offsets(t.pid); offs.ok()) {
          out.high_watermark = out.last_stable_offset = offs->next_offset;
          out.log_start_offset = offs->log_start_offset;
        }
      }
      continue;
    }
    out.error_code = 0;
    out.high_watermark = r->offsets.next_offset;
    out.last_stable_offset = r->offsets.last_stable_offset;
    out.log_start_offset = r->offsets.log_start_offset;
    // read_committed stops at the last stable offset: batches of open transactions wait.
    const int64_t stable_end = read_committed ? r->offsets.last_stable_offset : r->offsets.next_offset;
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
  }
  return total;
}

}  // namespace

// Reads from many partitions at once; with less than min_bytes available it parks
// until an append wakes it or max_wait_ms passes. Record bytes are never copied:
// the response points into the mapped CommitLog.
boost::asio::awaitable<HandlerResult> handle_fetch(RequestContext ctx) {
  FetchRequest req;
  if (!decode_request(ctx, req)) co_return storage::Status::malformed("FetchRequest");
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  FetchResponse resp;
  if (v >= 7 && req.session_id != 0) {
    // No fetch sessions are kept (full fetches only): an unknown session.
    resp.error_code = code(ErrorCode::kFetchSessionIdNotFound);
    co_return make_response(resp, v);
  }

  std::vector<Target> targets;
  std::vector<storage::PartitionId> pids;
  resp.responses.reserve(req.topics.size());
  for (const auto& t : req.topics) {
    auto& out_topic = resp.responses.emplace_back();
    out_topic.topic = std::string(t.topic);
    out_topic.partitions.reserve(t.partitions.size());
    const TopicPtr topic = svc.topics->find(t.topic);
    const bool allowed = authorized(ctx, AclOperation::kRead, ResourceType::kTopic, t.topic);
    for (const auto& p : t.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition_index = p.partition;
      out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
      PartitionRef ref = resolve_partition_if(allowed, topic, p.partition);
      if (ref.error == ErrorCode::kNone) ref.error = check_leader_epoch(p.current_leader_epoch);
      out.error_code = code(ref.error);
      out.records.data = protocol::Bytes{};
      if (ref.error != ErrorCode::kNone) {
        targets.push_back({&out});
        continue;
      }
      targets.push_back({&out, ref.pid, p.fetch_offset, p.partition_max_bytes, true});
      pids.push_back(ref.pid);
    }
  }

  // The broker's fetch.max.bytes caps the response, and so the min_bytes it waits
  // for: a client asking for more than the cap is answered once the cap's worth is there.
  const int32_t max_bytes = std::min(req.max_bytes, svc.config.fetch_max_bytes);
  const int32_t min_bytes = std::min(req.min_bytes, max_bytes);
  const bool read_committed = req.isolation_level == 1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, req.max_wait_ms));
  auto ex = co_await boost::asio::this_coro::executor;
  for (;;) {
    const int64_t bytes = read_all(*svc.store, targets, max_bytes, read_committed);
    bool errors = false;
    for (const Target& t : targets) errors = errors || t.out->error_code != 0;
    if (bytes >= min_bytes || errors || pids.empty() || std::chrono::steady_clock::now() >= deadline) break;

    // Park until an append to one of our partitions, or the deadline.
    auto waiter = svc.fetch_waiters->add(pids, ex);
    bool grown = false;
    for (const Target& t : targets) {
      if (!t.valid) continue;
      auto offs = svc.store->offsets(t.pid);
      grown = grown || (offs.ok() && offs->next_offset > t.out->high_watermark);  // appended since the read
    }
    if (!grown && !waiter->woken.load()) {
      waiter->timer.expires_at(deadline);
      co_await waiter->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    svc.fetch_waiters->remove(waiter, pids);
    if (!grown && !waiter->woken.load()) {
      // Timed out: answer with what there is (re-read: data may have come meanwhile).
      read_all(*svc.store, targets, max_bytes, read_committed);
      break;
    }
  }
  co_return make_response(resp, v);
}

}  // namespace rokka::broker
