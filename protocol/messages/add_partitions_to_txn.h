// AddPartitionsToTxn (key 24), v0-v3: adds partitions to a producer's ongoing transaction.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct AddPartitionsToTxnRequest {
  static constexpr ApiKey kApiKey = ApiKey::kAddPartitionsToTxn;
  struct AddPartitionsToTxnTopic {
    std::string_view name;
    std::vector<int32_t> partitions;
  };
  std::string_view v3_and_below_transactional_id;
  int64_t v3_and_below_producer_id = 0;
  int16_t v3_and_below_producer_epoch = 0;
  std::vector<AddPartitionsToTxnTopic> v3_and_below_topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.v3_and_below_transactional_id);
    s.i64(m.v3_and_below_producer_id);
    s.i16(m.v3_and_below_producer_epoch);
    s.array(m.v3_and_below_topics, [&](auto& topic) {
      s.str(topic.name);
      s.array_i32(topic.partitions);
      s.tags();
    });
    s.tags();
  }
};

struct AddPartitionsToTxnResponse {
  static constexpr ApiKey kApiKey = ApiKey::kAddPartitionsToTxn;
  struct AddPartitionsToTxnPartitionResult {
    int32_t partition_index = 0;
    ErrorCode partition_error_code = ErrorCode::kNone;
  };
  struct AddPartitionsToTxnTopicResult {
    std::string name;
    std::vector<AddPartitionsToTxnPartitionResult> results_by_partition;
  };
  int32_t throttle_time_ms = 0;
  std::vector<AddPartitionsToTxnTopicResult> results_by_topic_v3_and_below;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.results_by_topic_v3_and_below, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.results_by_partition, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i16(partition.partition_error_code);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
