// RecordValidator: walks every record of a produced batch once, as Kafka's broker
// does before it appends (LogValidator), so that no client can store a batch that
// consumers cannot parse.
//
// The records section is decompressed as a stream (protocol/compression.h): memory
// stays that of one Decompressor plus at most kMaxCarryBytes of a record that spans
// two chunks; a longer record is read field by field and its key, value and header
// bytes are skipped, never gathered. The walk allocates nothing per record.
//
// Checked, per record: the Length varint (at most 5 bytes, 0..2^31-1, within the
// section), every field inside that length (varints of their width, key/value/header
// value lengths >= -1 (null), header keys >= 0, the fields filling the length exactly),
// OffsetDelta == its index (0..count-1, so the batch covers exactly the offsets its
// header claims), then the policy's key and timestamp rules. After RecordsCount
// records the section must end; a section that ends first, inflates beyond the bound
// or does not decode is refused.
//
// The caller has already applied RecordBatchView::check_produced (count >= 1 and ==
// LastOffsetDelta + 1, CreateTime, ...): the timestamps here are BaseTimestamp +
// TimestampDelta, as for a CreateTime batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/compression.h"
#include "protocol/error_code.h"
#include "protocol/record_batch.h"

namespace rokka::protocol {

// A records section larger than this once decompressed is refused (MESSAGE_TOO_LARGE,
// on which the Java producer splits its batch and retries). Kafka's max.message.bytes
// limits only the compressed batch; walking the inflated records costs CPU in
// proportion to their size, so a bomb is cut off here. The log cleaner inflates
// stored batches up to the same size (broker/records/batch_rewriter.h).
inline constexpr size_t kMaxInflatedBatchBytes = size_t{256} << 20;

// A record spanning two decompressed chunks is gathered whole up to this size; a
// longer one is read field by field.
inline constexpr size_t kMaxCarryBytes = 64 * 1024;

// The topic's rules and the broker's clock.
struct RecordPolicy {
  bool keys_required = false;     // a compacted topic: every record needs a key
  bool check_timestamps = false;  // a CreateTime topic: timestamps other than -1 must lie in
                                  // [now_ms - timestamp_before_max_ms, now_ms + timestamp_after_max_ms]
  int64_t now_ms = 0;
  int64_t timestamp_before_max_ms = INT64_MAX;  // message.timestamp.before.max.ms
  int64_t timestamp_after_max_ms = INT64_MAX;   // message.timestamp.after.max.ms
  size_t max_inflated_bytes = kMaxInflatedBatchBytes;
};

enum class RecordCheck : uint8_t {
  kOk,
  kNotDecompressible,   // the section is not valid (or is truncated) data for its codec
  kUnreadableFraming,   // valid for the codec, in a framing Kafka's clients cannot read (compression.h)
  kInflatesTooLarge,    // more than max_inflated_bytes once decompressed
  kBadRecordLength,     // a record's Length varint is malformed or negative, or runs past the section
  kMalformedRecord,     // the fields do not fill the record's length exactly (see above)
  kOffsetDeltaMismatch, // record i's OffsetDelta is not i
  kNegativeCount,       // RecordsCount below 0
  kMissingRecords,      // the section ends before RecordsCount records
  kTrailingBytes,       // bytes after the last of RecordsCount records
  kRecordErrors,        // well-formed, but records break the policy: see record_errors()
};

const char* record_check_name(RecordCheck c);

// A record refused by the policy (Kafka lists each in the Produce response's record_errors).
struct RecordError {
  enum class Kind : uint8_t { kNoKey, kTimestampOutOfRange };
  int32_t index = 0;  // batch_index
  Kind kind = Kind::kNoKey;
  int64_t timestamp = -1;  // the record's timestamp
};

// Kafka's answer: INVALID_RECORD for every structural fault and for records without
// a key, INVALID_TIMESTAMP when any record's timestamp is out of range,
// MESSAGE_TOO_LARGE for kInflatesTooLarge.
ErrorCode kafka_error(RecordCheck c, std::span<const RecordError> errors);

// "record 2: no key, a compacted topic needs one" and the like.
std::string describe(const RecordError& e, const RecordPolicy& policy);

// One per thread; reusable (its codec contexts and buffers are kept).
class RecordValidator {
 public:
  // Smaller chunk and carry sizes than the defaults exercise the spanning paths in tests.
  explicit RecordValidator(size_t chunk_bytes = Decompressor::kDefaultChunkBytes, size_t max_carry = kMaxCarryBytes)
      : decompressor_(chunk_bytes), max_carry_(max_carry) {}

  RecordCheck validate(const RecordBatchView& batch, const RecordPolicy& policy);

  // After a structural failure: the index of the record it was found in (RecordsCount
  // when it was found after the last record).
  int32_t failed_record() const { return failed_record_; }
  // After kOk or kRecordErrors: the largest record timestamp, at least -1 (Kafka's
  // NO_TIMESTAMP): what Kafka writes into the batch's MaxTimestamp.
  int64_t max_timestamp() const { return max_timestamp_; }
  // After kRecordErrors: the refused records, in order.
  std::span<const RecordError> record_errors() const { return errors_; }
  // After a codec failure: what the decompressor said.
  DecompressStatus decompress_status() const { return decompressor_.status(); }

  // A one-line account of a failed validate() ("record 3: ...").
  std::string describe(RecordCheck c, Compression codec) const;

 private:
  Decompressor decompressor_;
  size_t max_carry_;
  std::vector<std::byte> carry_;
  std::vector<RecordError> errors_;
  int32_t failed_record_ = -1;
  int64_t max_timestamp_ = -1;
  size_t max_inflated_bytes_ = 0;
};

}  // namespace rokka::protocol
