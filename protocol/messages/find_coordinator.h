// FindCoordinator (key 10), v0-v6: which broker coordinates a group or transactional id (batched from v4;
// v5 allows TRANSACTION_ABORTABLE, v6 share-group keys, KIP-932).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct FindCoordinatorRequest {
  static constexpr ApiKey kApiKey = ApiKey::kFindCoordinator;
  std::string_view key;  // v0-3
  int8_t key_type = 0;  // v1+
  std::vector<std::string_view> coordinator_keys;  // v4+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version <= 3) s.str(m.key);
    if (s.version >= 1) s.i8(m.key_type);
    if (s.version >= 4) s.array_str(m.coordinator_keys);
    s.tags();
  }
};

struct FindCoordinatorResponse {
  static constexpr ApiKey kApiKey = ApiKey::kFindCoordinator;
  struct Coordinator {
    std::string key;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::kNone;  // v0-3
  std::optional<std::string> error_message;  // v1-3
  int32_t node_id = 0;  // v0-3
  std::string host;  // v0-3
  int32_t port = 0;  // v0-3
  std::vector<Coordinator> coordinators;  // v4+

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 1) s.i32(m.throttle_time_ms);
    if (s.version <= 3) s.i16(m.error_code);
    if (s.version >= 1 && s.version <= 3) s.nstr(m.error_message);
    if (s.version <= 3) {
      s.i32(m.node_id);
      s.str(m.host);
      s.i32(m.port);
    }
    if (s.version >= 4) {
      s.array(m.coordinators, [&](auto& coordinator) {
        s.str(coordinator.key);
        s.i32(coordinator.node_id);
        s.str(coordinator.host);
        s.i32(coordinator.port);
        s.i16(coordinator.error_code);
        s.nstr(coordinator.error_message);
        s.tags();
      });
    }
    s.tags();
  }
};

}  // namespace rokka::protocol
