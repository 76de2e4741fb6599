// DescribeProducers (key 61), v0: active producers of partitions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeProducersRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeProducers;
  struct TopicRequest {
    std::string_view name;
    std::vector<int32_t> partition_indexes;
  };
  std::vector<TopicRequest> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array_i32(topic.partition_indexes);
      s.tags();
    });
    s.tags();
  }
};

struct DescribeProducersResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeProducers;
  struct ProducerState {
    int64_t producer_id = 0;
    int32_t producer_epoch = 0;
    int32_t last_sequence = -1;
    int64_t last_timestamp = -1;
    int32_t coordinator_epoch = 0;
    int64_t current_txn_start_offset = -1;
  };
  struct PartitionResponse {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    std::vector<ProducerState> active_producers;
  };
  struct TopicResponse {
    std::string name;
    std::vector<PartitionResponse> partitions;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TopicResponse> topics;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.topics, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partitions, [&](auto& partition) {
        s.i32(partition.partition_index);
        s.i16(partition.error_code);
        s.nstr(partition.error_message);
        s.array(partition.active_producers, [&](auto& producer) {
          s.i64(producer.producer_id);
          s.i32(producer.producer_epoch);
          s.i32(producer.last_sequence);
          s.i64(producer.last_timestamp);
          s.i32(producer.coordinator_epoch);
          s.i64(producer.current_txn_start_offset);
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
