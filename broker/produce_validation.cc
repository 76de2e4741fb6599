#include "broker/produce_validation.h"


namespace rokka::broker {

using protocol::ErrorCode;

namespace {

// RecordBatch v2 header layout (shared/kafka-protocol/README.md).
constexpr size_t kHeaderSize = 61;
constexpr size_t kLengthAt = 8, kMagicAt = 16, kAttributesAt = 21, kLastOffsetDeltaAt = 23,
                 kRecordsCountAt = 57;
constexpr int kCompressionMask = 0x07, kControlBit = 0x20;
constexpr int kZstd = 4;

uint32_t be32(const std::byte* p) {
  return std::to_integer<uint32_t>(p[0]) << 24 | std::to_integer<uint32_t>(p[1]) << 16 |
         std::to_integer<uint32_t>(p[2]) << 8 | std::to_integer<uint32_t>(p[3]);
}

uint16_t be16(const std::byte* p) {
  return static_cast<uint16_t>(std::to_integer<uint32_t>(p[0]) << 8 | std::to_integer<uint32_t>(p[1]));
}

BatchCheck fail(ErrorCode e, std::string message) { return {e, std::move(message), {}}; }

}  // namespace

BatchCheck check_produce_batch(const protocol::Records& records, int16_t produce_version, int32_t max_message_bytes) {
  if (!records.data || records.data->empty())
    return fail(ErrorCode::kInvalidRecord, "produce requests must contain exactly one record batch");
  const std::span<const std::byte> b = *records.data;
  if (b.size() < kHeaderSize) return fail(ErrorCode::kCorruptMessage, "record batch shorter than its header");
  const int32_t length = static_cast<int32_t>(be32(b.data() + kLengthAt));
  if (length < static_cast<int32_t>(kHeaderSize - 12) || static_cast<size_t>(length) + 12 > b.size())
    return fail(ErrorCode::kCorruptMessage, "record batch length does not match the bytes sent");
  if (static_cast<size_t>(length) + 12 != b.size())
    return fail(ErrorCode::kInvalidRecord, "produce requests must contain exactly one record batch");
  const int8_t magic = static_cast<int8_t>(b[kMagicAt]);
  if (magic != 2) return fail(ErrorCode::kInvalidRecord, "record batches must use magic 2 from Produce v3 on");
  const int attributes = be16(b.data() + kAttributesAt);
  const int compression = attributes & kCompressionMask;
  if (compression > kZstd) return fail(ErrorCode::kCorruptMessage, "unknown compression codec");
  if (compression == kZstd && produce_version < 7)
    return fail(ErrorCode::kUnsupportedCompressionType, "zstd needs Produce v7 or later");
  if (attributes & kControlBit) return fail(ErrorCode::kInvalidRecord, "clients may not write control batches");
  const int32_t last_offset_delta = static_cast<int32_t>(be32(b.data() + kLastOffsetDeltaAt));
  const int32_t count = static_cast<int32_t>(be32(b.data() + kRecordsCountAt));
  if (count <= 0 || last_offset_delta != count - 1)
    return fail(ErrorCode::kInvalidRecord, "record count and last offset delta disagree");
  if (b.size() > static_cast<size_t>(max_message_bytes))
    return fail(ErrorCode::kMessageTooLarge, "record batch of " + std::to_string(b.size()) +
                                                 " bytes exceeds max.message.bytes=" + std::to_string(max_message_bytes));
  return {ErrorCode::kNone, {}, b};
}

void stamp_leader_epoch(std::span<const std::byte> batch, int32_t epoch) {
  auto* p = const_cast<std::byte*>(batch.data()) + 12;
  const auto u = static_cast<uint32_t>(epoch);
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(u >> (24 - 8 * i));
}

}  // namespace rokka::broker
