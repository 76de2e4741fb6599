#include "coordinator/meta_records.h"

#include <algorithm>

#include "coordinator/byte_codec.h"

namespace rokka::coordinator {

namespace {

constexpr uint8_t kRecordVersion = 0;
// The fewest bytes one encoded member can take: five u32 lengths, a u8 flag, two i32s.
constexpr size_t kMinMemberBytes = 5 * 4 + 1 + 2 * 4;

std::optional<std::string> to_optional(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

void write_partitions(ByteWriter& out, const TopicPartitionsMap& m) {
  out.u32(static_cast<uint32_t>(m.size()));
  for (const auto& [topic, ps] : m) {
    out.str(topic);
    out.u32(static_cast<uint32_t>(ps.size()));
    for (int32_t p : ps) out.i32(p);
  }
}

bool read_partitions(ByteReader& in, TopicPartitionsMap& m) {
  const std::optional<uint32_t> topics = in.count(8);
  if (!topics) return false;
  for (uint32_t i = 0; i < *topics; ++i) {
    std::vector<int32_t>& ps = m[std::string(in.str())];
    const std::optional<uint32_t> n = in.count(4);
    if (!n) return false;
    ps.reserve(*n);
    for (uint32_t j = 0; j < *n; ++j) ps.push_back(in.i32());
  }
  return in.ok();
}

void write_strings(ByteWriter& out, const std::vector<std::string>& v) {
  out.u32(static_cast<uint32_t>(v.size()));
  for (const std::string& s : v) out.str(s);
}

bool read_strings(ByteReader& in, std::vector<std::string>& v) {
  const std::optional<uint32_t> n = in.count(4);
  if (!n) return false;
  v.reserve(*n);
  for (uint32_t i = 0; i < *n; ++i) v.emplace_back(in.str());
  return in.ok();
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

std::string encode_consumer_group_key(std::string_view group_id) {
  std::string key(kConsumerGroupKeyPrefix);
  key.append(group_id);
  return key;
}

std::optional<std::string> decode_consumer_group_key(std::string_view key) {
  if (!key.starts_with(kConsumerGroupKeyPrefix)) return std::nullopt;
  return std::string(key.substr(kConsumerGroupKeyPrefix.size()));
}

// The k/ record's versions: 0 as first written; 1 adds the classic members at the end.
constexpr uint8_t kConsumerGroupRecordVersion = 1;

std::string encode_consumer_group_value(const ConsumerGroupSnapshot& group) {
  ByteWriter out;
  out.u8(kConsumerGroupRecordVersion);
  out.i32(group.group_epoch);
  out.i32(group.assignment_epoch);
  out.u32(static_cast<uint32_t>(group.topics_seen.size()));
  for (const auto& [topic, count] : group.topics_seen) {
    out.str(topic);
    out.i32(count);
  }
  out.u32(static_cast<uint32_t>(group.regex_topics.size()));
  for (const auto& [regex, topics] : group.regex_topics) {
    out.str(regex);
    write_strings(out, topics);
  }
  out.u32(static_cast<uint32_t>(group.members.size()));
  for (const ConsumerMember& m : group.members) {
    out.str(m.member_id);
    out.i32(m.member_epoch);
    out.i32(m.previous_member_epoch);
    out.u8(static_cast<uint8_t>(m.state));
    out.nullable_str(m.instance_id);
    out.nullable_str(m.rack_id);
    out.str(m.client_id);
    out.str(m.client_host);
    out.i32(m.rebalance_timeout_ms);
    write_strings(out, m.subscribed_topics);
    out.nullable_str(m.subscribed_regex);
    out.nullable_str(m.server_assignor);
    write_partitions(out, m.assigned);
    write_partitions(out, m.revoking);
  }
  out.u32(static_cast<uint32_t>(group.target.size()));
  for (const auto& [member_id, partitions] : group.target) {
    out.str(member_id);
    write_partitions(out, partitions);
  }
  // Version 1: the classic members (KIP-848's migration).
  size_t classic = 0;
  for (const ConsumerMember& m : group.members) classic += m.classic ? 1 : 0;
  out.u32(static_cast<uint32_t>(classic));
  for (const ConsumerMember& m : group.members) {
    if (!m.classic) continue;
    out.str(m.member_id);
    out.i32(m.classic->session_timeout_ms);
    out.u32(static_cast<uint32_t>(m.classic->protocols.size()));
    for (const Protocol& p : m.classic->protocols) {
      out.str(p.name);
      out.str(p.metadata);
    }
  }
  return std::move(out).take();
}

std::optional<ConsumerGroupSnapshot> decode_consumer_group_value(std::string_view group_id, std::string_view value) {
  // The fewest bytes a member takes: id, 3 x i32, u8 state, two flags, two strings,
  // a count, two flags, two partition counts.
  constexpr size_t kMinConsumerMemberBytes = 4 + 3 * 4 + 1 + 2 + 2 * 4 + 4 + 2 + 2 * 4;
  ByteReader in(value);
  const uint8_t version = in.u8();
  if (version > kConsumerGroupRecordVersion) return std::nullopt;
  ConsumerGroupSnapshot out;
  out.group_id = std::string(group_id);
  out.group_epoch = in.i32();
  out.assignment_epoch = in.i32();
  std::optional<uint32_t> n = in.count(8);
  if (!n) return std::nullopt;
  for (uint32_t i = 0; i < *n; ++i) {
    std::string topic(in.str());
    out.topics_seen[std::move(topic)] = in.i32();
  }
  n = in.count(8);
  if (!n) return std::nullopt;
  for (uint32_t i = 0; i < *n; ++i) {
    std::string regex(in.str());
    if (!read_strings(in, out.regex_topics[std::move(regex)])) return std::nullopt;
  }
  n = in.count(kMinConsumerMemberBytes);
  if (!n) return std::nullopt;
  out.members.reserve(*n);
  for (uint32_t i = 0; i < *n; ++i) {
    ConsumerMember& m = out.members.emplace_back();
    m.member_id = std::string(in.str());
    m.member_epoch = in.i32();
    m.previous_member_epoch = in.i32();
    const uint8_t state = in.u8();
    if (state > static_cast<uint8_t>(ConsumerMember::State::kUnreleasedPartitions)) return std::nullopt;
    m.state = static_cast<ConsumerMember::State>(state);
    m.instance_id = to_optional(in.nullable_str());
    m.rack_id = to_optional(in.nullable_str());
    m.client_id = std::string(in.str());
    m.client_host = std::string(in.str());
    m.rebalance_timeout_ms = in.i32();
    if (!read_strings(in, m.subscribed_topics)) return std::nullopt;
    m.subscribed_regex = to_optional(in.nullable_str());
    m.server_assignor = to_optional(in.nullable_str());
    if (!read_partitions(in, m.assigned) || !read_partitions(in, m.revoking)) return std::nullopt;
  }
  n = in.count(8);
  if (!n) return std::nullopt;
  for (uint32_t i = 0; i < *n; ++i) {
    std::string member_id(in.str());
    if (!read_partitions(in, out.target[std::move(member_id)])) return std::nullopt;
  }
  if (version == 0) return in.at_end() ? std::optional<ConsumerGroupSnapshot>(std::move(out)) : std::nullopt;
  // Classic members: id, session timeout, protocols (each two strings).
  n = in.count(4 + 4 + 4);
  if (!n) return std::nullopt;
  for (uint32_t i = 0; i < *n; ++i) {
    const std::string_view member_id = in.str();
    auto m = std::find_if(out.members.begin(), out.members.end(),
                          [&](const ConsumerMember& x) { return x.member_id == member_id; });
    if (m == out.members.end() || m->classic) return std::nullopt;
    ClassicMemberMetadata& classic = m->classic.emplace();
    classic.session_timeout_ms = in.i32();
    const std::optional<uint32_t> protocols = in.count(8);
    if (!protocols) return std::nullopt;
    for (uint32_t j = 0; j < *protocols; ++j) {
      Protocol& p = classic.protocols.emplace_back();
      p.name = std::string(in.str());
      p.metadata = std::string(in.str());
    }
  }
  if (!in.at_end()) return std::nullopt;
  return out;
}

}  // namespace rokka::coordinator
