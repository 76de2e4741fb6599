// The consumer group protocol of Kafka 4 (KIP-848): ConsumerGroupHeartbeat (key 68,
// v0-1, v1 adds SubscribedTopicRegex) and ConsumerGroupDescribe (key 69, v0), all
// versions flexible. A member joins, heartbeats, reports what it owns and leaves
// through one request; the coordinator answers with its epoch and the partitions it
// is to own (topic ids), computed by a server-side assignor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message.h"

namespace rokka::protocol {

// A topic's partitions, by topic id (a heartbeat's owned partitions, an assignment).
struct ConsumerGroupTopicPartitions {
  Uuid topic_id{};
  std::vector<int32_t> partitions;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.uuid(m.topic_id);
    s.array_i32(m.partitions);
    s.tags();
  }
};

struct ConsumerGroupHeartbeatRequest {
  static constexpr ApiKey kApiKey = ApiKey::kConsumerGroupHeartbeat;
  static constexpr int32_t kJoinEpoch = 0;          // member_epoch 0: join
  static constexpr int32_t kLeaveEpoch = -1;        // leave the group
  static constexpr int32_t kStaticLeaveEpoch = -2;  // a static member that will come back
  std::string_view group_id;
  std::string_view member_id;  // empty on the first heartbeat (v0); the client's own UUID in v1
  int32_t member_epoch = 0;
  // The fields below are null (or -1) when they did not change since the last heartbeat.
  std::optional<std::string_view> instance_id;
  std::optional<std::string_view> rack_id;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string_view>> subscribed_topic_names;
  std::optional<std::string_view> subscribed_topic_regex;  // v1+
  std::optional<std::string_view> server_assignor;
  std::optional<std::vector<ConsumerGroupTopicPartitions>> topic_partitions;  // what the member owns

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.str(m.group_id);
    s.str(m.member_id);
    s.i32(m.member_epoch);
    s.nstr(m.instance_id);
    s.nstr(m.rack_id);
    s.i32(m.rebalance_timeout_ms);
    s.narray(m.subscribed_topic_names, [&](auto& name) { s.str(name); });
    if (s.version >= 1) s.nstr(m.subscribed_topic_regex);
    s.nstr(m.server_assignor);
    s.narray(m.topic_partitions, [&](auto& tp) { ConsumerGroupTopicPartitions::fields(tp, s); });
    s.tags();
  }
};

struct ConsumerGroupHeartbeatResponse {
  static constexpr ApiKey kApiKey = ApiKey::kConsumerGroupHeartbeat;
  struct Assignment {
    std::vector<ConsumerGroupTopicPartitions> topic_partitions;
  };
  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::optional<std::string> member_id;  // the id to use from now on
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<Assignment> assignment;  // null when it did not change

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.throttle_time_ms);
    s.i16(m.error_code);
    s.nstr(m.error_message);
    s.nstr(m.member_id);
    s.i32(m.member_epoch);
    s.i32(m.heartbeat_interval_ms);
    s.nstruct(m.assignment, [&](auto& a) {
      s.array(a.topic_partitions, [&](auto& tp) { ConsumerGroupTopicPartitions::fields(tp, s); });
      s.tags();
    });
    s.tags();
  }
};

struct ConsumerGroupDescribeRequest {
  static constexpr ApiKey kApiKey = ApiKey::kConsumerGroupDescribe;
  std::vector<std::string_view> group_ids;
  bool include_authorized_operations = false;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array_str(m.group_ids);
    s.boolean(m.include_authorized_operations);
    s.tags();
  }
};

struct ConsumerGroupDescribeResponse {
  static constexpr ApiKey kApiKey = ApiKey::kConsumerGroupDescribe;
  struct TopicPartitions {
    Uuid topic_id{};
    std::string topic_name;
    std::vector<int32_t> partitions;
  };
  struct Assignment {
    std::vector<TopicPartitions> topic_partitions;
  };
  struct Member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    Assignment assignment;         // what it owns now
    Assignment target_assignment;  // what the assignor gave it
    int8_t member_type = -1;       // v1+ (KIP-1099): 0 classic protocol, 1 consumer protocol, -1 unknown
  };
  struct DescribedGroup {
    ErrorCode error_code = ErrorCode::kNone;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;  // Empty, Assigning, Reconciling, Stable, Dead
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;  // not asked for
  };
  int32_t throttle_time_ms = 0;
  std::vector<DescribedGroup> groups;

  template <class M, class S>
  static void fields(M& m, S& s) {
    const auto assignment = [&](auto& a) {
      s.array(a.topic_partitions, [&](auto& tp) {
        s.uuid(tp.topic_id);
        s.str(tp.topic_name);
        s.array_i32(tp.partitions);
        s.tags();
      });
      s.tags();
    };
    s.i32(m.throttle_time_ms);
    s.array(m.groups, [&](auto& g) {
      s.i16(g.error_code);
      s.nstr(g.error_message);
      s.str(g.group_id);
      s.str(g.group_state);
      s.i32(g.group_epoch);
      s.i32(g.assignment_epoch);
      s.str(g.assignor_name);
      s.array(g.members, [&](auto& member) {
        s.str(member.member_id);
        s.nstr(member.instance_id);
        s.nstr(member.rack_id);
        s.i32(member.member_epoch);
        s.str(member.client_id);
        s.str(member.client_host);
        s.array_str(member.subscribed_topic_names);
        s.nstr(member.subscribed_topic_regex);
        assignment(member.assignment);
        assignment(member.target_assignment);
        if (s.version >= 1) s.i8(member.member_type);
        s.tags();
      });
      s.i32(g.authorized_operations);
      s.tags();
    });
    s.tags();
  }
};

}  // namespace rokka::protocol
