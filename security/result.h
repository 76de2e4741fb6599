// Result<T> and Status: the error currency of the security room.
//
// security/ is a leaf room like protocol/: it includes only the C++ library,
// OpenSSL, Boost headers (asio's ssl context, regex) and rapidjson, never
// another room of ours, so the broker can wire it in without a cycle. An error
// is a message for the operator or the broker's log; which Kafka error code a
// failure becomes is the caller's business (SASL failures carry their own
// client-facing text, see sasl_server.h).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rokka::security {

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}   // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // The error; only for a failed Result.
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(const Error& error) : error_(error.message()), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  // Empty for an ok Status.
  const std::string& message() const { return error_; }

 private:
  std::string error_;
  bool ok_ = true;
};

}  // namespace rokka::security
