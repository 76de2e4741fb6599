// DescribeCluster (key 60), v0-v2: the cluster id, controller and brokers (v2, KIP-1073:
// fenced brokers on request, and each broker's fenced flag).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct DescribeClusterRequest {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeCluster;
  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = 1;  // v1+
  bool include_fenced_brokers = false;  // v2+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.boolean(m.include_cluster_authorized_operations);
    if (s.version >= 1) s.i8(m.endpoint_type);
    if (s.version >= 2) s.boolean(m.include_fenced_brokers);
    s.tags();
  }
};

struct DescribeClusterResponse {
  static constexpr ApiKey kApiKey = ApiKey::kDescribeCluster;
  struct DescribeClusterBroker {
    int32_t broker_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    bool is_fenced = false;  // v2+
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  int8_t endpoint_type = 1;  // v1+
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<DescribeClusterBroker> brokers;
  int32_t cluster_authorized_operations = std::numeric_limits<int32_t>::min();

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    if (s.version >= 1) s.i8(m.endpoint_type);
    s.str(m.cluster_id);
    s.i32(m.controller_id);
    s.array(m.brokers, [&](auto& broker) {
      s.i32(broker.broker_id);
      s.str(broker.host);
      s.i32(broker.port);
      s.nstr(broker.rack);
      if (s.version >= 2) s.boolean(broker.is_fenced);
      s.tags();
    });
    s.i32(m.cluster_authorized_operations);
    s.tags();
  }
};

}  // namespace rokka::protocol
