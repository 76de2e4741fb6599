#include "coordinator/consumer_protocol.h"

#include <algorithm>

#include "coordinator/byte_codec.h"

namespace rokka::coordinator {
namespace {

constexpr int16_t kNewestVersion = 3;

// Kafka's ConsumerProtocol: int32 counts (ByteReader::count: a negative one is refused as
// too many) and int16-length strings (str16).
bool read_topics(ByteReader& in, std::vector<std::string>& out) {
  const auto count = in.count(2);
  if (!count) return false;
  out.reserve(*count);
  for (size_t i = 0; i < *count; ++i) {
    const std::string_view topic = in.str16();
    if (!in.ok()) return false;
    out.emplace_back(topic);
  }
  return in.ok();
}

// [topic string, [int32]] ...
bool read_partitions(ByteReader& in, TopicPartitionsMap& out) {
  const auto count = in.count(6);
  if (!count) return false;
  for (size_t i = 0; i < *count; ++i) {
    const std::string topic(in.str16());
    const auto n = in.count(4);  // nullopt too when the topic did not read
    if (!n) return false;
    std::vector<int32_t>& ps = out[topic];
    for (size_t j = 0; j < *n; ++j) ps.push_back(in.i32());
    std::sort(ps.begin(), ps.end());
    ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
    if (ps.empty()) out.erase(topic);
  }
  return in.ok();
}

bool skip_nullable_bytes(ByteReader& in) {
  const int32_t length = in.i32();
  if (length == -1) return in.ok();
  if (length < 0) return false;
  (void)in.raw(static_cast<size_t>(length));
  return in.ok();
}

}  // namespace

std::optional<ConsumerSubscription> parse_subscription(std::string_view metadata) {
  ByteReader in(metadata);
  ConsumerSubscription s;
  s.version = in.i16();
  if (!in.ok() || s.version < 0) return std::nullopt;
  const int16_t v = std::min(s.version, kNewestVersion);
  if (!read_topics(in, s.topics) || !skip_nullable_bytes(in)) return std::nullopt;
  if (v >= 1 && !read_partitions(in, s.owned)) return std::nullopt;
  if (v >= 2) s.generation_id = in.i32();
  if (v >= 3) {
    const std::optional<std::string_view> rack = in.nullable_str16();
    if (!in.ok()) return std::nullopt;
    if (rack) s.rack_id = std::string(*rack);
  }
  if (!in.ok() || (s.version <= kNewestVersion && !in.at_end())) return std::nullopt;
  return s;
}

std::optional<std::vector<std::string>> parse_subscription_topics(std::string_view metadata) {
  ByteReader in(metadata);
  const int16_t version = in.i16();
  std::vector<std::string> topics;
  if (!in.ok() || version < 0 || !read_topics(in, topics)) return std::nullopt;
  return topics;
}

std::optional<int16_t> subscription_version(std::string_view metadata) {
  ByteReader in(metadata);
  const int16_t version = in.i16();
  if (!in.ok() || version < 0) return std::nullopt;
  return version;
}

std::optional<TopicPartitionsMap> parse_assignment(std::string_view bytes) {
  TopicPartitionsMap out;
  if (bytes.empty()) return out;
  ByteReader in(bytes);
  const int16_t version = in.i16();
  if (!in.ok() || version < 0 || !read_partitions(in, out) || !skip_nullable_bytes(in)) return std::nullopt;
  if (version <= kNewestVersion && !in.at_end()) return std::nullopt;
  return out;
}

std::string encode_assignment(const TopicPartitionsMap& partitions, int16_t version) {
  ByteWriter out;
  out.i16(std::clamp<int16_t>(version, 0, kNewestVersion));
  out.i32(static_cast<int32_t>(partitions.size()));
  for (const auto& [topic, ps] : partitions) {
    out.str16(topic);
    out.i32(static_cast<int32_t>(ps.size()));
    for (int32_t p : ps) out.i32(p);
  }
  out.i32(-1);  // user data: null
  return std::move(out).take();
}

}  // namespace rokka::coordinator
