#include "protocol/legacy_records.h"

#include <zlib.h>

#include <algorithm>
#include <deque>
#include <optional>

#include "protocol/compression.h"

namespace rokka::protocol {
namespace {

constexpr size_t kEntryOverhead = 12;      // Offset + MessageSize
constexpr int32_t kMinMessageSize = 14;    // Crc, Magic, Attributes, two lengths
constexpr int8_t kLegacyCodecMask = 0x07;

struct LegacyMessage {
  int64_t timestamp = -1;
  std::optional<Bytes> key;
  std::optional<Bytes> value;
};

// What reading a message set needs besides the bytes: the decompressed buffers
// (inner messages point into them) and the output bound left.
struct ReadState {
  std::deque<std::vector<std::byte>> arena;
  size_t budget = 0;
  std::vector<LegacyMessage> messages;
};

std::optional<Bytes> read_legacy_bytes(Reader& r) {
  const int32_t n = r.read_int32();
  if (n == -1) return std::nullopt;
  if (n < 0 || static_cast<size_t>(n) > r.remaining()) {
    r.fail();
    return std::nullopt;
  }
  return r.read_raw(static_cast<size_t>(n));
}

uint32_t crc32_ieee(Bytes b) {
  return static_cast<uint32_t>(
      ::crc32(0L, reinterpret_cast<const Bytef*>(b.data()), static_cast<uInt>(b.size())));
}

BatchCheck read_set(Bytes set, bool inner, ReadState& st);

// One message (the bytes after MessageSize): appended to st.messages, or, for a
// compressed wrapper, its inner messages.
BatchCheck read_message(Bytes message, bool inner, ReadState& st) {
  Reader r(message);
  const uint32_t crc = r.read_uint32();
  const int8_t magic = r.read_int8();
  if (magic == kMagicV2) return BatchCheck::kRecordBatchBeforeProduceV3;
  if (magic != 0 && magic != 1) return BatchCheck::kUnknownMagic;
  if (crc != crc32_ieee(message.subspan(4))) return BatchCheck::kLegacyCrcMismatch;
  const int8_t attributes = r.read_int8();
  LegacyMessage m;
  if (magic == 1) m.timestamp = r.read_int64();
  m.key = read_legacy_bytes(r);
  m.value = read_legacy_bytes(r);
  if (!r.at_end()) return BatchCheck::kLengthBeyondData;

  const int8_t codec = attributes & kLegacyCodecMask;
  if (codec == 0) {
    st.messages.push_back(m);
    return BatchCheck::kOk;
  }
  if (inner || !m.value) return BatchCheck::kLengthBeyondData;  // compression nests once, around a set
  if (codec > static_cast<int8_t>(Compression::kLz4)) {
    // zstd needs Produce v7, so record batches; 5-7 are not codecs.
    return codec == static_cast<int8_t>(Compression::kZstd) ? BatchCheck::kZstdBeforeProduceV7
                                                             : BatchCheck::kUnknownCompression;
  }
  auto& buf = st.arena.emplace_back();
  if (decompress(static_cast<Compression>(codec), *m.value, st.budget, buf) != DecompressStatus::kOk) {
    return BatchCheck::kLengthBeyondData;
  }
  st.budget -= buf.size();
  return read_set(buf, true, st);
}

BatchCheck read_set(Bytes set, bool inner, ReadState& st) {
  Reader r(set);
  while (r.remaining() > 0) {
    if (r.remaining() < kEntryOverhead) return BatchCheck::kTruncatedHeader;
    r.read_int64();  // the producer's offset: the broker assigns its own
    const int32_t size = r.read_int32();
    if (size < kMinMessageSize) return BatchCheck::kLengthBelowHeader;
    if (static_cast<size_t>(size) > r.remaining()) return BatchCheck::kLengthBeyondData;
    if (auto c = read_message(r.read_raw(static_cast<size_t>(size)), inner, st); c != BatchCheck::kOk) return c;
  }
  return BatchCheck::kOk;
}

void write_varint_bytes(Writer& w, const std::optional<Bytes>& b) {
  if (!b) return w.write_varint(-1);
  w.write_varint(static_cast<int32_t>(b->size()));
  w.write_raw(*b);
}

// One v2 batch holding `messages`, uncompressed, CRC left 0.
std::vector<std::byte> build_batch(const std::vector<LegacyMessage>& messages) {
  const int64_t base_ts = messages.front().timestamp;
  int64_t max_ts = -1;
  for (const auto& m : messages) max_ts = std::max(max_ts, m.timestamp);

  Writer w;
  w.write_int64(0);                                     // BaseOffset: the store assigns it
  const Writer::Mark length = w.reserve_int32();        // Length
  w.write_int32(-1);                                    // PartitionLeaderEpoch
  w.write_int8(kMagicV2);
  w.write_uint32(0);                                    // Crc: filled by the caller
  w.write_int16(0);                                     // Attributes: uncompressed, CreateTime
  w.write_int32(static_cast<int32_t>(messages.size() - 1));  // LastOffsetDelta
  w.write_int64(base_ts);
  w.write_int64(max_ts);
  w.write_int64(-1);                                    // ProducerId
  w.write_int16(-1);                                    // ProducerEpoch
  w.write_int32(-1);                                    // BaseSequence
  w.write_int32(static_cast<int32_t>(messages.size()));
  Writer record;
  for (size_t i = 0; i < messages.size(); ++i) {
    record = Writer{};
    record.write_int8(0);
    record.write_varlong(messages[i].timestamp - base_ts);
    record.write_varint(static_cast<int32_t>(i));
    write_varint_bytes(record, messages[i].key);
    write_varint_bytes(record, messages[i].value);
    record.write_varint(0);  // no headers before v2
    w.write_varint(static_cast<int32_t>(record.size()));
    w.write_raw(record.owned());
  }
  w.patch_length(length);
  return std::move(w).take();
}

}  // namespace

BatchCheck upconvert_message_set(Bytes records, size_t max_output, std::vector<std::byte>& out) {
  ReadState st;
  st.budget = max_output;
  if (auto c = read_set(records, false, st); c != BatchCheck::kOk) return c;
  if (st.messages.empty()) return BatchCheck::kNoBatch;
  out = build_batch(st.messages);
  return BatchCheck::kOk;
}

}  // namespace rokka::protocol
