#include "protocol/record_batch.h"

#include "wire/endian.h"

namespace rokka::protocol {

const char* batch_check_name(BatchCheck c) {
  switch (c) {
    case BatchCheck::kOk: return "ok";
    case BatchCheck::kTruncatedHeader: return "truncated header";
    case BatchCheck::kLengthBelowHeader: return "batch length below the header size";
    case BatchCheck::kLengthBeyondData: return "batch length beyond the bytes present";
    case BatchCheck::kOldMagic: return "magic 0/1 (old message format)";
    case BatchCheck::kUnknownMagic: return "unknown magic";
    case BatchCheck::kUnknownCompression: return "unknown compression codec";
    case BatchCheck::kZstdBeforeProduceV7: return "zstd before Produce v7";
    case BatchCheck::kNonZeroBaseOffset: return "a produced batch's base offset must be 0";
    case BatchCheck::kOffsetCountMismatch: return "record count does not match the offset range";
    case BatchCheck::kControlBatchFromClient: return "control batch from a client";
    case BatchCheck::kLogAppendTimeFromClient: return "LogAppendTime set by a client";
    case BatchCheck::kMissingSequence: return "producer id without a sequence";
    case BatchCheck::kNoBatch: return "no record batch";
    case BatchCheck::kMoreThanOneBatch: return "more than one record batch";
    case BatchCheck::kLegacyCrcMismatch: return "message CRC mismatch";
    case BatchCheck::kRecordBatchBeforeProduceV3: return "record batch (magic 2) before Produce v3";
  }
  return "unknown";
}

ErrorCode kafka_error(BatchCheck c) {
  switch (c) {
    case BatchCheck::kOk: return ErrorCode::kNone;
    case BatchCheck::kTruncatedHeader:
    case BatchCheck::kLengthBelowHeader:
    case BatchCheck::kLengthBeyondData:
    case BatchCheck::kUnknownMagic:
    case BatchCheck::kUnknownCompression:
    case BatchCheck::kLegacyCrcMismatch: return ErrorCode::kCorruptMessage;
    case BatchCheck::kZstdBeforeProduceV7: return ErrorCode::kUnsupportedCompressionType;
    case BatchCheck::kLogAppendTimeFromClient: return ErrorCode::kInvalidTimestamp;
    case BatchCheck::kOldMagic:
    case BatchCheck::kNonZeroBaseOffset:
    case BatchCheck::kOffsetCountMismatch:
    case BatchCheck::kControlBatchFromClient:
    case BatchCheck::kMissingSequence:
    case BatchCheck::kNoBatch:
    case BatchCheck::kMoreThanOneBatch:
    case BatchCheck::kRecordBatchBeforeProduceV3: return ErrorCode::kInvalidRecord;
  }
  return ErrorCode::kCorruptMessage;
}

using wire::batch::Framing;

BatchCheck RecordBatchView::parse(Bytes data, RecordBatchView* out) {
  size_t size = 0;
  if (const Framing f = wire::batch::frame(data, &size); f != Framing::kOk) return static_cast<BatchCheck>(f);
  const RecordBatchView view(data.first(size));
  if ((view.attributes() & kCompressionMask) > kMaxCompressionId) return BatchCheck::kUnknownCompression;
  *out = view;
  return BatchCheck::kOk;
}

BatchCheck RecordBatchView::check_produced() const {
  const int64_t count = records_count();
  if (count < 1 || static_cast<int64_t>(last_offset_delta()) + 1 != count) return BatchCheck::kOffsetCountMismatch;
  if (is_control()) return BatchCheck::kControlBatchFromClient;
  if (wire::batch::lacks_sequence(data_)) return BatchCheck::kMissingSequence;  // control batches refused above
  if (timestamp_type() == TimestampType::kLogAppendTime) return BatchCheck::kLogAppendTimeFromClient;
  return BatchCheck::kOk;
}

int16_t RecordBatchView::i16(size_t at) const { return static_cast<int16_t>(wire::load_be<uint16_t>(data_.data() + at)); }
int32_t RecordBatchView::i32(size_t at) const { return static_cast<int32_t>(wire::load_be<uint32_t>(data_.data() + at)); }
int64_t RecordBatchView::i64(size_t at) const { return static_cast<int64_t>(wire::load_be<uint64_t>(data_.data() + at)); }

BatchCheck split_batches(Bytes records, std::vector<RecordBatchView>& out) {
  out.clear();
  while (!records.empty()) {
    RecordBatchView batch;
    const BatchCheck c = RecordBatchView::parse(records, &batch);
    if (c != BatchCheck::kOk) return c;
    out.push_back(batch);
    records = records.subspan(batch.size());
  }
  return BatchCheck::kOk;
}

BatchCheck check_produce_records(Bytes records, int16_t produce_version, RecordBatchView* out) {
  if (records.empty()) return BatchCheck::kNoBatch;
  RecordBatchView batch;
  if (const BatchCheck c = RecordBatchView::parse(records, &batch); c != BatchCheck::kOk) return c;
  if (batch.size() != records.size()) return BatchCheck::kMoreThanOneBatch;
  if (batch.compression() == Compression::kZstd && produce_version < 7) return BatchCheck::kZstdBeforeProduceV7;
  if (batch.base_offset() != 0) return BatchCheck::kNonZeroBaseOffset;
  *out = batch;
  return BatchCheck::kOk;
}

void set_base_offset(std::span<std::byte> batch, int64_t base_offset) {
  wire::store_be<uint64_t>(batch.data() + wire::batch::kBaseOffset, static_cast<uint64_t>(base_offset));
}

void set_partition_leader_epoch(std::span<std::byte> batch, int32_t epoch) {
  wire::store_be<uint32_t>(batch.data() + wire::batch::kLeaderEpoch, static_cast<uint32_t>(epoch));
}

void set_log_append_time(std::span<std::byte> batch, int64_t timestamp_ms) {
  const auto attributes = static_cast<uint16_t>(wire::load_be<uint16_t>(batch.data() + wire::batch::kAttributes) | kTimestampTypeBit);
  wire::store_be<uint16_t>(batch.data() + wire::batch::kAttributes, attributes);
  wire::store_be<uint64_t>(batch.data() + wire::batch::kMaxTimestamp, static_cast<uint64_t>(timestamp_ms));
}

void set_max_timestamp(std::span<std::byte> batch, int64_t timestamp_ms) {
  const auto attributes = static_cast<uint16_t>(wire::load_be<uint16_t>(batch.data() + wire::batch::kAttributes) & kDefinedAttributeBits);
  wire::store_be<uint16_t>(batch.data() + wire::batch::kAttributes, attributes);
  wire::store_be<uint64_t>(batch.data() + wire::batch::kMaxTimestamp, static_cast<uint64_t>(timestamp_ms));
}

}  // namespace rokka::protocol
