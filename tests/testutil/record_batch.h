// Builds valid Kafka RecordBatch v2 bytes for storage tests and benchmarks: the
// 61-byte header of Kafka's message format (KIP-98), `records` simple records
// (zig-zag varints) carrying `value_bytes` each, and a correct CRC-32C.
#pragma once

#include <cstdint>
#include <vector>

#include "storage/format.h"

namespace rokka::testutil {

struct BatchSpec {
  int32_t records = 1;
  int32_t value_bytes = 16;
  int64_t base_timestamp = 1000;
  int64_t max_timestamp = -1;  // -1: base_timestamp + records - 1
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  uint8_t fill = 0x5a;
  uint16_t attributes = 0;  // e.g. storage::format::batch::kTransactionalBit
};

inline void put_varint(std::vector<std::byte>& out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<std::byte>(z | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<std::byte>(z));
}

inline std::vector<std::byte> make_batch(const BatchSpec& spec) {
  namespace fb = storage::format::batch;
  std::vector<std::byte> b(fb::kHeaderSize);
  for (int32_t i = 0; i < spec.records; ++i) {
    std::vector<std::byte> body;
    body.push_back(std::byte{0});  // attributes
    put_varint(body, i);           // timestamp delta
    put_varint(body, i);           // offset delta
    put_varint(body, -1);          // null key
    put_varint(body, spec.value_bytes);
    for (int32_t k = 0; k < spec.value_bytes; ++k) body.push_back(static_cast<std::byte>(spec.fill + i + k));
    put_varint(body, 0);  // headers
    put_varint(b, static_cast<int64_t>(body.size()));
    b.insert(b.end(), body.begin(), body.end());
  }
  auto put = [&](int at, uint64_t v, int n) { storage::format::put_be(b.data() + at, v, n); };
  put(fb::kBaseOffset, 0, 8);
  put(fb::kLength, b.size() - fb::kLengthOverhead, 4);
  put(fb::kLeaderEpoch, 0, 4);
  b[fb::kMagic] = std::byte{2};
  put(fb::kAttributes, spec.attributes, 2);
  put(fb::kLastOffsetDelta, static_cast<uint32_t>(spec.records - 1), 4);
  put(fb::kBaseTimestamp, static_cast<uint64_t>(spec.base_timestamp), 8);
  const int64_t max_ts = spec.max_timestamp >= 0 ? spec.max_timestamp : spec.base_timestamp + spec.records - 1;
  put(fb::kMaxTimestamp, static_cast<uint64_t>(max_ts), 8);
  put(fb::kProducerId, static_cast<uint64_t>(spec.producer_id), 8);
  put(fb::kProducerEpoch, static_cast<uint16_t>(spec.producer_epoch), 2);
  put(fb::kBaseSequence, static_cast<uint32_t>(spec.base_sequence), 4);
  put(fb::kRecordsCount, static_cast<uint32_t>(spec.records), 4);
  storage::seal_batch_crc(b);
  return b;
}

// A transaction marker as the coordinator writes it: a transactional control batch
// with no sequence and one control record (key: version 0, type 0 ABORT / 1 COMMIT;
// value: version 0, coordinator epoch).
inline std::vector<std::byte> make_control_batch(int64_t producer_id, int16_t epoch, bool commit,
                                                 int64_t timestamp = 1000) {
  namespace fb = storage::format::batch;
  std::vector<std::byte> b(fb::kHeaderSize);
  const std::byte key[] = {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{commit ? uint8_t{1} : uint8_t{0}}};
  const std::byte value[] = {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}};
  std::vector<std::byte> body;
  body.push_back(std::byte{0});  // attributes
  put_varint(body, 0);           // timestamp delta
  put_varint(body, 0);           // offset delta
  put_varint(body, 4);
  body.insert(body.end(), std::begin(key), std::end(key));
  put_varint(body, 6);
  body.insert(body.end(), std::begin(value), std::end(value));
  put_varint(body, 0);  // headers
  put_varint(b, static_cast<int64_t>(body.size()));
  b.insert(b.end(), body.begin(), body.end());
  auto put = [&](int at, uint64_t v, int n) { storage::format::put_be(b.data() + at, v, n); };
  put(fb::kLength, b.size() - fb::kLengthOverhead, 4);
  b[fb::kMagic] = std::byte{2};
  put(fb::kAttributes, fb::kTransactionalBit | fb::kControlBit, 2);
  put(fb::kBaseTimestamp, static_cast<uint64_t>(timestamp), 8);
  put(fb::kMaxTimestamp, static_cast<uint64_t>(timestamp), 8);
  put(fb::kProducerId, static_cast<uint64_t>(producer_id), 8);
  put(fb::kProducerEpoch, static_cast<uint16_t>(epoch), 2);
  put(fb::kBaseSequence, 0xffffffffu, 4);
  put(fb::kRecordsCount, 1, 4);
  storage::seal_batch_crc(b);
  return b;
}

}  // namespace rokka::testutil
