// Kafka's RecordBatch v2 (magic 2, KIP-98) header, once: field offsets, attribute bits,
// control record types, and the structural checks both protocol/ and storage/ apply
// (frame, lacks_sequence). protocol/record_batch.h reads batches a client sends with
// these; storage/ checks what it is given, patches the base offset, reads producer
// fields and finds markers with them. Big-endian (wire/endian.h); the CRC-32C covers [kAttributes, end).
//
//   0 BaseOffset int64      8 Length int32 (bytes after this field)   12 PartitionLeaderEpoch int32
//  16 Magic int8           17 CRC uint32    21 Attributes int16        23 LastOffsetDelta int32
//  27 BaseTimestamp int64  35 MaxTimestamp int64   43 ProducerId int64   51 ProducerEpoch int16
//  53 BaseSequence int32   57 RecordsCount int32   61 Records (compressed as a whole if a codec is set)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "wire/endian.h"

namespace rokka::wire::batch {

inline constexpr int kBaseOffset = 0;        // int64, outside the CRC
inline constexpr int kLength = 8;            // int32: bytes after this field
inline constexpr int kLeaderEpoch = 12;      // int32 PartitionLeaderEpoch, outside the CRC
inline constexpr int kMagic = 16;            // int8 = 2
inline constexpr int kCrc = 17;              // uint32 CRC-32C of [kAttributes, end)
inline constexpr int kAttributes = 21;       // int16
inline constexpr int kLastOffsetDelta = 23;  // int32
inline constexpr int kBaseTimestamp = 27;    // int64
inline constexpr int kMaxTimestamp = 35;     // int64
inline constexpr int kProducerId = 43;       // int64
inline constexpr int kProducerEpoch = 51;    // int16
inline constexpr int kBaseSequence = 53;     // int32
inline constexpr int kRecordsCount = 57;     // int32
inline constexpr int kHeaderSize = 61;       // the records start here
inline constexpr int kLengthOverhead = 12;   // BaseOffset + Length: the bytes Length does not count
inline constexpr int8_t kMagicV2 = 2;

// Attribute bits.
inline constexpr int16_t kCompressionMask = 0x07;
inline constexpr int16_t kTimestampTypeBit = 0x08;  // LogAppendTime
inline constexpr int16_t kTransactionalBit = 0x10;
inline constexpr int16_t kControlBit = 0x20;
inline constexpr int16_t kDeleteHorizonBit = 0x40;
inline constexpr int16_t kDefinedAttributeBits = 0x7f;

// The framing of the batch at the front of `b`, checked as Kafka reads a record set
// (ByteBufferLogInputStream): the bytes up to Magic present; a Length below the smallest
// message of any format (14, a magic 0 message) is corrupt before Magic is looked at;
// then magic 2 (0 and 1 are the old format); then a Length that holds the 61-byte header
// and does not run past `b`. On kOk, *size = kLengthOverhead + Length: the batch's bytes,
// possibly fewer than b.size(). protocol/ (a produced batch: its error codes) and
// storage/ (every batch the store is given: one batch filling its bytes exactly) use it.
enum class Framing : uint8_t {
  kOk,
  kTruncatedHeader,    // fewer bytes than BaseOffset..Magic
  kLengthBelowHeader,  // Length leaves no room for the 61-byte header
  kLengthBeyondData,   // Length says more bytes than are present
  kOldMagic,           // magic 0 or 1: the pre-0.11 message format
  kUnknownMagic,       // magic other than 0, 1 or 2
};
inline constexpr int32_t kMinLegacyMessageLength = 14;  // a magic 0 message: CRC, magic, attributes, key and value lengths

inline Framing frame(std::span<const std::byte> b, size_t* size) {
  if (b.size() <= static_cast<size_t>(kMagic)) return Framing::kTruncatedHeader;
  const int64_t length = load_be<int32_t>(b.data() + kLength);
  if (length < kMinLegacyMessageLength) return Framing::kLengthBelowHeader;
  const auto magic = static_cast<int8_t>(b[kMagic]);
  if (magic == 0 || magic == 1) return Framing::kOldMagic;
  if (magic != kMagicV2) return Framing::kUnknownMagic;
  if (length < kHeaderSize - kLengthOverhead) return Framing::kLengthBelowHeader;
  if (length > static_cast<int64_t>(b.size() - kLengthOverhead)) return Framing::kLengthBeyondData;
  *size = static_cast<size_t>(kLengthOverhead + length);
  return Framing::kOk;
}

// Kafka's rule for a data batch with a producer id (idempotent or transactional): it
// carries a BaseSequence. Control batches (transaction markers) have none.
// REQUIRES: b.size() >= kHeaderSize.
inline bool lacks_sequence(std::span<const std::byte> b) {
  return load_be<int64_t>(b.data() + kProducerId) >= 0 && load_be<int32_t>(b.data() + kBaseSequence) < 0 &&
         (load_be<int16_t>(b.data() + kAttributes) & kControlBit) == 0;
}

// A control record's key type (the key is int16 version, int16 type).
inline constexpr int kControlAbort = 0;
inline constexpr int kControlCommit = 1;

// The marker type of a control batch's (first) record: kControlAbort or kControlCommit,
// or -1 when it cannot be read (compressed, truncated, key shorter than 4 bytes). The
// record is: length varint, attributes int8, timestamp delta varlong, offset delta
// varint, key length varint, key = version int16 + type int16, ...
// REQUIRES: b.size() >= kHeaderSize.
inline int control_record_type(std::span<const std::byte> b) {
  if ((load_be<int16_t>(b.data() + kAttributes) & kCompressionMask) != 0) return -1;
  size_t pos = kHeaderSize;
  auto skip_varint = [&](int max_bytes) {  // zig-zag value unused: only its extent matters
    for (int i = 0; i < max_bytes && pos < b.size(); ++i)
      if ((std::to_integer<int>(b[pos++]) & 0x80) == 0) return true;
    return false;
  };
  if (!skip_varint(5) || pos >= b.size()) return -1;  // record length
  ++pos;                                                 // attributes
  if (!skip_varint(10) || !skip_varint(5)) return -1;   // timestamp delta, offset delta
  const size_t key_len_at = pos;
  if (!skip_varint(5) || pos - key_len_at != 1) return -1;  // a 4-byte key's length is one byte
  if (std::to_integer<int>(b[key_len_at]) < 8 || b.size() - pos < 4) return -1;  // zig-zag(4) = 8
  return load_be<int16_t>(b.data() + pos + 2);
}

}  // namespace rokka::wire::batch
