// Internal errors -> Kafka error codes. Exhaustive switches with no default, so
// -Wswitch flags any new internal code that lacks a mapping.
#pragma once

#include "protocol/error_code.h"
#include "storage/status.h"

namespace rokka::broker {

constexpr protocol::ErrorCode to_kafka(storage::StatusCode code) {
  using protocol::ErrorCode;
  using storage::StatusCode;
  switch (code) {
    case StatusCode::kOk: return ErrorCode::kNone;
    case StatusCode::kNotFound: return ErrorCode::kUnknownTopicOrPartition;
    case StatusCode::kOutOfRange: return ErrorCode::kOffsetOutOfRange;
    case StatusCode::kCorruption: return ErrorCode::kCorruptMessage;
    case StatusCode::kIoError: return ErrorCode::kKafkaStorageError;
    case StatusCode::kReadOnly: return ErrorCode::kKafkaStorageError;
    case StatusCode::kInvalidArgument: return ErrorCode::kInvalidRecord;
    case StatusCode::kTooLarge: return ErrorCode::kMessageTooLarge;
    case StatusCode::kShutdown: return ErrorCode::kKafkaStorageError;
    case StatusCode::kDuplicateSequence: return ErrorCode::kDuplicateSequenceNumber;
    case StatusCode::kOutOfOrderSequence: return ErrorCode::kOutOfOrderSequenceNumber;
    case StatusCode::kInvalidProducerEpoch: return ErrorCode::kInvalidProducerEpoch;
    case StatusCode::kUnknownProducerId: return ErrorCode::kUnknownProducerId;
    case StatusCode::kMalformed: return ErrorCode::kCorruptMessage;
  }
  return ErrorCode::kUnknownServerError;
}

inline protocol::ErrorCode to_kafka(const storage::Status& s) { return to_kafka(s.code()); }

}  // namespace rokka::broker
