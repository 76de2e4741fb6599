#include "broker/records/txn_markers.h"

#include <chrono>
#include <memory>

#include "broker/handlers/handler_util.h"
#include "broker/meta/topic_registry.h"
#include "protocol/control_batch.h"
#include "protocol/record_batch.h"
#include "storage/crc32c.h"

namespace rokka::broker {

void write_txn_markers(const TopicRegistry& topics, const coordinator::MarkerRequest& request,
                       std::function<void(storage::Status)> done) {
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
  topics.stores().append(slots, std::move(appends), [batch, done = std::move(done)](std::vector<storage::Result<storage::AppendInfo>> results) {
    for (const auto& r : results) {
      // A partition deleted while the markers were queued has nothing left to mark.
      if (!r.ok() && r.status().code() != storage::StatusCode::kNotFound) return done(r.status());
    }
    done({});
  });
}

}  // namespace rokka::broker
