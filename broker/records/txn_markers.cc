#include "broker/records/txn_markers.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "broker/handlers/handler_util.h"
#include "broker/meta/topic_registry.h"
#include "protocol/control_batch.h"
#include "protocol/record_batch.h"
#include "storage/crc32c.h"

namespace rokka::broker {

namespace {

// After the appends: waits for C to cover the markers appended into each group store (the
// largest log end among them per store), then `done` once every store's wait ended, with the
// first failure.
void confirm_markers(std::vector<std::pair<std::shared_ptr<cluster::ConfirmWaiters>, int64_t>> ends,
                     std::function<void(storage::Status)> done) {
  struct Pending {
    std::mutex mu;
    size_t left = 0;
    storage::Status first_error;
    std::function<void(storage::Status)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = ends.size();
  pending->done = std::move(done);
  auto answer = [pending](storage::Status s) {
    std::function<void(storage::Status)> finish;
    storage::Status result;
    {
      std::lock_guard lock(pending->mu);
      if (!s.ok() && pending->first_error.ok()) pending->first_error = std::move(s);
      if (--pending->left != 0) return;
      finish = std::move(pending->done);
      result = pending->first_error;
    }
    finish(std::move(result));
  };
  const auto deadline = cluster::ConfirmWaiters::Clock::now() + kMarkerConfirmTimeout;
  for (const auto& [waiters, end] : ends) {
    if (!waiters) {
      answer(storage::Status(storage::StatusCode::kNotLeader, "markers not confirmed: this broker does not lead the group"));
      continue;
    }
    waiters->add(end, deadline, [answer](cluster::ConfirmOutcome o) {
      if (o.ok()) return answer(storage::Status());
      answer(storage::Status(storage::StatusCode::kNotLeader, std::string("markers not confirmed: ") +
                                                                  cluster::confirm_outcome_name(o.kind) + ": " +
                                                                  o.reason));
    });
  }
}

}  // namespace

void write_txn_markers(const TopicRegistry& topics, const coordinator::MarkerRequest& request,
                       std::function<void(storage::Status)> done, ConfirmWaitersOf confirm) {
  protocol::TxnMarker marker;
  marker.producer_id = request.producer_id;
  marker.producer_epoch = request.producer_epoch;
  marker.type = request.commit ? protocol::ControlType::kCommit : protocol::ControlType::kAbort;
  marker.timestamp_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::vector<std::byte> bytes = protocol::build_txn_marker(marker);
  storage::seal_batch_crc(bytes);
  // The store copies each batch; one buffer serves every partition until the callback.
  auto batch = std::make_shared<const std::vector<std::byte>>(std::move(bytes));

  std::vector<storage::AppendRequest> appends;
  std::vector<StoreSlot> slots;
  for (const coordinator::TopicPartition& tp : request.partitions) {
    const PartitionRef ref = resolve_partition(topics.stores(), topics.find(tp.topic), tp.partition);
    if (ref.error != protocol::ErrorCode::kNone) continue;  // deleted since: nothing to mark
    appends.push_back({ref.pid, *batch, storage::TimestampType::kCreateTime});
    slots.push_back(ref.slot);
  }
  if (appends.empty()) return done({});
  topics.stores().append(slots, std::move(appends), [batch, slots, confirm = std::move(confirm), done = std::move(done)](
                                                         std::vector<storage::Result<storage::AppendInfo>> results) {
    std::vector<std::pair<StoreSlot, int64_t>> ends;  // per store but the root: the last marker's log end
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      // A partition deleted while the markers were queued has nothing left to mark.
      if (!r.ok() && r.status().code() != storage::StatusCode::kNotFound) return done(r.status());
      if (!r.ok() || !confirm || slots[i] == kRootSlot) continue;
      auto at = std::find_if(ends.begin(), ends.end(), [&](const auto& e) { return e.first == slots[i]; });
      if (at == ends.end()) {
        ends.emplace_back(slots[i], r->log_end);
      } else {
        at->second = std::max(at->second, r->log_end);
      }
    }
    std::vector<std::pair<std::shared_ptr<cluster::ConfirmWaiters>, int64_t>> waits;  // the groups' stores
    for (const auto& [slot, end] : ends) {
      if (auto waiters = confirm(slot)) waits.emplace_back(std::move(*waiters), end);
    }
    if (waits.empty()) return done({});
    confirm_markers(std::move(waits), std::move(done));
  });
}

}  // namespace rokka::broker
