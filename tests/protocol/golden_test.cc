// Golden frames from tests/protocol/golden/gen.py (an independent Python encoder
// driven by Kafka's JSON schemas): every API and version in the codec table must
// decode them to the values the generator chose, re-encode them byte for byte, skip
// unknown tagged fields, and reject every strict prefix.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "protocol/api_codecs.h"
#include "protocol/header.h"
#include "tests/protocol/golden_file.h"
#include "tests/testutil/hex.h"

namespace rokka::protocol {
namespace {

using testutil::to_hex;

// A third visitor over fields(): renders every field as gen.py's tokens, in wire order.
struct Dumper {
  std::vector<std::string>& out;
  int16_t version;
  bool flexible;
  static constexpr bool kDecoding = false;

  void i8(int8_t v) { out.push_back(std::to_string(v)); }
  void i16(int16_t v) { out.push_back(std::to_string(v)); }
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
    out.push_back("f:" + to_hex(be));
  }
  void uuid(const Uuid& v) { out.push_back("u:" + to_hex(std::as_bytes(std::span(v)))); }
  void str(std::string_view v) { out.push_back("s:" + std::string(v)); }
  template <class T>
  void nstr(const std::optional<T>& v) {
    v ? str(*v) : out.push_back("null");
  }
  void bytes(Bytes v) { out.push_back("b:" + to_hex(v)); }
  void bytes(const std::vector<std::byte>& v) { bytes(Bytes(v)); }
  template <class T>
  void nbytes(const std::optional<T>& v) {
    v ? bytes(*v) : out.push_back("null");
  }
  void records(const Records& v) { out.push_back(v.is_null() ? "null" : "r:" + to_hex(*v.data)); }
  template <class T, class F>
  void array(const std::vector<T>& v, F&& each) {
    out.push_back("[" + std::to_string(v.size()) + "]");
    for (const T& x : v) each(x);
  }
  template <class T, class F>
  void narray(const std::optional<std::vector<T>>& v, F&& each) {
    v ? array(*v, each) : out.push_back("null");
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
  void tags() {}
};

template <class M>
std::vector<std::string> dump(const M& m, int16_t version) {
  std::vector<std::string> out;
  Dumper d{out, version, is_flexible(M::kApiKey, version)};
  M::fields(m, d);
  return out;
}

std::vector<std::string> dump_header(const RequestHeader& h) {
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

// Index of the first differing token, for a readable failure.
std::string first_difference(const GoldenCase& g, const std::vector<std::string>& got) {
  for (size_t i = 0; i < g.flat.size() || i < got.size(); ++i) {
    const std::string want = i < g.flat.size() ? g.flat[i] : "<end>";
    const std::string have = i < got.size() ? got[i] : "<end>";
    if (want != have) {
      return "at " + (i < g.paths.size() ? g.paths[i] : "?") + ": want " + want + ", got " + have;
    }
  }
  return "equal";
}

template <class M>
void check_message_type(bool is_request, int16_t min_version, int16_t max_version) {
  const std::string name = std::string(api_name(M::kApiKey)) + (is_request ? "Request" : "Response");
  SCOPED_TRACE(name);
  const GoldenFile golden = GoldenFile::load(name);
  ASSERT_FALSE(golden.cases.empty()) << "no golden file for " << name << "; run tests/protocol/golden/gen.py";
  EXPECT_EQ(golden.min_version(), min_version) << "golden versions differ from the codec table";
  EXPECT_EQ(golden.max_version(), max_version) << "golden versions differ from the codec table";

  for (int16_t v = min_version; v <= max_version; ++v) {
    for (const char* variant : {"full", "null"}) {
      SCOPED_TRACE("v" + std::to_string(v) + " " + variant);
      const GoldenCase* g = golden.find(v, variant);
      ASSERT_NE(g, nullptr) << "golden frame missing";
      const auto d = decode_frame<M>(g->frame, is_request, v);
      ASSERT_TRUE(d.ok) << "golden frame does not decode";
      std::vector<std::string> tokens = d.header_tokens;
      const auto body = dump(d.message, v);
      tokens.insert(tokens.end(), body.begin(), body.end());
      EXPECT_EQ(tokens, g->flat) << first_difference(*g, tokens);
      EXPECT_EQ(to_hex(d.reencoded), to_hex(g->frame));

      for (size_t n = 0; n < g->frame.size(); ++n) {
        ASSERT_FALSE(decode_frame<M>(Bytes(g->frame).first(n), is_request, v).ok) << "prefix of " << n << " bytes";
      }
    }
    if (is_flexible(M::kApiKey, v)) {
      SCOPED_TRACE("v" + std::to_string(v) + " tagged");
      const GoldenCase* tagged = golden.find(v, "tagged");
      const GoldenCase* full = golden.find(v, "full");
      ASSERT_TRUE(tagged && full) << "golden frame missing";
      const auto d = decode_frame<M>(tagged->frame, is_request, v);
      ASSERT_TRUE(d.ok) << "unknown tagged fields were not skipped";
      EXPECT_EQ(to_hex(d.reencoded), to_hex(full->frame));
    }
  }
}

class GoldenTest : public ::testing::TestWithParam<ApiKey> {};

}  // namespace

void PrintTo(ApiKey key, std::ostream* os) { *os << api_name(key); }

namespace {

TEST_P(GoldenTest, DecodesReencodesAndRejectsPrefixes) {
  ASSERT_TRUE(visit_api_codec(GetParam(), [](auto codec) {
    using C = decltype(codec);
    check_message_type<typename C::Request>(true, C::kMinVersion, C::kMaxVersion);
    check_message_type<typename C::Response>(false, C::kMinVersion, C::kMaxVersion);
  }));
}

std::vector<ApiKey> all_codec_keys() {
  std::vector<ApiKey> keys;
  for_each_api_codec([&](auto codec) { keys.push_back(decltype(codec)::kKey); });
  return keys;
}

INSTANTIATE_TEST_SUITE_P(Apis, GoldenTest, ::testing::ValuesIn(all_codec_keys()),
                         [](const auto& info) { return std::string(api_name(info.param)); });

}  // namespace
}  // namespace rokka::protocol
