// RecordBatch v2 (magic 2): a view over one batch, the framing checks, the rules
// Kafka applies to a batch a client produces, and a splitter for a `records` blob.
//
// Layout: wire/record_batch_layout.h.
//
// Nothing here computes the CRC (protocol/ depends on nothing of ours but wire/): the
// batch CRC is storage/crc32c.h's (batch_crc_ok, seal_batch_crc).
// Nothing here decompresses either: see protocol/compression.h, protocol/record.h and,
// for the records of a produced batch, protocol/record_validator.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/codec.h"
#include "protocol/compression.h"
#include "protocol/error_code.h"
#include "wire/record_batch_layout.h"

namespace rokka::protocol {

// The header layout and attribute bits are wire/record_batch_layout.h's.
using wire::batch::kCompressionMask;
using wire::batch::kControlBit;
using wire::batch::kDefinedAttributeBits;
using wire::batch::kDeleteHorizonBit;
using wire::batch::kMagicV2;
using wire::batch::kTimestampTypeBit;
using wire::batch::kTransactionalBit;
// The smallest record: length, attributes, timestamp delta, offset delta, key length,
// value length and header count, one byte each.
inline constexpr size_t kMinRecordSize = 7;

enum class TimestampType : int8_t { kCreateTime = 0, kLogAppendTime = 1 };

// Why a batch (or a Produce partition's records) was refused; kafka_error() gives
// the code Kafka answers with for each.
enum class BatchCheck : uint8_t {
  kOk,
  // A batch's framing: wire::batch::Framing's answers, value for value (parse() passes them on).
  kTruncatedHeader = static_cast<uint8_t>(wire::batch::Framing::kTruncatedHeader),
  kLengthBelowHeader = static_cast<uint8_t>(wire::batch::Framing::kLengthBelowHeader),
  kLengthBeyondData = static_cast<uint8_t>(wire::batch::Framing::kLengthBeyondData),
  kOldMagic = static_cast<uint8_t>(wire::batch::Framing::kOldMagic),
  kUnknownMagic = static_cast<uint8_t>(wire::batch::Framing::kUnknownMagic),
  kUnknownCompression,       // codec id 5-7
  kZstdBeforeProduceV7,      // zstd needs Produce v7+
  kNonZeroBaseOffset,        // produced batch whose BaseOffset is not 0
  kOffsetCountMismatch,      // produced batch: count < 1, or != LastOffsetDelta + 1
  kControlBatchFromClient,   // produced batch with the control bit
  kLogAppendTimeFromClient,  // produced batch with the LogAppendTime bit
  kMissingSequence,          // produced batch with a producer id but BaseSequence < 0
  kNoBatch,                  // a Produce partition with empty or null records
  kMoreThanOneBatch,         // a Produce partition holding several batches
  kLegacyCrcMismatch,        // Produce v0-v2: a magic 0/1 message whose CRC-32 does not match
  kRecordBatchBeforeProduceV3,  // Produce v0-v2 carrying a magic 2 batch
};

const char* batch_check_name(BatchCheck c);

// Kafka's answer: CORRUPT_MESSAGE for broken framing and unknown codecs,
// INVALID_RECORD for produce-rule violations and old magic (Produce v3+ must carry
// magic 2), UNSUPPORTED_COMPRESSION_TYPE for zstd before v7, INVALID_TIMESTAMP for a
// client-set LogAppendTime.
ErrorCode kafka_error(BatchCheck c);

class RecordBatchView {
 public:
  RecordBatchView() = default;

  // Checks the framing of the batch at the front of `data` (wire::batch::frame: header
  // present, Length within bounds, magic 2), then its codec id, and views its 12 + Length
  // bytes, which may be fewer than data.size(). `out` is set only on kOk. The record
  // count is the reader's to check against the records (RecordReader, RecordValidator).
  static BatchCheck parse(Bytes data, RecordBatchView* out);

  Bytes bytes() const { return data_; }
  size_t size() const { return data_.size(); }

  int64_t base_offset() const { return i64(wire::batch::kBaseOffset); }
  int32_t batch_length() const { return i32(wire::batch::kLength); }
  int32_t partition_leader_epoch() const { return i32(wire::batch::kLeaderEpoch); }
  int8_t magic() const { return static_cast<int8_t>(data_[wire::batch::kMagic]); }
  int16_t attributes() const { return i16(wire::batch::kAttributes); }
  int32_t last_offset_delta() const { return i32(wire::batch::kLastOffsetDelta); }
  int64_t base_timestamp() const { return i64(wire::batch::kBaseTimestamp); }
  int64_t max_timestamp() const { return i64(wire::batch::kMaxTimestamp); }
  int64_t producer_id() const { return i64(wire::batch::kProducerId); }
  int16_t producer_epoch() const { return i16(wire::batch::kProducerEpoch); }
  int32_t base_sequence() const { return i32(wire::batch::kBaseSequence); }
  int32_t records_count() const { return i32(wire::batch::kRecordsCount); }

  Compression compression() const { return static_cast<Compression>(attributes() & kCompressionMask); }
  TimestampType timestamp_type() const {
    return (attributes() & kTimestampTypeBit) ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
  }
  bool is_transactional() const { return attributes() & kTransactionalBit; }
  bool is_control() const { return attributes() & kControlBit; }
  bool has_delete_horizon() const { return attributes() & kDeleteHorizonBit; }
  bool has_producer_id() const { return producer_id() >= 0; }
  int64_t last_offset() const { return base_offset() + last_offset_delta(); }

  // The records section (compressed when compression() != kNone).
  Bytes records_section() const { return data_.subspan(wire::batch::kHeaderSize); }

  // The rules Kafka's log validator applies to the header of a batch a client
  // produces (after its CRC): a dense offset range matching a positive count, no
  // control batch, a sequence whenever there is a producer id, no LogAppendTime.
  BatchCheck check_produced() const;

 private:
  explicit RecordBatchView(Bytes data) : data_(data) {}
  int16_t i16(size_t at) const;
  int32_t i32(size_t at) const;
  int64_t i64(size_t at) const;

  Bytes data_;
};

// Splits a `records` blob into its batches, each parsed. Stops at the first batch
// that fails and returns its check; `out` then holds the batches before it.
BatchCheck split_batches(Bytes records, std::vector<RecordBatchView>& out);

// A Produce partition's records, checked as Kafka checks them before its log
// validator (and the CRC): exactly one batch, framed correctly (parse()), zstd only
// from Produce v7, BaseOffset 0. `out` is set only on kOk; check_produced() and the
// records (protocol/record_validator.h) come next.
BatchCheck check_produce_records(Bytes records, int16_t produce_version, RecordBatchView* out);

// In-place edits of a batch the broker owns. set_base_offset and
// set_partition_leader_epoch leave the CRC valid; set_log_append_time and
// set_max_timestamp change covered bytes, so the caller must then seal a new CRC
// (storage/crc32c.h, seal_batch_crc). set_max_timestamp rewrites MaxTimestamp as Kafka
// does when the records say otherwise, and like Kafka rebuilds the attributes from the
// bits it defines (0-6), clearing the others.
void set_base_offset(std::span<std::byte> batch, int64_t base_offset);
void set_partition_leader_epoch(std::span<std::byte> batch, int32_t epoch);
void set_log_append_time(std::span<std::byte> batch, int64_t timestamp_ms);
void set_max_timestamp(std::span<std::byte> batch, int64_t timestamp_ms);

}  // namespace rokka::protocol
