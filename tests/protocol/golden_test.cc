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
#include "tests/protocol/golden_support.h"
#include "tests/testutil/hex.h"

namespace rokka::protocol {
namespace {

using testutil::to_hex;

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
      const auto body = dump(d.message, v, is_flexible(M::kApiKey, v));
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
