// EndTxn (key 26), v0-v3: commits or aborts a transaction.
#pragma once

#include <cstdint>
#include <string_view>

#include "protocol/message.h"

namespace rokka::protocol {

struct EndTxnRequest {
  static constexpr ApiKey kApiKey = ApiKey::kEndTxn;
  std::string_view transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  bool committed = false;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.transactional_id);
    s.i64(m.producer_id);
    s.i16(m.producer_epoch);
    s.boolean(m.committed);
    s.tags();
  }
};

struct EndTxnResponse {
  static constexpr ApiKey kApiKey = ApiKey::kEndTxn;
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.tags();
  }
};

}  // namespace rokka::protocol
