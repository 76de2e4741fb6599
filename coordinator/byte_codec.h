// ByteReader / ByteWriter: big-endian fixed-width integers and length-prefixed strings.
// The one codec of the MetaStore records of coordinator/ (o/, g/, k/, x/) and broker/meta/
// (t/, a/, q/, gc/), and of the consumer protocol's subscription and assignment; Kafka's
// request and response messages use protocol/codec.h. Strings are u32 length + bytes
// (str), or Kafka's classic int16 length + bytes, -1 for null (str16), which the broker's
// older records (topics, ACL bindings, client quotas) were written with.
// The reader treats its input as hostile: a read past the end fails, makes every later
// read return zero/empty, and is reported once by ok() (errors are sticky, as in
// protocol/codec.h). Lengths are checked against the bytes present before any copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "wire/endian.h"

namespace rokka::coordinator {

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool ok() const { return ok_; }
  size_t remaining() const { return in_.size() - pos_; }
  bool at_end() const { return ok_ && pos_ == in_.size(); }

  uint8_t u8() { return static_cast<uint8_t>(be(1)); }
  int8_t i8() { return static_cast<int8_t>(be(1)); }
  int16_t i16() { return static_cast<int16_t>(be(2)); }
  int32_t i32() { return static_cast<int32_t>(be(4)); }
  uint32_t u32() { return static_cast<uint32_t>(be(4)); }
  int64_t i64() { return static_cast<int64_t>(be(8)); }
  double f64() {  // IEEE 754 binary64, big-endian
    const uint64_t bits = be(8);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

  // A count of items of at least `min_bytes` (> 0) each, as a u32 (an int32 count below
  // zero reads as more than any input holds). A count the bytes left cannot hold fails
  // the reader and gives nullopt: nothing is reserved beyond what the input can carry.
  std::optional<uint32_t> count(size_t min_bytes) {
    const uint32_t n = u32();
    if (!ok_ || n > remaining() / min_bytes) return fail(), std::nullopt;
    return n;
  }

  // The next n bytes (a view into the input), or "" after a failure.
  std::string_view raw(size_t n) {
    if (!ok_ || n > remaining()) return fail(), std::string_view();
    const std::string_view v = in_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  std::string_view str() { return raw(u32()); }  // u32 length, then bytes
  std::optional<std::string_view> nullable_str() {
    if (u8() == 0) return std::nullopt;
    return str();
  }
  // Kafka's classic string: int16 length, then bytes. -1 is null: nullable_str16 gives
  // nullopt, str16 fails; any other negative length fails both.
  std::optional<std::string_view> nullable_str16() {
    const int16_t n = i16();
    if (!ok_ || n == -1) return std::nullopt;
    if (n < 0) return fail(), std::nullopt;
    return raw(static_cast<size_t>(n));
  }
  std::string_view str16() {
    const int16_t n = i16();
    if (n < 0) return fail(), std::string_view();
    return raw(static_cast<size_t>(n));
  }

 private:
  uint64_t be(size_t n) {
    if (!ok_ || n > remaining()) return fail(), 0;
    const uint64_t v = wire::get_be(reinterpret_cast<const std::byte*>(in_.data() + pos_), static_cast<int>(n));
    pos_ += n;
    return v;
  }
  void fail() {
    ok_ = false;
    pos_ = in_.size();
  }

  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

class ByteWriter {
 public:
  void u8(uint8_t v) { be(v, 1); }
  void i8(int8_t v) { be(static_cast<uint8_t>(v), 1); }
  void i16(int16_t v) { be(static_cast<uint16_t>(v), 2); }
  void i32(int32_t v) { be(static_cast<uint32_t>(v), 4); }
  void u32(uint32_t v) { be(v, 4); }
  void i64(int64_t v) { be(static_cast<uint64_t>(v), 8); }
  void f64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    be(bits, 8);
  }
  void raw(std::string_view s) { out_.append(s); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s);
  }
  void nullable_str(const std::optional<std::string>& s) {
    u8(s ? 1 : 0);
    if (s) str(*s);
  }
  // REQUIRES: s.size() <= 32767.
  void str16(std::string_view s) {
    i16(static_cast<int16_t>(s.size()));
    raw(s);
  }
  void nullable_str16(std::optional<std::string_view> s) {
    if (!s) return i16(-1);
    str16(*s);
  }

  std::string take() && { return std::move(out_); }
  const std::string& bytes() const { return out_; }

 private:
  void be(uint64_t v, size_t n) {
    out_.resize(out_.size() + n);
    wire::put_be(reinterpret_cast<std::byte*>(out_.data() + out_.size() - n), v, static_cast<int>(n));
  }

  std::string out_;
};

}  // namespace rokka::coordinator
