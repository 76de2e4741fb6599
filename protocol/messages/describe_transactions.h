// DescribeTransactions (key 65), v0 (flexible): the state of transactional ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeTransactionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeTransactions;
  std::vector<std::string_view> transactional_ids;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array_str(m.transactional_ids);
    s.tags();
  }
};

struct DescribeTransactionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeTransactions;
  struct TopicData {
    std::string topic;
    std::vector<int32_t> partitions;
  };
  struct TransactionState {
    ErrorCode error_code = ErrorCode::kNone;
    std::string transactional_id;
    std::string transaction_state;
    int32_t transaction_timeout_ms = 0;
    int64_t transaction_start_time_ms = -1;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    std::vector<TopicData> topics;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TransactionState> transaction_states;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.array(m.transaction_states, [&](auto& txn) {
      s.i16(txn.error_code);
      s.str(txn.transactional_id);
      s.str(txn.transaction_state);
      s.i32(txn.transaction_timeout_ms);
      s.i64(txn.transaction_start_time_ms);
      s.i64(txn.producer_id);
      s.i16(txn.producer_epoch);
      s.array(txn.topics, [&](auto& topic) {
        s.str(topic.topic);
        s.array_i32(topic.partitions);
        s.tags();
      });
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
