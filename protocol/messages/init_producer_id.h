// InitProducerId (key 22), v0-v5 (v5 only lets the broker answer TRANSACTION_ABORTABLE, KIP-890): hands out a producer id and epoch (idempotent and transactional producers).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "protocol/message.h"

namespace rokka::protocol {

struct InitProducerIdRequest {
  static constexpr ApiKey kApiKey = ApiKey::kInitProducerId;
  std::optional<std::string_view> transactional_id;
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;  // v3+
  int16_t producer_epoch = -1;  // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.nstr(m.transactional_id);
    s.i32(m.transaction_timeout_ms);
    if (s.version >= 3) {
      s.i64(m.producer_id);
      s.i16(m.producer_epoch);
    }
    s.tags();
  }
};

struct InitProducerIdResponse {
  static constexpr ApiKey kApiKey = ApiKey::kInitProducerId;
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  int64_t producer_id = -1;
  int16_t producer_epoch = 0;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.i64(m.producer_id);
    s.i16(m.producer_epoch);
    s.tags();
  }
};

}  // namespace rokka::protocol
