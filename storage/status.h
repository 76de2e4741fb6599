// Status and Result<T>: the error currency of storage, coordinator and broker internals.
// Kafka error codes never appear here; broker/error_mapping.h translates.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rokka::storage {

enum class StatusCode : int {
  kOk = 0,
  kNotFound,            // no such partition / key
  kOutOfRange,          // offset below the log start or above the next offset
  kCorruption,          // bytes that fail their CRC or framing
  kIoError,             // a syscall failed; the store may be read-only now
  kReadOnly,            // an earlier flush failed; no append is accepted again
  kInvalidArgument,     // caller error (bad batch, bad option)
  kTooLarge,            // entry larger than a segment or a configured limit
  kShutdown,            // the store is closing
  kDuplicateSequence,   // idempotent retry of a batch already stored (carries no data)
  kOutOfOrderSequence,  // idempotent producer skipped a sequence number
  kInvalidProducerEpoch,
  kUnknownProducerId,
  kMalformed,           // network input that does not decode (broker: close the connection)
  kConflict,            // the state a request was based on changed meanwhile (Store::rewrite)
  kNotLeader,           // a replicated store that is not its group's leader (Role::kFollower, kFenced)
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status out_of_range(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
  static Status corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status read_only(std::string m) { return {StatusCode::kReadOnly, std::move(m)}; }
  static Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status too_large(std::string m) { return {StatusCode::kTooLarge, std::move(m)}; }
  static Status shutdown(std::string m) { return {StatusCode::kShutdown, std::move(m)}; }
  static Status malformed(std::string m) { return {StatusCode::kMalformed, std::move(m)}; }
  static Status conflict(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
  static Status not_leader(std::string m) { return {StatusCode::kNotLeader, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or a non-ok Status. Constructing from an ok Status is a bug.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The error; an ok Result reports an ok Status.
  Status status() const { return ok() ? Status() : std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace rokka::storage
