// Produce (key 0), v0-v11: appends records to partitions (v0-v2 carry the pre-0.11
// message format, see protocol/legacy_records.h; v3+ record batches). v10+ answers carry
// the current-leader hint (protocol/messages/leader_hint.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"
#include "protocol/messages/leader_hint.h"

namespace rokka::protocol {

struct ProduceRequest {
  static constexpr ApiKey kApiKey = ApiKey::kProduce;
  struct PartitionProduceData {
    int32_t index = 0;
    Records records;
  };
  struct TopicProduceData {
    std::string_view name;
    std::vector<PartitionProduceData> partition_data;
  };
  std::optional<std::string_view> transactional_id;
  int16_t acks = 0;
  int32_t timeout_ms = 0;
  std::vector<TopicProduceData> topic_data;

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 3) s.nstr(m.transactional_id);
    s.i16(m.acks);
    s.i32(m.timeout_ms);
    s.array(m.topic_data, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partition_data, [&](auto& partition) {
        s.i32(partition.index);
        s.records(partition.records);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

struct ProduceResponse {
  static constexpr ApiKey kApiKey = ApiKey::kProduce;
  struct BatchIndexAndErrorMessage {
    int32_t batch_index = 0;
    std::optional<std::string> batch_index_error_message;
  };
  struct PartitionProduceResponse {
    int32_t index = 0;
    ErrorCode error_code = ErrorCode::kNone;
    int64_t base_offset = 0;
    int64_t log_append_time_ms = -1;
    int64_t log_start_offset = -1;  // v5+
    std::vector<BatchIndexAndErrorMessage> record_errors;  // v8+
    std::optional<std::string> error_message;  // v8+
    LeaderIdAndEpoch current_leader;  // v10+, tag 0
  };
  struct TopicProduceResponse {
    std::string name;
    std::vector<PartitionProduceResponse> partition_responses;
  };
  std::vector<TopicProduceResponse> responses;
  int32_t throttle_time_ms = 0;
  std::vector<NodeEndpoint> node_endpoints;  // v10+, tag 0: the leaders named in current_leader

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.responses, [&](auto& topic) {
      s.str(topic.name);
      s.array(topic.partition_responses, [&](auto& partition) {
        s.i32(partition.index);
        s.i16(partition.error_code);
        s.i64(partition.base_offset);
        if (s.version >= 2) s.i64(partition.log_append_time_ms);
        if (s.version >= 5) s.i64(partition.log_start_offset);
        if (s.version >= 8) {
          s.array(partition.record_errors, [&](auto& error) {
            s.i32(error.batch_index);
            s.nstr(error.batch_index_error_message);
            s.tags();
          });
          s.nstr(partition.error_message);
        }
        if (s.version >= 10) {
          s.tags(tagged(0, !partition.current_leader.is_default(),
                        [&](auto& t) { LeaderIdAndEpoch::fields(partition.current_leader, t); }));
        } else {
          s.tags();
        }
      });
      s.tags();
    });
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    if (s.version >= 10) {
      s.tags(tagged(0, !m.node_endpoints.empty(), [&](auto& t) {
        t.array(m.node_endpoints, [&](auto& n) { NodeEndpoint::fields(n, t); });
      }));
    } else {
      s.tags();
    }
  }
};

}  // namespace rokka::protocol
