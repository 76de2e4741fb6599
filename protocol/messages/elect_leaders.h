// ElectLeaders (key 43), v0-v2: elect the preferred (or, unclean, any live) replica
// leader of partitions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct ElectLeadersRequest {
  static constexpr ApiKey kApiKey = ApiKey::kElectLeaders;
  struct TopicPartitions {
    std::string_view topic;
    std::vector<int32_t> partitions;
  };
  int8_t election_type = 0;  // v1+: 0 preferred, 1 unclean
  std::optional<std::vector<TopicPartitions>> topic_partitions;  // null: every partition
  int32_t timeout_ms = 60000;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i8(m.election_type);
    s.narray(m.topic_partitions, [&](auto& topic) {
      s.str(topic.topic);
      s.array_i32(topic.partitions);
      s.tags();
    });
    s.i32(m.timeout_ms);
    s.tags();
  }
};

struct ElectLeadersResponse {
  static constexpr ApiKey kApiKey = ApiKey::kElectLeaders;
  struct PartitionResult {
    int32_t partition_id = 0;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
  };
  struct ReplicaElectionResult {
    std::string topic;
    std::vector<PartitionResult> partition_result;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;  // v1+
  std::vector<ReplicaElectionResult> replica_election_results;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    if (s.version >= 1) s.i16(m.error_code);
    s.array(m.replica_election_results, [&](auto& topic) {
      s.str(topic.topic);
      s.array(topic.partition_result, [&](auto& partition) {
        s.i32(partition.partition_id);
        s.i16(partition.error_code);
        s.nstr(partition.error_message);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
