// The coordinator's records in storage::MetaStore, and their binary encoding.
//
//   "o/" u32 len, group, u32 len, topic, i32 partition  ->  committed offset
//        value: u8 version(0), i64 offset, i32 leader epoch, i64 commit time,
//               i64 expire time (-1), u32 len + metadata
//   "g/" group                                           ->  group metadata
//        value: u8 version(0), u8 state (0 Empty, 1 Stable), i32 generation,
//               nullable protocol type, nullable protocol name, nullable leader,
//               i64 state time, u32 member count, then per member: id, nullable
//               instance id, client id, client host, i32 rebalance timeout,
//               i32 session timeout, subscription (the selected protocol's
//               metadata), assignment
//   "k/" group                                           ->  consumer group (KIP-848)
//        value: u8 version(0), i32 group epoch, i32 assignment epoch, topics seen
//               (u32 count, then topic, i32 partitions), regexes (u32 count, then
//               regex, u32 count, topics), u32 member count, then per member: id,
//               i32 epoch, i32 previous epoch, u8 state, nullable instance id,
//               nullable rack, client id, client host, i32 rebalance timeout,
//               subscribed topics (u32 count, names), nullable regex, nullable
//               assignor, assigned, revoking; then the target (u32 count, then
//               member id, partitions). "partitions" is u32 topic count, then per
//               topic: name, u32 count, i32 partition ids.
// Integers are big-endian; strings are u32 length + bytes; "nullable" is a u8 flag
// (0 = null) before the string. Keys sort by group, so a group's offsets are adjacent.
//
// Decoders take bytes from disk as untrusted: every length is bounded by the bytes
// present, a count by what the remaining bytes could hold, and trailing bytes are an
// error. A record that does not decode is skipped (and logged) at load.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/committed_offset.h"
#include "coordinator/consumer_group.h"
#include "storage/meta_keys.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

inline constexpr std::string_view kOffsetKeyPrefix = storage::meta_prefix::kOffsets;
inline constexpr std::string_view kGroupKeyPrefix = storage::meta_prefix::kGroups;
inline constexpr std::string_view kConsumerGroupKeyPrefix = storage::meta_prefix::kConsumerGroups;

struct OffsetKey {
  std::string group_id;
  TopicPartition tp;
};

std::string encode_offset_key(std::string_view group_id, const TopicPartition& tp);
std::optional<OffsetKey> decode_offset_key(std::string_view key);
std::string encode_offset_value(const CommittedOffset& offset);
std::optional<CommittedOffset> decode_offset_value(std::string_view value);

struct StoredMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string subscription;  // metadata for the group's selected protocol
  std::string assignment;
  bool operator==(const StoredMember&) const = default;
};

// A group as of its last completed generation: Stable with members, or Empty.
struct StoredGroup {
  std::string group_id;  // from the key
  bool stable = false;
  int32_t generation_id = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::optional<std::string> leader_id;
  int64_t state_timestamp_ms = -1;
  std::vector<StoredMember> members;
  bool operator==(const StoredGroup&) const = default;
};

std::string encode_group_key(std::string_view group_id);
std::optional<std::string> decode_group_key(std::string_view key);
std::string encode_group_value(const StoredGroup& group);
// `group_id` is taken from the key.
std::optional<StoredGroup> decode_group_value(std::string_view group_id, std::string_view value);

std::string encode_consumer_group_key(std::string_view group_id);
std::optional<std::string> decode_consumer_group_key(std::string_view key);
std::string encode_consumer_group_value(const ConsumerGroupSnapshot& group);
// `group_id` is taken from the key.
std::optional<ConsumerGroupSnapshot> decode_consumer_group_value(std::string_view group_id, std::string_view value);

}  // namespace rokka::coordinator
