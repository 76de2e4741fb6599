#include "protocol/control_batch.h"

#include "protocol/record_batch.h"
#include "wire/endian.h"

namespace rokka::protocol {
namespace {

// Appends the low `bytes` bytes of v, big-endian.
void put_be(std::vector<std::byte>& out, uint64_t v, size_t bytes) {
  out.resize(out.size() + bytes);
  wire::put_be(out.data() + out.size() - bytes, v, static_cast<int>(bytes));
}

// The one record of a marker, without its length prefix.
std::vector<std::byte> marker_record(const TxnMarker& m) {
  constexpr uint8_t kKeyLength = 4;    // version, type
  constexpr uint8_t kValueLength = 6;  // version, coordinator epoch
  std::vector<std::byte> r;
  r.push_back(std::byte{0});                 // attributes
  r.push_back(std::byte{0});                 // timestamp delta (varint 0)
  r.push_back(std::byte{0});                 // offset delta (varint 0)
  r.push_back(std::byte{kKeyLength << 1});   // key length (zig-zag varint)
  put_be(r, 0, 2);                           // key version
  put_be(r, static_cast<uint16_t>(m.type), 2);
  r.push_back(std::byte{kValueLength << 1});  // value length
  put_be(r, 0, 2);                            // value version
  put_be(r, static_cast<uint32_t>(m.coordinator_epoch), 4);
  r.push_back(std::byte{0});  // header count
  return r;
}

}  // namespace

std::vector<std::byte> build_txn_marker(const TxnMarker& m) {
  const std::vector<std::byte> record = marker_record(m);
  std::vector<std::byte> b;
  b.reserve(wire::batch::kHeaderSize + 1 + record.size());
  put_be(b, 0, 8);  // base offset: assigned by the store
  put_be(b, static_cast<uint32_t>(wire::batch::kHeaderSize - wire::batch::kLengthOverhead + 1 + record.size()), 4);
  put_be(b, 0, 4);  // partition leader epoch
  b.push_back(static_cast<std::byte>(kMagicV2));
  put_be(b, 0, 4);  // CRC: the caller's (see header)
  put_be(b, static_cast<uint16_t>(kTransactionalBit | kControlBit), 2);
  put_be(b, 0, 4);  // last offset delta
  put_be(b, static_cast<uint64_t>(m.timestamp_ms), 8);  // base timestamp
  put_be(b, static_cast<uint64_t>(m.timestamp_ms), 8);  // max timestamp
  put_be(b, static_cast<uint64_t>(m.producer_id), 8);
  put_be(b, static_cast<uint16_t>(m.producer_epoch), 2);
  put_be(b, static_cast<uint32_t>(-1), 4);  // base sequence: none
  put_be(b, 1, 4);                          // records count
  b.push_back(static_cast<std::byte>(record.size() << 1));  // record length (zig-zag varint, < 64)
  b.insert(b.end(), record.begin(), record.end());
  return b;
}

std::optional<ControlType> parse_control_key(Bytes key) {
  if (key.size() != 4 || key[0] != std::byte{0} || key[1] != std::byte{0} || key[2] != std::byte{0}) return std::nullopt;
  if (key[3] == std::byte{0}) return ControlType::kAbort;
  if (key[3] == std::byte{1}) return ControlType::kCommit;
  return std::nullopt;
}

}  // namespace rokka::protocol
