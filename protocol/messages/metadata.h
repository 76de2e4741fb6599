// Metadata (key 3), v0-v13: brokers, topics, partitions and leaders (may auto-create topics).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

struct MetadataRequest {
  static constexpr ApiKey kApiKey = ApiKey::kMetadata;
  struct MetadataRequestTopic {
    Uuid topic_id;  // v10+
    std::optional<std::string_view> name;  // null only from v10 (asked by id)
  };
  std::optional<std::vector<MetadataRequestTopic>> topics;  // null (v1+): all topics; v0: empty means all
  bool allow_auto_topic_creation = true;  // v4+
  bool include_cluster_authorized_operations = false;  // v8-10
  bool include_topic_authorized_operations = false;  // v8+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.narray(m.topics, [&](auto& topic) {
      if (s.version >= 10) s.uuid(topic.topic_id);
      s.nstr(topic.name);
      s.tags();
    });
    if (s.version >= 4) s.boolean(m.allow_auto_topic_creation);
    if (s.version >= 8 && s.version <= 10) s.boolean(m.include_cluster_authorized_operations);
    if (s.version >= 8) s.boolean(m.include_topic_authorized_operations);
    s.tags();
  }
};

struct MetadataResponse {
  static constexpr ApiKey kApiKey = ApiKey::kMetadata;
  struct MetadataResponseBroker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;  // v1+
  };
  struct MetadataResponsePartition {
    ErrorCode error_code = ErrorCode::kNone;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;  // v7+
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;  // v5+
  };
  struct MetadataResponseTopic {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> name;  // null only from v12 (unknown topic asked by id)
    Uuid topic_id;  // v10+
    bool is_internal = false;  // v1+
    std::vector<MetadataResponsePartition> partitions;
    int32_t topic_authorized_operations = std::numeric_limits<int32_t>::min();  // v8+
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<MetadataResponseBroker> brokers;
  std::optional<std::string> cluster_id;  // v2+
  int32_t controller_id = -1;  // v1+
  std::vector<MetadataResponseTopic> topics;
  int32_t cluster_authorized_operations = std::numeric_limits<int32_t>::min();  // v8-10
  ErrorCode error_code = ErrorCode::kNone;  // v13+: the top-level error (KIP-1102)

  template <class M, class S>
  static void fields(M& m, S& s) {
    if (s.version >= 3) s.i32(m.throttle_time_ms);
    s.array(m.brokers, [&](auto& broker) {
      s.i32(broker.node_id);
      s.str(broker.host);
      s.i32(broker.port);
      if (s.version >= 1) s.nstr(broker.rack);
      s.tags();
    });
    if (s.version >= 2) s.nstr(m.cluster_id);
    if (s.version >= 1) s.i32(m.controller_id);
    s.array(m.topics, [&](auto& topic) {
      s.i16(topic.error_code);
      s.nstr(topic.name);
      if (s.version >= 10) s.uuid(topic.topic_id);
      if (s.version >= 1) s.boolean(topic.is_internal);
      s.array(topic.partitions, [&](auto& partition) {
        s.i16(partition.error_code);
        s.i32(partition.partition_index);
        s.i32(partition.leader_id);
        if (s.version >= 7) s.i32(partition.leader_epoch);
        s.array_i32(partition.replica_nodes);
        s.array_i32(partition.isr_nodes);
        if (s.version >= 5) s.array_i32(partition.offline_replicas);
        s.tags();
      });
      if (s.version >= 8) s.i32(topic.topic_authorized_operations);
      s.tags();
    });
    if (s.version >= 8 && s.version <= 10) s.i32(m.cluster_authorized_operations);
    if (s.version >= 13) s.i16(m.error_code);
    s.tags();
  }
};

}  // namespace rokka::protocol
