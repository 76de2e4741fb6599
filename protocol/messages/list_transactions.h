// ListTransactions (key 66), v0-2 (flexible): transactional ids, filtered by state,
// producer id, (v1+) how long the transaction has been running and (v2+, KIP-1152) a
// regular expression the id must match.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct ListTransactionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::kListTransactions;
  std::vector<std::string_view> state_filters;
  std::vector<int64_t> producer_id_filters;
  int64_t duration_filter = -1;  // v1+; < 0: no filter
  std::optional<std::string_view> transactional_id_pattern;  // v2+; null or empty: no filter

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array_str(m.state_filters);
    s.array_i64(m.producer_id_filters);
    if (s.version >= 1) s.i64(m.duration_filter);
    if (s.version >= 2) s.nstr(m.transactional_id_pattern);
    s.tags();
  }
};

struct ListTransactionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::kListTransactions;
  struct TransactionState {
    std::string transactional_id;
    int64_t producer_id = -1;
    std::string transaction_state;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::vector<std::string> unknown_state_filters;
  std::vector<TransactionState> transaction_states;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.array_str(m.unknown_state_filters);
    s.array(m.transaction_states, [&](auto& txn) {
      s.str(txn.transactional_id);
      s.i64(txn.producer_id);
      s.str(txn.transaction_state);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
