// Kafka wire primitives.
//
// Reader: bounds-checked big-endian decoding over a frame, with a sticky error:
// the first failure (truncation, an over-long varint, a length or count that
// exceeds the bytes left) makes every later read return zero/empty, and the
// decoder checks ok() once at the end. Views returned by a Reader point into the
// frame and live as long as it does. Nothing is allocated from an untrusted length
// before that length is checked against the bytes actually present.
//
// Writer: appends big-endian values to an owned buffer. It can also splice in
// external byte ranges (record batches living in the mapped CommitLog) without
// copying them: the result is a list of chunks for a scatter-gather write.
//
// Encoder / Decoder: the two directions of one field visitor. Every message
// type describes its fields once, in a static template
//     template <class M, class S> static void fields(M& m, S& s);
// and encode()/decode() run it with an Encoder (M const) or a Decoder (M mutable).
// `s.version` and `s.flexible` select which fields exist and how they are framed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error_code.h"
#include "wire/uuid.h"

namespace rokka::protocol {

using Bytes = std::span<const std::byte>;
using Uuid = wire::Uuid;  // wire/uuid.h

// Kafka 4.4's limits on untrusted counts (checked before anything is allocated):
// an array of more elements, or a tagged-field section of more fields, is malformed.
inline constexpr int64_t kMaxArrayElements = 1'000'000;
inline constexpr int32_t kMaxTaggedFields = 10'000;

inline Bytes as_bytes(std::string_view s) { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }
inline std::string_view as_string_view(Bytes b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

class Reader {
 public:
  Reader() = default;
  explicit Reader(Bytes buf) : buf_(buf) {}

  bool ok() const { return ok_; }
  size_t remaining() const { return buf_.size() - pos_; }
  size_t position() const { return pos_; }
  bool at_end() const { return ok_ && pos_ == buf_.size(); }
  void fail() {
    ok_ = false;
    pos_ = buf_.size();
  }

  int8_t read_int8() { return static_cast<int8_t>(read_be<uint8_t>()); }
  int16_t read_int16() { return static_cast<int16_t>(read_be<uint16_t>()); }
  int32_t read_int32() { return static_cast<int32_t>(read_be<uint32_t>()); }
  int64_t read_int64() { return static_cast<int64_t>(read_be<uint64_t>()); }
  uint16_t read_uint16() { return read_be<uint16_t>(); }
  uint32_t read_uint32() { return read_be<uint32_t>(); }
  bool read_bool() { return read_be<uint8_t>() != 0; }
  double read_float64() {
    const uint64_t bits = read_be<uint64_t>();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  Uuid read_uuid() {
    Uuid u{};
    if (ensure(16)) {
      std::memcpy(u.data(), buf_.data() + pos_, 16);
      pos_ += 16;
    }
    return u;
  }

  // Unsigned LEB128, at most 5 bytes; a longer encoding or one above 32 bits fails.
  uint32_t read_uvarint() {
    uint32_t value = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      const uint8_t b = read_be<uint8_t>();
      if (!ok_) return 0;
      if (shift == 28 && (b & 0xf0) != 0) break;  // bits above 32, or a 6th byte
      value |= static_cast<uint32_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    fail();
    return 0;
  }
  uint64_t read_uvarlong() {
    uint64_t value = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      const uint8_t b = read_be<uint8_t>();
      if (!ok_) return 0;
      if (shift == 63 && (b & 0xfe) != 0) break;
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    fail();
    return 0;
  }
  int32_t read_varint() {  // zig-zag
    const uint32_t z = read_uvarint();
    return static_cast<int32_t>((z >> 1) ^ (0u - (z & 1)));
  }
  int64_t read_varlong() {
    const uint64_t z = read_uvarlong();
    return static_cast<int64_t>((z >> 1) ^ (0ull - (z & 1)));
  }

  Bytes read_raw(size_t n) {
    if (!ensure(n)) return {};
    Bytes out = buf_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  void skip(size_t n) { read_raw(n); }

  // Strings. Classic: int16 length (-1 = null). Compact: uvarint(length + 1) (0 = null).
  std::optional<std::string_view> read_nullable_string(bool compact) {
    int64_t n;
    if (compact) {
      n = static_cast<int64_t>(read_uvarint()) - 1;
    } else {
      n = read_int16();
    }
    if (!ok_) return std::nullopt;
    if (n < -1) {
      fail();
      return std::nullopt;
    }
    if (n == -1) return std::nullopt;
    return as_string_view(read_raw(static_cast<size_t>(n)));
  }
  std::string_view read_string(bool compact) {
    auto s = read_nullable_string(compact);
    if (!s) {
      fail();
      return {};
    }
    return *s;
  }

  // Bytes. Classic: int32 length (-1 = null). Compact: uvarint(length + 1).
  std::optional<Bytes> read_nullable_bytes(bool compact) {
    int64_t n = compact ? static_cast<int64_t>(read_uvarint()) - 1 : read_int32();
    if (!ok_) return std::nullopt;
    if (n < -1) {
      fail();
      return std::nullopt;
    }
    if (n == -1) return std::nullopt;
    return read_raw(static_cast<size_t>(n));
  }
  Bytes read_bytes(bool compact) {
    auto b = read_nullable_bytes(compact);
    if (!b) {
      fail();
      return {};
    }
    return *b;
  }

  // Array count. Returns -1 for null. A count larger than the bytes left can never
  // be satisfied (every element takes at least one byte), and one above
  // kMaxArrayElements is refused as Kafka refuses it, so both fail here, before the
  // caller allocates anything for them.
  int32_t read_array_count(bool compact) {
    int64_t n = compact ? static_cast<int64_t>(read_uvarint()) - 1 : read_int32();
    if (!ok_) return -1;
    if (n < -1 || n > static_cast<int64_t>(remaining()) || n > kMaxArrayElements) {
      fail();
      return -1;
    }
    return static_cast<int32_t>(n);
  }

  // Kafka's ByteUtils.readUnsignedVarint: at most 5 bytes (a fifth with its high bit
  // set fails), and the bits a fifth byte carries beyond 32 are dropped.
  uint32_t read_uvarint_wrapping() {
    uint32_t value = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      const uint8_t b = read_be<uint8_t>();
      if (!ok_) return 0;
      value |= static_cast<uint32_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    fail();
    return 0;
  }

  // Tagged fields: uvarint count, then {uvarint tag, uvarint size, bytes} each. As
  // Kafka's generated readers do, tags come in any order, repeated or not, and the
  // three varints are read as Java ints (read_uvarint_wrapping): a count negative as
  // an int reads no field, a count above kMaxTaggedFields fails, a negative size
  // fails. `each(tag, bytes)` sees every field; skip_tagged_fields ignores them all.
  template <class F>
  void read_tagged_fields(F&& each) {
    const auto n = static_cast<int32_t>(read_uvarint_wrapping());
    if (n > kMaxTaggedFields) return fail();
    for (int32_t i = 0; i < n && ok_; ++i) {
      const uint32_t tag = read_uvarint_wrapping();
      const auto size = static_cast<int32_t>(read_uvarint_wrapping());
      if (size < 0) return fail();
      const Bytes field = read_raw(static_cast<size_t>(size));
      if (ok_) each(tag, field);
    }
  }
  void skip_tagged_fields() {
    read_tagged_fields([](uint32_t, Bytes) {});
  }

 private:
  template <typename U>
  U read_be() {
    if (!ensure(sizeof(U))) return 0;
    U v = 0;
    for (size_t i = 0; i < sizeof(U); ++i) v = static_cast<U>((v << 8) | std::to_integer<U>(buf_[pos_ + i]));
    pos_ += sizeof(U);
    return v;
  }
  bool ensure(size_t n) {
    if (ok_ && buf_.size() - pos_ >= n) return true;
    fail();
    return false;
  }

  Bytes buf_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// A byte range owned elsewhere (typically a mapped CommitLog segment), kept alive by `hold`.
struct ExternalBytes {
  Bytes bytes;
  std::shared_ptr<const void> hold;
};

// The `records` field type: a nullable, length-prefixed run of record batches.
// Decoding yields one view into the frame (`data`). Encoding writes `data` if set,
// else the `parts` back to back as external ranges: fetch responses point straight
// into the mapped CommitLog and no record byte is copied.
struct Records {
  std::optional<Bytes> data;
  std::vector<ExternalBytes> parts;

  bool is_null() const { return !data && parts.empty(); }
  size_t size() const {
    if (data) return data->size();
    size_t n = 0;
    for (const auto& p : parts) n += p.bytes.size();
    return n;
  }
};

class Writer {
 public:
  Writer() = default;
  // Writes into `buffer`'s storage, emptied but with its capacity kept: a caller encoding
  // many large messages hands back the last one's buffer instead of allocating anew.
  explicit Writer(std::vector<std::byte> buffer) : buf_(std::move(buffer)) { buf_.clear(); }

  // A reserved int32 slot, to be patched once the bytes it counts are written.
  struct Mark {
    size_t buf_pos;
    size_t logical_pos;
  };

  void write_int8(int8_t v) { put_be<uint8_t>(static_cast<uint8_t>(v)); }
  void write_int16(int16_t v) { put_be<uint16_t>(static_cast<uint16_t>(v)); }
  void write_int32(int32_t v) { put_be<uint32_t>(static_cast<uint32_t>(v)); }
  void write_int64(int64_t v) { put_be<uint64_t>(static_cast<uint64_t>(v)); }
  void write_uint16(uint16_t v) { put_be<uint16_t>(v); }
  void write_uint32(uint32_t v) { put_be<uint32_t>(v); }
  void write_bool(bool v) { put_be<uint8_t>(v ? 1 : 0); }
  void write_float64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    put_be<uint64_t>(bits);
  }
  void write_uuid(const Uuid& u) { write_raw({reinterpret_cast<const std::byte*>(u.data()), u.size()}); }

  void write_uvarint(uint32_t v) {
    for (; v >= 0x80; v >>= 7) buf_.push_back(static_cast<std::byte>((v & 0x7f) | 0x80));
    buf_.push_back(static_cast<std::byte>(v));
  }
  void write_uvarlong(uint64_t v) {
    for (; v >= 0x80; v >>= 7) buf_.push_back(static_cast<std::byte>((v & 0x7f) | 0x80));
    buf_.push_back(static_cast<std::byte>(v));
  }
  void write_varint(int32_t v) {
    write_uvarint((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
  }
  void write_varlong(int64_t v) {
    write_uvarlong((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

  void write_raw(Bytes b) { buf_.insert(buf_.end(), b.begin(), b.end()); }

  void write_nullable_string(std::optional<std::string_view> s, bool compact) {
    if (!s) {
      compact ? write_uvarint(0) : write_int16(-1);
      return;
    }
    compact ? write_uvarint(static_cast<uint32_t>(s->size() + 1)) : write_int16(static_cast<int16_t>(s->size()));
    write_raw(as_bytes(*s));
  }
  void write_string(std::string_view s, bool compact) { write_nullable_string(s, compact); }

  void write_bytes_length(int64_t n, bool compact) {  // n = -1 for null
    compact ? write_uvarint(static_cast<uint32_t>(n + 1)) : write_int32(static_cast<int32_t>(n));
  }
  void write_nullable_bytes(std::optional<Bytes> b, bool compact) {
    if (!b) return write_bytes_length(-1, compact);
    write_bytes_length(static_cast<int64_t>(b->size()), compact);
    write_raw(*b);
  }
  void write_bytes(Bytes b, bool compact) { write_nullable_bytes(b, compact); }

  void write_array_count(int64_t n, bool compact) {  // n = -1 for null
    compact ? write_uvarint(static_cast<uint32_t>(n + 1)) : write_int32(static_cast<int32_t>(n));
  }
  void write_empty_tagged_fields() { write_uvarint(0); }

  // Appends an external range by reference: no copy is made.
  void write_external(ExternalBytes ext) {
    if (ext.bytes.empty()) return;
    external_size_ += ext.bytes.size();
    externals_.push_back({buf_.size(), std::move(ext)});
  }

  Mark reserve_int32() {
    Mark m{buf_.size(), size()};
    write_int32(0);
    return m;
  }
  void patch_int32(Mark m, int32_t v) {
    const auto u = static_cast<uint32_t>(v);
    for (int i = 0; i < 4; ++i) buf_[m.buf_pos + i] = static_cast<std::byte>(u >> (24 - 8 * i));
  }
  // Patches `m` with the number of bytes written after it.
  void patch_length(Mark m) { patch_int32(m, static_cast<int32_t>(size() - m.logical_pos - 4)); }

  size_t size() const { return buf_.size() + external_size_; }
  bool has_external() const { return !externals_.empty(); }
  const std::vector<std::byte>& owned() const { return buf_; }

  // The whole message as ordered chunks (pointing into this Writer and the externals).
  std::vector<Bytes> chunks() const {
    std::vector<Bytes> out;
    size_t from = 0;
    for (const auto& e : externals_) {
      if (e.at > from) out.push_back(Bytes(buf_).subspan(from, e.at - from));
      out.push_back(e.ext.bytes);
      from = e.at;
    }
    if (buf_.size() > from) out.push_back(Bytes(buf_).subspan(from));
    return out;
  }
  // Flattens into one owned buffer (copies externals; for tests and small responses).
  std::vector<std::byte> take() && {
    if (externals_.empty()) return std::move(buf_);
    std::vector<std::byte> out;
    out.reserve(size());
    for (Bytes c : chunks()) out.insert(out.end(), c.begin(), c.end());
    return out;
  }
  // Gives up the keep-alive handles of the external ranges (the owner of the chunks holds them).
  std::vector<std::shared_ptr<const void>> holds() const {
    std::vector<std::shared_ptr<const void>> out;
    for (const auto& e : externals_) out.push_back(e.ext.hold);
    return out;
  }

 private:
  template <typename U>
  void put_be(U v) {
    for (int i = sizeof(U) - 1; i >= 0; --i) buf_.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
  struct External {
    size_t at;  // position in buf_ the range comes before
    ExternalBytes ext;
  };
  std::vector<std::byte> buf_;
  std::vector<External> externals_;
  size_t external_size_ = 0;
};

// ---------------------------------------------------------------------------
// Field visitors. A message's `fields(m, s)` calls these in wire order.

// A tagged field a message knows, for `s.tags(...)`: its tag, whether the encoder
// writes it (Kafka writes one only when it differs from its default), and its body,
// a generic callable run with a visitor over the field's own bytes:
//   s.tags(tagged(0, !m.features.empty(), [&](auto& t) { t.array(m.features, ...); }));
// Known fields are listed in ascending tag order, as Kafka writes them. On decode,
// a known field's body must use exactly its bytes; unknown tags are skipped.
template <class F>
struct Tagged {
  uint32_t tag;
  bool present;
  F body;
};
template <class F>
Tagged<F> tagged(uint32_t tag, bool present, F body) {
  return {tag, present, std::move(body)};
}

struct Decoder {
  Reader& r;
  int16_t version;
  bool flexible;
  static constexpr bool kDecoding = true;

  bool ok() const { return r.ok(); }
  void i8(int8_t& v) { v = r.read_int8(); }
  void i16(int16_t& v) { v = r.read_int16(); }
  void i16(ErrorCode& v) { v = static_cast<ErrorCode>(r.read_int16()); }  // any int16: codes we do not know pass through
  void i32(int32_t& v) { v = r.read_int32(); }
  void i64(int64_t& v) { v = r.read_int64(); }
  void u16(uint16_t& v) { v = r.read_uint16(); }
  void u32(uint32_t& v) { v = r.read_uint32(); }
  void f64(double& v) { v = r.read_float64(); }
  void boolean(bool& v) { v = r.read_bool(); }
  void uuid(Uuid& v) { v = r.read_uuid(); }
  void str(std::string_view& v) { v = r.read_string(flexible); }
  void str(std::string& v) { v = std::string(r.read_string(flexible)); }
  void nstr(std::optional<std::string_view>& v) { v = r.read_nullable_string(flexible); }
  void nstr(std::optional<std::string>& v) {
    auto s = r.read_nullable_string(flexible);
    v = s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
  }
  void bytes(Bytes& v) { v = r.read_bytes(flexible); }
  void bytes(std::vector<std::byte>& v) {
    Bytes b = r.read_bytes(flexible);
    v.assign(b.begin(), b.end());
  }
  void nbytes(std::optional<Bytes>& v) { v = r.read_nullable_bytes(flexible); }
  void nbytes(std::optional<std::vector<std::byte>>& v) {
    auto b = r.read_nullable_bytes(flexible);
    v = b ? std::optional<std::vector<std::byte>>(std::vector<std::byte>(b->begin(), b->end())) : std::nullopt;
  }

  // A nullable `records` blob: a view into the frame.
  void records(Records& v) {
    v.parts.clear();
    v.data = r.read_nullable_bytes(flexible);
  }

  // A non-nullable array; a null on the wire is malformed. Elements are added only as
  // they decode, so memory follows the bytes actually present, not the count.
  template <typename T, typename F>
  void array(std::vector<T>& v, F&& each) {
    const int32_t n = r.read_array_count(flexible);
    if (n < 0) {
      r.fail();
      return;
    }
    v.clear();
    for (int32_t i = 0; i < n && r.ok(); ++i) each(v.emplace_back());
  }
  template <typename T, typename F>
  void narray(std::optional<std::vector<T>>& v, F&& each) {
    const int32_t n = r.read_array_count(flexible);
    if (n < 0) {
      v.reset();
      return;
    }
    v.emplace();
    for (int32_t i = 0; i < n && r.ok(); ++i) each(v->emplace_back());
  }
  // A nullable struct field (not an array element): an int8 marker, negative for null,
  // then the struct's fields when present.
  template <typename T, typename F>
  void nstruct(std::optional<T>& v, F&& each) {
    if (r.read_int8() < 0 || !r.ok()) {
      v.reset();
      return;
    }
    v = T{};  // not emplace(): clang 14 cannot yet see a nested struct's default constructor here
    each(*v);
  }
  // Arrays of scalars.
  void array_i32(std::vector<int32_t>& v) {
    array(v, [&](int32_t& x) { x = r.read_int32(); });
  }
  void array_i64(std::vector<int64_t>& v) {
    array(v, [&](int64_t& x) { x = r.read_int64(); });
  }
  template <typename S>
  void array_str(std::vector<S>& v) {
    array(v, [&](S& x) { str(x); });
  }
  // The tagged-field section of a struct (flexible versions only): the known fields
  // decoded, the rest skipped.
  template <class... F>
  void tags(const Tagged<F>&... known) {
    if (!flexible) return;
    r.read_tagged_fields([&](uint32_t tag, Bytes field) {
      [[maybe_unused]] auto one = [&](const auto& k) {
        if (k.tag != tag) return;
        Reader sub(field);
        Decoder d{sub, version, flexible};
        k.body(d);
        if (!sub.at_end()) r.fail();
      };
      (one(known), ...);
    });
  }
};

struct Encoder {
  Writer& w;
  int16_t version;
  bool flexible;
  // Optional: where the int32 member at `watch` is written goes into *watched
  // (encode_marking: a response's throttle_time_ms, patched after encoding).
  const int32_t* watch = nullptr;
  std::optional<Writer::Mark>* watched = nullptr;
  static constexpr bool kDecoding = false;

  bool ok() const { return true; }
  void i8(int8_t v) { w.write_int8(v); }
  void i16(int16_t v) { w.write_int16(v); }
  void i16(ErrorCode v) { w.write_int16(to_int(v)); }
  void i32(const int32_t& v) {
    if (&v != watch) return w.write_int32(v);
    *watched = w.reserve_int32();
    w.patch_int32(**watched, v);
  }
  void i64(int64_t v) { w.write_int64(v); }
  void u16(uint16_t v) { w.write_uint16(v); }
  void u32(uint32_t v) { w.write_uint32(v); }
  void f64(double v) { w.write_float64(v); }
  void boolean(bool v) { w.write_bool(v); }
  void uuid(const Uuid& v) { w.write_uuid(v); }
  void str(std::string_view v) { w.write_string(v, flexible); }
  void nstr(const std::optional<std::string_view>& v) { w.write_nullable_string(v, flexible); }
  void nstr(const std::optional<std::string>& v) {
    w.write_nullable_string(v ? std::optional<std::string_view>(*v) : std::nullopt, flexible);
  }
  void bytes(Bytes v) { w.write_bytes(v, flexible); }
  void bytes(const std::vector<std::byte>& v) { w.write_bytes(Bytes(v), flexible); }
  void nbytes(const std::optional<Bytes>& v) { w.write_nullable_bytes(v, flexible); }
  void nbytes(const std::optional<std::vector<std::byte>>& v) {
    w.write_nullable_bytes(v ? std::optional<Bytes>(Bytes(*v)) : std::nullopt, flexible);
  }

  // A null `records` is written as null; parts are spliced in by reference.
  void records(const Records& v) {
    if (v.data || v.parts.empty()) return w.write_nullable_bytes(v.data, flexible);
    w.write_bytes_length(static_cast<int64_t>(v.size()), flexible);
    for (const auto& p : v.parts) w.write_external(p);
  }

  template <typename T, typename F>
  void array(const std::vector<T>& v, F&& each) {
    w.write_array_count(static_cast<int64_t>(v.size()), flexible);
    for (const T& x : v) each(x);
  }
  template <typename T, typename F>
  void narray(const std::optional<std::vector<T>>& v, F&& each) {
    if (!v) return w.write_array_count(-1, flexible);
    array(*v, std::forward<F>(each));
  }
  template <typename T, typename F>
  void nstruct(const std::optional<T>& v, F&& each) {
    w.write_int8(v ? 1 : -1);
    if (v) each(*v);
  }
  void array_i32(const std::vector<int32_t>& v) {
    array(v, [&](int32_t x) { w.write_int32(x); });
  }
  void array_i64(const std::vector<int64_t>& v) {
    array(v, [&](int64_t x) { w.write_int64(x); });
  }
  template <typename S>
  void array_str(const std::vector<S>& v) {
    array(v, [&](const S& x) { str(x); });
  }
  template <class... F>
  void tags(const Tagged<F>&... known) {
    if (!flexible) return;
    w.write_uvarint(static_cast<uint32_t>((0 + ... + (known.present ? 1 : 0))));
    [[maybe_unused]] auto one = [&](const auto& k) {
      if (!k.present) return;
      Writer sub;
      Encoder e{sub, version, flexible};
      k.body(e);
      const std::vector<std::byte> bytes = std::move(sub).take();
      w.write_uvarint(k.tag);
      w.write_uvarint(static_cast<uint32_t>(bytes.size()));
      w.write_raw(bytes);
    };
    (one(known), ...);
  }
};

// Runs M::fields with a Decoder over `r`; true when every field decoded.
// Trailing bytes are left to the caller (a request body must end exactly).
template <typename M>
bool decode_message(M& m, Reader& r, int16_t version, bool flexible) {
  Decoder d{r, version, flexible};
  M::fields(m, d);
  return r.ok();
}

template <typename M>
void encode_message(const M& m, Writer& w, int16_t version, bool flexible) {
  Encoder e{w, version, flexible};
  M::fields(m, e);
}

// encode_message(), noting where `field` (an int32 member of `m`) is written: nullopt
// when this version has no such field.
template <typename M>
std::optional<Writer::Mark> encode_message_marking(const M& m, Writer& w, int16_t version, bool flexible,
                                                   const int32_t& field) {
  std::optional<Writer::Mark> mark;
  Encoder e{w, version, flexible, &field, &mark};
  M::fields(m, e);
  return mark;
}

}  // namespace rokka::protocol
