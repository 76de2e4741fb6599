// The "consumer" embedded protocol: what a Kafka consumer puts in JoinGroup's
// protocol metadata (its subscription) and what the group leader puts in SyncGroup's
// assignments. The coordinator passes these bytes through untouched; it reads them
// only when it must know a member's topics (OffsetDelete, DescribeGroups tooling).
//
// Wire: int16 version, then the fields of that version (classic encoding, never
// flexible). A version above the newest we know decodes as the newest, ignoring
// trailing bytes, as Kafka's own readers do for forward compatibility.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "protocol/codec.h"

namespace rokka::protocol {

struct ConsumerProtocolTopicPartition {
  std::string_view topic;
  std::vector<int32_t> partitions;
};

struct ConsumerProtocolSubscription {
  static constexpr int16_t kMaxVersion = 3;
  std::vector<std::string_view> topics;
  std::optional<Bytes> user_data;
  std::vector<ConsumerProtocolTopicPartition> owned_partitions;  // v1+
  int32_t generation_id = -1;                                    // v2+
  std::optional<std::string_view> rack_id;                       // v3+

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array_str(m.topics);
    s.nbytes(m.user_data);
    if (s.version >= 1) {
      s.array(m.owned_partitions, [&](auto& owned) {
        s.str(owned.topic);
        s.array_i32(owned.partitions);
      });
    }
    if (s.version >= 2) s.i32(m.generation_id);
    if (s.version >= 3) s.nstr(m.rack_id);
  }
};

struct ConsumerProtocolAssignment {
  static constexpr int16_t kMaxVersion = 3;  // v1-v3 add nothing to v0
  std::vector<ConsumerProtocolTopicPartition> assigned_partitions;
  std::optional<Bytes> user_data;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.array(m.assigned_partitions, [&](auto& assigned) {
      s.str(assigned.topic);
      s.array_i32(assigned.partitions);
    });
    s.nbytes(m.user_data);
  }
};

// Decodes version + body into `out` (views point into `bytes`); the version read is
// stored in `*version` if given. False if malformed or the version is negative.
template <class T>
bool decode_consumer_protocol(Bytes bytes, T& out, int16_t* version = nullptr) {
  Reader r(bytes);
  const int16_t v = r.read_int16();
  if (!r.ok() || v < 0) return false;
  if (version) *version = v;
  const int16_t known = v > T::kMaxVersion ? T::kMaxVersion : v;
  if (!decode_message(out, r, known, false)) return false;
  return known < v || r.at_end();
}

template <class T>
std::vector<std::byte> encode_consumer_protocol(const T& in, int16_t version) {
  Writer w;
  w.write_int16(version);
  encode_message(in, w, version, false);
  return std::move(w).take();
}

}  // namespace rokka::protocol
