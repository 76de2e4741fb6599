// Builds RecordBatch v2 bytes for tests and tools: records in, a finished batch out
// (compressed if asked, CRC-32C filled in with storage/crc32c.h). Link rokka_protocol
// and rokka_storage.
//
//   auto batch = RecordBatchBuilder().compression(Compression::kLz4).add("k", "v").build();
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocol/codec.h"
#include "protocol/compression.h"
#include "protocol/record_batch.h"
#include "storage/crc32c.h"

namespace rokka::testutil {

struct TestRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  int64_t timestamp_delta = 0;
};

class RecordBatchBuilder {
 public:
  using Compression = protocol::Compression;

  RecordBatchBuilder& compression(Compression c) {
    compression_ = c;
    return *this;
  }
  // Snappy in the Java client's xerial framing (blocks of `block` bytes) instead of raw.
  RecordBatchBuilder& snappy_xerial(size_t block = 32 * 1024) {
    compression_ = Compression::kSnappy;
    xerial_block_ = block;
    return *this;
  }
  RecordBatchBuilder& base_offset(int64_t v) {
    base_offset_ = v;
    return *this;
  }
  RecordBatchBuilder& base_timestamp(int64_t v) {
    base_timestamp_ = v;
    return *this;
  }
  RecordBatchBuilder& producer(int64_t id, int16_t epoch, int32_t base_sequence) {
    producer_id_ = id;
    producer_epoch_ = epoch;
    base_sequence_ = base_sequence;
    return *this;
  }
  RecordBatchBuilder& attributes_extra(int16_t bits) {  // transactional, control, timestamp type...
    extra_attributes_ = bits;
    return *this;
  }
  // The records section (before compression) given as bytes, and RecordsCount
  // (LastOffsetDelta = count - 1): for malformed records.
  RecordBatchBuilder& raw_records(std::vector<std::byte> plain, int32_t count) {
    raw_ = std::move(plain);
    raw_count_ = count;
    return *this;
  }
  // Stores the section as given, not compressed, whatever the codec attribute says.
  RecordBatchBuilder& uncompressed_section() {
    as_is_ = true;
    return *this;
  }
  // The header's MaxTimestamp (default: the records' largest timestamp).
  RecordBatchBuilder& max_timestamp(int64_t v) {
    max_timestamp_ = v;
    return *this;
  }
  RecordBatchBuilder& add(TestRecord r) {
    records_.push_back(std::move(r));
    return *this;
  }
  RecordBatchBuilder& add(std::optional<std::string> key, std::optional<std::string> value) {
    return add(TestRecord{std::move(key), std::move(value), {}, static_cast<int64_t>(records_.size())});
  }

  // The records section before compression.
  std::vector<std::byte> records_section() const {
    protocol::Writer w;
    for (size_t i = 0; i < records_.size(); ++i) {
      protocol::Writer body;
      const TestRecord& r = records_[i];
      body.write_int8(0);
      body.write_varlong(r.timestamp_delta);
      body.write_varint(static_cast<int32_t>(i));
      write_varint_string(body, r.key);
      write_varint_string(body, r.value);
      body.write_varint(static_cast<int32_t>(r.headers.size()));
      for (const auto& [k, v] : r.headers) {
        write_varint_string(body, k);
        write_varint_string(body, v);
      }
      w.write_varint(static_cast<int32_t>(body.size()));
      w.write_raw(body.owned());
    }
    return std::move(w).take();
  }

  std::vector<std::byte> build() const {
    const std::vector<std::byte> plain = raw_count_ ? *raw_ : records_section();
    const int32_t count = raw_count_ ? *raw_count_ : static_cast<int32_t>(records_.size());
    std::vector<std::byte> section;
    if (as_is_) {
      section = plain;
    } else if (xerial_block_ > 0) {
      section = xerial(plain);
    } else if (!protocol::compress(compression_, plain, section)) {
      throw std::runtime_error("compression failed");
    }
    int64_t max_delta = 0;
    for (const auto& r : records_) max_delta = std::max(max_delta, r.timestamp_delta);

    protocol::Writer w;
    w.write_int64(base_offset_);
    const auto length = w.reserve_int32();
    w.write_int32(0);  // partition leader epoch
    w.write_int8(protocol::kMagicV2);
    w.write_uint32(0);  // CRC, filled in below
    w.write_int16(static_cast<int16_t>(static_cast<int16_t>(compression_) | extra_attributes_));
    w.write_int32(count - 1);
    w.write_int64(base_timestamp_);
    w.write_int64(max_timestamp_ ? *max_timestamp_ : base_timestamp_ + max_delta);
    w.write_int64(producer_id_);
    w.write_int16(producer_epoch_);
    w.write_int32(base_sequence_);
    w.write_int32(count);
    w.write_raw(section);
    w.patch_length(length);
    std::vector<std::byte> batch = std::move(w).take();
    storage::seal_batch_crc(batch);
    return batch;
  }

 private:
  static void write_varint_string(protocol::Writer& w, const std::optional<std::string>& s) {
    if (!s) return w.write_varint(-1);
    w.write_varint(static_cast<int32_t>(s->size()));
    w.write_raw(protocol::as_bytes(*s));
  }

  // The Java client's snappy framing: magic, version 1, compatible version 1, then
  // int32-length-prefixed raw snappy blocks.
  std::vector<std::byte> xerial(const std::vector<std::byte>& plain) const {
    static constexpr unsigned char kMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    protocol::Writer w;
    w.write_raw({reinterpret_cast<const std::byte*>(kMagic), sizeof kMagic});
    w.write_int32(1);
    w.write_int32(1);
    for (size_t at = 0; at < plain.size(); at += xerial_block_) {
      std::vector<std::byte> block;
      const auto chunk = std::span(plain).subspan(at, std::min(xerial_block_, plain.size() - at));
      if (!protocol::compress(Compression::kSnappy, chunk, block)) throw std::runtime_error("snappy failed");
      w.write_int32(static_cast<int32_t>(block.size()));
      w.write_raw(block);
    }
    return std::move(w).take();
  }

  Compression compression_ = Compression::kNone;
  size_t xerial_block_ = 0;
  int64_t base_offset_ = 0;
  int64_t base_timestamp_ = 1700000000000;
  int64_t producer_id_ = -1;
  int16_t producer_epoch_ = -1;
  int32_t base_sequence_ = -1;
  int16_t extra_attributes_ = 0;
  std::vector<TestRecord> records_;
  std::optional<std::vector<std::byte>> raw_;
  std::optional<int32_t> raw_count_;
  bool as_is_ = false;
  std::optional<int64_t> max_timestamp_;
};

}  // namespace rokka::testutil
