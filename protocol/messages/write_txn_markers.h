// WriteTxnMarkers (key 27), v0-v1: a transaction coordinator asks the leader of partitions
// to write COMMIT or ABORT markers (broker to broker; v1 is flexible).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct WriteTxnMarkersRequest {
  static constexpr ApiKey kApiKey = ApiKey::kWriteTxnMarkers;
  struct WritableTxnMarkerTopic {
    std::string_view name;
    std::vector<int32_t> partition_indexes;
  };
  struct WritableTxnMarker {
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool transaction_result = false;  // true = COMMIT
    std::vector<WritableTxnMarkerTopic> topics;
    int32_t coordinator_epoch = 0;
  };
  std::vector<WritableTxnMarker> markers;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.markers, [&](auto& marker) {
      s.i64(marker.producer_id);
      s.i16(marker.producer_epoch);
      s.boolean(marker.transaction_result);
      s.array(marker.topics, [&](auto& topic) {
        s.str(topic.name);
        s.array_i32(topic.partition_indexes);
        s.tags();
      });
      s.i32(marker.coordinator_epoch);
      s.tags();
    });
    s.tags();
  }
};

struct WriteTxnMarkersResponse {
  static constexpr ApiKey kApiKey = ApiKey::kWriteTxnMarkers;
  struct WritableTxnMarkerPartitionResult {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
  };
  struct WritableTxnMarkerTopicResult {
    std::string name;
    std::vector<WritableTxnMarkerPartitionResult> partitions;
  };
  struct WritableTxnMarkerResult {
    int64_t producer_id = 0;
    std::vector<WritableTxnMarkerTopicResult> topics;
  };
  std::vector<WritableTxnMarkerResult> markers;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.markers, [&](auto& marker) {
      s.i64(marker.producer_id);
      s.array(marker.topics, [&](auto& topic) {
        s.str(topic.name);
        s.array(topic.partitions, [&](auto& partition) {
          s.i32(partition.partition_index);
          s.i16(partition.error_code);
          s.tags();
        });
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
