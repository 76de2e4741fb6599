// Reader for the golden files written by tests/protocol/golden/gen.py, and the
// helpers that decode them and render decoded messages as gen.py's tokens.
#pragma once

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/header.h"
#include "protocol/message.h"
#include "tests/testutil/hex.h"

namespace rokka::protocol {

// One version and variant of a message: the frame, and every field's path and token.
struct GoldenCase {
  std::vector<std::byte> frame;
  std::vector<std::string> paths;
  std::vector<std::string> flat;

  // The token of the field at `path` ("Topics.1.Partitions.0.Index"); throws if absent.
  const std::string& at(const std::string& path) const {
    for (size_t i = 0; i < paths.size() && i < flat.size(); ++i) {
      if (paths[i] == path) return flat[i];
    }
    throw std::out_of_range("no golden field " + path);
  }
};

struct GoldenFile {
  std::map<std::pair<int, std::string>, GoldenCase> cases;  // (version, variant)

  static GoldenFile load(const std::string& message_name) {
    GoldenFile g;
    std::ifstream in(std::string(ROKKA_SOURCE_DIR) + "/tests/protocol/golden/" + message_name + ".golden");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream words(line);
      std::string version, variant, kind;
      words >> version >> variant >> kind;
      GoldenCase& c = g.cases[{std::stoi(version.substr(1)), variant}];
      std::vector<std::string> rest;
      for (std::string w; words >> w;) rest.push_back(w);
      if (kind == "frame") {
        c.frame = testutil::from_hex(rest.empty() ? "" : rest[0]);
      } else if (kind == "paths") {
        c.paths = rest;
      } else if (kind == "flat") {
        c.flat = rest;
      }
    }
    return g;
  }

  const GoldenCase* find(int version, const std::string& variant) const {
    auto it = cases.find({version, variant});
    return it == cases.end() ? nullptr : &it->second;
  }
  int min_version() const { return cases.empty() ? -1 : cases.begin()->first.first; }
  int max_version() const { return cases.empty() ? -1 : cases.rbegin()->first.first; }
};

// A third visitor over fields(): renders every field as gen.py's tokens, in wire order.
struct Dumper {
  std::vector<std::string>& out;
  int16_t version;
  bool flexible;
  static constexpr bool kDecoding = false;

  void i8(int8_t v) { out.push_back(std::to_string(v)); }
  void i16(int16_t v) { out.push_back(std::to_string(v)); }
  void i16(ErrorCode v) { i16(to_int(v)); }
  void i32(int32_t v) { out.push_back(std::to_string(v)); }
  void i64(int64_t v) { out.push_back(std::to_string(v)); }
  void u16(uint16_t v) { out.push_back(std::to_string(v)); }
  void u32(uint32_t v) { out.push_back(std::to_string(v)); }
  void boolean(bool v) { out.push_back(v ? "true" : "false"); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::vector<std::byte> be;
    for (int i = 7; i >= 0; --i) be.push_back(static_cast<std::byte>(bits >> (8 * i)));
    out.push_back("f:" + testutil::to_hex(be));
  }
  void uuid(const Uuid& v) { out.push_back("u:" + testutil::to_hex(std::as_bytes(std::span(v)))); }
  void str(std::string_view v) { out.push_back("s:" + std::string(v)); }
  template <class T>
  void nstr(const std::optional<T>& v) {
    v ? str(*v) : out.push_back("null");
  }
  void bytes(Bytes v) { out.push_back("b:" + testutil::to_hex(v)); }
  void bytes(const std::vector<std::byte>& v) { bytes(Bytes(v)); }
  template <class T>
  void nbytes(const std::optional<T>& v) {
    v ? bytes(*v) : out.push_back("null");
  }
  void records(const Records& v) { out.push_back(v.is_null() ? "null" : "r:" + testutil::to_hex(*v.data)); }
  template <class T, class F>
  void array(const std::vector<T>& v, F&& each) {
    out.push_back("[" + std::to_string(v.size()) + "]");
    for (const T& x : v) each(x);
  }
  template <class T, class F>
  void narray(const std::optional<std::vector<T>>& v, F&& each) {
    v ? array(*v, each) : out.push_back("null");
  }
  // gen.py writes a null struct as one `null` token and a present one as its fields.
  template <class T, class F>
  void nstruct(const std::optional<T>& v, F&& each) {
    v ? each(*v) : out.push_back("null");
  }
  void array_i32(const std::vector<int32_t>& v) {
    array(v, [&](int32_t x) { i32(x); });
  }
  void array_i64(const std::vector<int64_t>& v) {
    array(v, [&](int64_t x) { i64(x); });
  }
  template <class S>
  void array_str(const std::vector<S>& v) {
    array(v, [&](const S& x) { str(x); });
  }
  // Known tagged fields the message carries, in tag order (gen.py emits them so).
  template <class... F>
  void tags(const Tagged<F>&... known) {
    [[maybe_unused]] auto one = [&](const auto& k) {
      if (k.present) k.body(*this);
    };
    (one(known), ...);
  }
};

template <class M>
std::vector<std::string> dump(const M& m, int16_t version, bool flexible) {
  std::vector<std::string> out;
  Dumper d{out, version, flexible};
  M::fields(m, d);
  return out;
}

inline std::vector<std::string> dump_header(const RequestHeader& h) {
  return {std::to_string(h.api_key), std::to_string(h.api_version), std::to_string(h.correlation_id),
          h.client_id ? "s:" + std::string(*h.client_id) : "null"};
}

// One decoded golden frame: the header's tokens, the message, and its re-encoding.
template <class M>
struct Decoded {
  bool ok = false;
  std::vector<std::string> header_tokens;
  M message;
  std::vector<std::byte> reencoded;
};

// Decodes a golden frame (request or response header, then the body) and re-encodes it.
template <class M>
Decoded<M> decode_frame(Bytes frame, bool is_request, int16_t version) {
  Decoded<M> d;
  Reader r(frame);
  Writer w;
  if (is_request) {
    RequestHeader h;
    if (!decode_request_header(r, h) || h.key() != M::kApiKey || h.api_version != version) return d;
    d.header_tokens = dump_header(h);
    encode_request_header(w, h);
  } else {
    int32_t correlation_id = 0;
    if (!decode_response_header(r, M::kApiKey, version, correlation_id)) return d;
    d.header_tokens = {std::to_string(correlation_id)};
    encode_response_header(w, M::kApiKey, version, correlation_id);
  }
  if (!decode(d.message, frame.subspan(r.position()), version)) return d;
  encode(d.message, w, version);
  d.reencoded = std::move(w).take();
  d.ok = true;
  return d;
}

}  // namespace rokka::protocol
