#include "coordinator/meta_records.h"

#include "coordinator/byte_codec.h"

namespace rokka::coordinator {

namespace {

constexpr uint8_t kRecordVersion = 0;
// The fewest bytes one encoded member can take: five u32 lengths, a u8 flag, two i32s.
constexpr size_t kMinMemberBytes = 5 * 4 + 1 + 2 * 4;

std::optional<std::string> to_optional(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

}  // namespace

std::string encode_offset_key(std::string_view group_id, const TopicPartition& tp) {
  ByteWriter out;
  out.raw(kOffsetKeyPrefix);
  out.str(group_id);
  out.str(tp.topic);
  out.i32(tp.partition);
  return std::move(out).take();
}

std::optional<OffsetKey> decode_offset_key(std::string_view key) {
  if (!key.starts_with(kOffsetKeyPrefix)) return std::nullopt;
  ByteReader in(key.substr(kOffsetKeyPrefix.size()));
  OffsetKey out;
  out.group_id = std::string(in.str());
  out.tp.topic = std::string(in.str());
  out.tp.partition = in.i32();
  if (!in.at_end()) return std::nullopt;
  return out;
}

std::string encode_offset_value(const CommittedOffset& offset) {
  ByteWriter out;
  out.u8(kRecordVersion);
  out.i64(offset.offset);
  out.i32(offset.leader_epoch);
  out.i64(offset.commit_timestamp_ms);
  out.i64(offset.expire_timestamp_ms);
  out.str(offset.metadata);
  return std::move(out).take();
}

std::optional<CommittedOffset> decode_offset_value(std::string_view value) {
  ByteReader in(value);
  if (in.u8() != kRecordVersion) return std::nullopt;
  CommittedOffset out;
  out.offset = in.i64();
  out.leader_epoch = in.i32();
  out.commit_timestamp_ms = in.i64();
  out.expire_timestamp_ms = in.i64();
  out.metadata = std::string(in.str());
  if (!in.at_end()) return std::nullopt;
  return out;
}

std::string encode_group_key(std::string_view group_id) {
  std::string key(kGroupKeyPrefix);
  key.append(group_id);
  return key;
}

std::optional<std::string> decode_group_key(std::string_view key) {
  if (!key.starts_with(kGroupKeyPrefix)) return std::nullopt;
  return std::string(key.substr(kGroupKeyPrefix.size()));
}

std::string encode_group_value(const StoredGroup& group) {
  ByteWriter out;
  out.u8(kRecordVersion);
  out.u8(group.stable ? 1 : 0);
  out.i32(group.generation_id);
  out.nullable_str(group.protocol_type);
  out.nullable_str(group.protocol_name);
  out.nullable_str(group.leader_id);
  out.i64(group.state_timestamp_ms);
  out.u32(static_cast<uint32_t>(group.members.size()));
  for (const StoredMember& m : group.members) {
    out.str(m.member_id);
    out.nullable_str(m.group_instance_id);
    out.str(m.client_id);
    out.str(m.client_host);
    out.i32(m.rebalance_timeout_ms);
    out.i32(m.session_timeout_ms);
    out.str(m.subscription);
    out.str(m.assignment);
  }
  return std::move(out).take();
}

std::optional<StoredGroup> decode_group_value(std::string_view group_id, std::string_view value) {
  ByteReader in(value);
  if (in.u8() != kRecordVersion) return std::nullopt;
  StoredGroup out;
  out.group_id = std::string(group_id);
  const uint8_t state = in.u8();
  out.stable = state == 1;
  out.generation_id = in.i32();
  out.protocol_type = to_optional(in.nullable_str());
  out.protocol_name = to_optional(in.nullable_str());
  out.leader_id = to_optional(in.nullable_str());
  out.state_timestamp_ms = in.i64();
  const uint32_t count = in.u32();
  if (!in.ok() || state > 1 || count > in.remaining() / kMinMemberBytes) return std::nullopt;
  out.members.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    StoredMember m;
    m.member_id = std::string(in.str());
    m.group_instance_id = to_optional(in.nullable_str());
    m.client_id = std::string(in.str());
    m.client_host = std::string(in.str());
    m.rebalance_timeout_ms = in.i32();
    m.session_timeout_ms = in.i32();
    m.subscription = std::string(in.str());
    m.assignment = std::string(in.str());
    out.members.push_back(std::move(m));
  }
  if (!in.at_end() || out.stable == out.members.empty()) return std::nullopt;
  return out;
}

}  // namespace rokka::coordinator
