#include "coordinator/consumer_protocol.h"

#include <cstdint>

#include "coordinator/byte_codec.h"

namespace rokka::coordinator {

std::optional<std::vector<std::string>> parse_subscription_topics(std::string_view metadata) {
  ByteReader in(metadata);
  const int16_t version = in.i16();
  const int32_t count = in.i32();
  // Each topic takes at least its 2-byte length: a count the bytes cannot hold is a lie.
  if (!in.ok() || version < 0 || count < 0 || static_cast<size_t>(count) > in.remaining() / 2) return std::nullopt;
  std::vector<std::string> topics;
  topics.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    const int16_t length = in.i16();
    if (length < 0) return std::nullopt;
    topics.emplace_back(in.raw(static_cast<size_t>(length)));
  }
  if (!in.ok()) return std::nullopt;
  return topics;
}

}  // namespace rokka::coordinator
