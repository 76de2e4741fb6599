#include "storage/status.h"

namespace rokka::storage {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kOutOfRange: return "out_of_range";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kIoError: return "io_error";
    case StatusCode::kReadOnly: return "read_only";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kTooLarge: return "too_large";
    case StatusCode::kShutdown: return "shutdown";
    case StatusCode::kDuplicateSequence: return "duplicate_sequence";
    case StatusCode::kOutOfOrderSequence: return "out_of_order_sequence";
    case StatusCode::kInvalidProducerEpoch: return "invalid_producer_epoch";
    case StatusCode::kUnknownProducerId: return "unknown_producer_id";
    case StatusCode::kMalformed: return "malformed";
    case StatusCode::kConflict: return "conflict";
    case StatusCode::kNotLeader: return "not_leader";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  std::string s = status_code_name(code_);
  if (!message_.empty()) {
    s += ": ";
    s += message_;
  }
  return s;
}

}  // namespace rokka::storage
