// On-disk layouts shared by writer, reader and recovery (prose: storage/FORMAT.md).
//
// Rokka's own structures are little-endian with explicit byte helpers; the Kafka
// RecordBatch stored inside a CommitLog entry stays big-endian, verbatim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/crc32c.h"
#include "storage/types.h"
#include "wire/endian.h"
#include "wire/record_batch_layout.h"

namespace rokka::storage {

namespace format {

// ---- byte helpers (wire/endian.h) ---------------------------------------------
using wire::get_be;
using wire::get_le32;
using wire::get_le64;
using wire::put_be;
using wire::put_le32;
using wire::put_le64;

// ---- Kafka RecordBatch v2 header: the layout is wire/record_batch_layout.h's ------
namespace batch {
using namespace wire::batch;

inline int64_t i64(std::span<const std::byte> b, int at) { return wire::load_be<int64_t>(b.data() + at); }
inline int32_t i32(std::span<const std::byte> b, int at) { return wire::load_be<int32_t>(b.data() + at); }
inline int16_t i16(std::span<const std::byte> b, int at) { return wire::load_be<int16_t>(b.data() + at); }
inline uint16_t attributes(std::span<const std::byte> b) { return static_cast<uint16_t>(i16(b, kAttributes)); }
inline bool is_transactional(std::span<const std::byte> b) { return (attributes(b) & kTransactionalBit) != 0; }
inline bool is_control(std::span<const std::byte> b) { return (attributes(b) & kControlBit) != 0; }
// What the store needs of every batch it keeps, whoever hands it over (Store::append from
// a produce or the transaction markers, Store::rewrite from compaction, a replicated
// entry): one v2 batch filling `b` exactly (wire::batch::frame: header, Length, magic)
// and an offset range that does not run backwards. nullptr when it holds, else why not.
inline const char* defect(std::span<const std::byte> b) {
  size_t size = 0;
  switch (frame(b, &size)) {
    case Framing::kOk: break;
    case Framing::kTruncatedHeader: return "batch shorter than its header";
    case Framing::kOldMagic:
    case Framing::kUnknownMagic: return "batch magic is not 2";
    case Framing::kLengthBelowHeader:
    case Framing::kLengthBeyondData: return "batch Length field disagrees with its size";
  }
  if (size != b.size()) return "batch Length field disagrees with its size";
  if (i32(b, kLastOffsetDelta) < 0) return "negative LastOffsetDelta";
  return nullptr;
}
}  // namespace batch

// ---- CommitLog entry ----------------------------------------------------------
// [0,4) magic | [4,8) length (whole entry) | [8,12) crc | [12,16) partition id |
// [16,24) base offset | [24,28) record count | [28,36) max timestamp |
// [36,44) append time (broker clock, ms) | [44, length) Kafka RecordBatch verbatim.
// crc = CRC-32C of header bytes [12,44) followed by the batch's first 21 bytes (up to
// and including its own CRC field); the batch CRC covers the remaining bytes, so
// together the two checks cover every byte of the entry with one pass of CRC work.
inline constexpr uint32_t kEntryMagic = 0x31454B52;  // "RKE1" on disk
inline constexpr uint32_t kBlankMagic = 0x30424B52;  // "RKB0": pads a segment's tail
// "RKR1": a batch rewritten by Store::rewrite (compaction), layout as RKE1. Valid log
// content, but replay never indexes it as a new append: only a checkpoint names it.
inline constexpr uint32_t kRewriteMagic = 0x31524B52;
inline bool is_entry_magic(uint32_t magic) { return magic == kEntryMagic || magic == kRewriteMagic; }
// Replication entries (FORMAT.md, "Replicated stores"): the same 44-byte header, but a
// payload of Rokka's own instead of a RecordBatch, covered whole by the header CRC.
// "RKM1": one MetaStore mutation batch (the meta journal's record payload), then the
// batch that undoes it (replication.h, MetaEntry).
inline constexpr uint32_t kMetaMagic = 0x314D4B52;
// "RKW1": the commit of a rewrite (compaction) whose RKR1 entries precede it.
inline constexpr uint32_t kRewriteCommitMagic = 0x31574B52;
inline bool is_payload_magic(uint32_t magic) { return magic == kMetaMagic || magic == kRewriteCommitMagic; }
inline constexpr int kMinPayloadEntrySize = 44 + 4;
inline constexpr int kEntryHeaderSize = 44;
inline constexpr int kBlankHeaderSize = 8;           // magic + length; rest of file is padding

struct EntryHeader {
  uint32_t magic = kEntryMagic;
  uint32_t length = 0;
  uint32_t crc = 0;
  uint32_t partition = 0;
  int64_t base_offset = 0;
  int32_t record_count = 0;
  int64_t max_timestamp = 0;
  int64_t append_time = 0;
};

inline void encode_entry_header(const EntryHeader& h, std::byte* p) {
  put_le32(p, h.magic);
  put_le32(p + 4, h.length);
  put_le32(p + 8, h.crc);
  put_le32(p + 12, h.partition);
  put_le64(p + 16, static_cast<uint64_t>(h.base_offset));
  put_le32(p + 24, static_cast<uint32_t>(h.record_count));
  put_le64(p + 28, static_cast<uint64_t>(h.max_timestamp));
  put_le64(p + 36, static_cast<uint64_t>(h.append_time));
}

inline EntryHeader decode_entry_header(const std::byte* p) {
  EntryHeader h;
  h.magic = get_le32(p);
  h.length = get_le32(p + 4);
  h.crc = get_le32(p + 8);
  h.partition = get_le32(p + 12);
  h.base_offset = static_cast<int64_t>(get_le64(p + 16));
  h.record_count = static_cast<int32_t>(get_le32(p + 24));
  h.max_timestamp = static_cast<int64_t>(get_le64(p + 28));
  h.append_time = static_cast<int64_t>(get_le64(p + 36));
  return h;
}

// REQUIRES: `entry` holds a full header and at least batch::kAttributes batch bytes.
inline uint32_t entry_crc(const std::byte* entry) {
  return crc32c_extend(0, entry + 12, kEntryHeaderSize - 12 + batch::kAttributes);
}

// Writes the header of an entry whose batch bytes are in place, then its CRC.
inline void seal_entry(std::byte* entry, const EntryHeader& h) {
  encode_entry_header(h, entry);
  put_le32(entry + 8, entry_crc(entry));
}

// RKM1 / RKW1: the CRC of header bytes [12,44) followed by the whole payload.
// REQUIRES: `entry` holds h.length bytes (>= kEntryHeaderSize).
inline uint32_t payload_entry_crc(const std::byte* entry, uint32_t length) {
  return crc32c_extend(0, entry + 12, length - 12);
}
inline void seal_payload_entry(std::byte* entry, const EntryHeader& h) {
  encode_entry_header(h, entry);
  put_le32(entry + 8, payload_entry_crc(entry, h.length));
}

// ---- ConsumeQueue unit: 32 bytes, packed into chunks of shared index files ----
// [0,8) log position of the entry | [8,12) batch size | [12,16) last offset delta |
// [16,24) base offset | [24,32) running max timestamp (max over this and every earlier unit
// of the partition, so timestamp lookups are binary searches).
inline constexpr int kUnitSize = 32;

struct QueueUnit {
  LogPosition pos;
  int32_t size = 0;               // RecordBatch bytes (the entry is kEntryHeaderSize more)
  int32_t last_offset_delta = 0;
  int64_t base_offset = 0;
  int64_t max_timestamp = 0;      // running max
  int64_t next_offset() const { return base_offset + last_offset_delta + 1; }
};

inline void encode_unit(const QueueUnit& u, std::byte* p) {
  put_le64(p, static_cast<uint64_t>(u.pos.value));
  put_le32(p + 8, static_cast<uint32_t>(u.size));
  put_le32(p + 12, static_cast<uint32_t>(u.last_offset_delta));
  put_le64(p + 16, static_cast<uint64_t>(u.base_offset));
  put_le64(p + 24, static_cast<uint64_t>(u.max_timestamp));
}

inline QueueUnit decode_unit(const std::byte* p) {
  QueueUnit u;
  u.pos.value = static_cast<int64_t>(get_le64(p));
  u.size = static_cast<int32_t>(get_le32(p + 8));
  u.last_offset_delta = static_cast<int32_t>(get_le32(p + 12));
  u.base_offset = static_cast<int64_t>(get_le64(p + 16));
  u.max_timestamp = static_cast<int64_t>(get_le64(p + 24));
  return u;
}

// ---- file names ---------------------------------------------------------------
inline std::string segment_name(int64_t start) {
  std::string s = std::to_string(start);
  return std::string(20 - s.size(), '0') + s;
}
// The start position a 20-digit name encodes, or -1 if `name` is not one.
inline int64_t parse_segment_name(std::string_view name) {
  if (name.size() != 20) return -1;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return -1;
    if (v > (INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// ---- framed files (checkpoint, meta snapshot) and records (meta journal) ----
// Checkpoint file: magic u32 | version u32 | body length u64 | body crc u32 | body.
inline constexpr uint32_t kCheckpointMagic = 0x4B434B52;  // "RKCK"
// 2 added transaction state, 3 each partition's units digest, 4 the index geometry
// (small first chunks: each ChunkDir's layout, the free small chunks), 5 the confirmed
// position and each partition's high watermark (replicated roles); 1-4 are still read.
inline constexpr uint32_t kCheckpointVersion = 5;
inline constexpr int kCheckpointHeaderSize = 20;
// Meta journal record: length u32 (payload) | crc u32 (payload) | payload.
inline constexpr int kJournalRecordHeaderSize = 8;
inline constexpr uint32_t kMaxJournalRecord = 64u << 20;

// Little-endian append-only encoder for Rokka's own records.
class Encoder {
 public:
  void u8(uint8_t v) { buf_.push_back(static_cast<std::byte>(v)); }
  void u32(uint32_t v) { grow(4, [&](std::byte* p) { put_le32(p, v); }); }
  void u64(uint64_t v) { grow(8, [&](std::byte* p) { put_le64(p, v); }); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void bytes(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    buf_.insert(buf_.end(), p, p + s.size());
  }
  std::vector<std::byte>& buffer() { return buf_; }

 private:
  template <typename F>
  void grow(size_t n, F&& put) {
    buf_.resize(buf_.size() + n);
    put(buf_.data() + buf_.size() - n);
  }
  std::vector<std::byte> buf_;
};

// Bounds-checked decoder with a sticky error: after the first short read every
// value is 0 and ok() is false. count(n, elem) bounds a count by the bytes left
// before anyone allocates for it.
class Decoder {
 public:
  explicit Decoder(std::span<const std::byte> b) : b_(b) {}
  bool ok() const { return ok_; }
  size_t remaining() const { return b_.size() - pos_; }
  uint8_t u8() { return take(1) ? std::to_integer<uint8_t>(b_[pos_ - 1]) : 0; }
  uint32_t u32() { return take(4) ? get_le32(b_.data() + pos_ - 4) : 0; }
  uint64_t u64() { return take(8) ? get_le64(b_.data() + pos_ - 8) : 0; }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  std::string_view bytes() {
    const uint32_t n = u32();
    if (!take(n)) return {};
    return {reinterpret_cast<const char*>(b_.data() + pos_ - n), n};
  }
  // A count of elements at least `min_elem_bytes` each; fails if they cannot fit.
  uint32_t count(size_t min_elem_bytes) {
    const uint32_t n = u32();
    if (min_elem_bytes > 0 && n > remaining() / min_elem_bytes) {
      ok_ = false;
      pos_ = b_.size();
      return 0;
    }
    return n;
  }

 private:
  bool take(size_t n) {
    if (!ok_ || remaining() < n) {
      ok_ = false;
      pos_ = b_.size();
      return false;
    }
    pos_ += n;
    return true;
  }
  std::span<const std::byte> b_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace format
}  // namespace rokka::storage
