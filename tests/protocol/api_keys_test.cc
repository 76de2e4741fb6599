// Cross-checks protocol/api_keys.h and the codec table against Kafka's JSON message
// schemas, which are not in the repository: read at run time from ROKKA_KAFKA_SCHEMA_DIR
// (the environment variable, else the CMake variable; see tests/CMakeLists.txt). Without
// them the schema tests report themselves skipped, with the reason.
#include "protocol/api_keys.h"

#include <gtest/gtest.h>

#include <array>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "protocol/api_codecs.h"
#include "protocol/header.h"

namespace rokka::protocol {
namespace {

namespace fs = std::filesystem;

// The top-level facts of one schema file that these tests need.
struct Schema {
  std::string name;
  int api_key = -1;
  std::string valid_versions;
  std::string flexible_versions;
};

// Empty when no schemas were given.
std::string schema_dir() {
  const char* env = std::getenv("ROKKA_KAFKA_SCHEMA_DIR");
  return env && *env ? env : ROKKA_KAFKA_SCHEMA_DIR;
}

// The value of `"key": "text"` or `"key": 123` in `text`; empty if absent.
std::string top_level_value(const std::string& text, const std::string& key) {
  size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  at = text.find(':', at);
  if (at == std::string::npos) return "";
  at = text.find_first_not_of(" \t\n", at + 1);
  if (at == std::string::npos) return "";
  if (text[at] == '"') return text.substr(at + 1, text.find('"', at + 1) - at - 1);
  const size_t end = text.find_first_not_of("-0123456789", at);
  return text.substr(at, end - at);
}

// Loads every *Request.json / *Response.json, keyed by file stem. Lines starting with
// "//" are comments in these files. Only the header part (before "fields") is searched.
std::map<std::string, Schema> load_schemas() {
  std::map<std::string, Schema> out;
  for (const auto& entry : fs::directory_iterator(schema_dir())) {
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::string text, line;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t") != std::string::npos &&
          line.compare(line.find_first_not_of(" \t"), 2, "//") == 0) {
        continue;
      }
      text += line + "\n";
    }
    text = text.substr(0, text.find("\"fields\""));
    Schema s;
    s.name = top_level_value(text, "name");
    const std::string key = top_level_value(text, "apiKey");
    s.api_key = key.empty() ? -1 : std::stoi(key);
    s.valid_versions = top_level_value(text, "validVersions");
    s.flexible_versions = top_level_value(text, "flexibleVersions");
    out[stem] = s;
  }
  return out;
}

int16_t parse_flexible_since(const std::string& spec) {
  if (spec == "none") return kNeverFlexible;
  EXPECT_EQ(spec.back(), '+') << spec;
  return static_cast<int16_t>(std::stoi(spec));
}

std::pair<int, int> parse_range(const std::string& spec) {
  const auto dash = spec.find('-');
  if (dash == std::string::npos) return {std::stoi(spec), std::stoi(spec)};
  return {std::stoi(spec.substr(0, dash)), std::stoi(spec.substr(dash + 1))};
}

class ApiKeysTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (schema_dir().empty() || !fs::is_directory(schema_dir())) return;
    schemas_ = new std::map<std::string, Schema>(load_schemas());
  }
  static void TearDownTestSuite() {
    delete schemas_;
    schemas_ = nullptr;
  }
  void SetUp() override {
    if (schema_dir().empty()) {
      GTEST_SKIP() << "Kafka's JSON message schemas were not given: configure with "
                      "-DROKKA_KAFKA_SCHEMA_DIR=<dir holding ProduceRequest.json, ...> or set "
                      "ROKKA_KAFKA_SCHEMA_DIR in the environment to run this check";
    }
    // Given but not there is a mistake in the setup, not a reason to skip.
    ASSERT_NE(schemas_, nullptr) << "ROKKA_KAFKA_SCHEMA_DIR is " << schema_dir() << ": not a directory";
    ASSERT_GT(schemas_->size(), 100u) << "too few *.json schemas in " << schema_dir();
  }
  const Schema* find(const std::string& stem) const {
    auto it = schemas_->find(stem);
    return it == schemas_->end() ? nullptr : &it->second;
  }
  static inline std::map<std::string, Schema>* schemas_ = nullptr;
};

std::vector<ApiKey> known_keys() {
  std::vector<ApiKey> keys;
  for (int16_t k = 0; k <= kMaxApiKey; ++k) {
    if (std::string(api_name(static_cast<ApiKey>(k))) != "Unknown") keys.push_back(static_cast<ApiKey>(k));
  }
  return keys;
}

TEST_F(ApiKeysTest, EveryKnownKeyMatchesItsSchemaNumberAndFlexibleVersion) {
  const auto keys = known_keys();
  ASSERT_GT(keys.size(), 60u);
  for (ApiKey key : keys) {
    const std::string name = api_name(key);
    SCOPED_TRACE(name);
    const Schema* req = find(name + "Request");
    const Schema* resp = find(name + "Response");
    ASSERT_TRUE(req && resp) << "no schema named " << name;
    EXPECT_EQ(req->api_key, static_cast<int>(key));
    EXPECT_EQ(resp->api_key, static_cast<int>(key));
    EXPECT_EQ(flexible_since(key), parse_flexible_since(req->flexible_versions));
    EXPECT_EQ(flexible_since(key), parse_flexible_since(resp->flexible_versions));
  }
}

TEST_F(ApiKeysTest, EveryRequestSchemaWithAKeyBelowTheMaximumIsKnown) {
  for (const auto& [stem, s] : *schemas_) {
    if (s.api_key < 0 || stem.size() < 7 || stem.substr(stem.size() - 7) != "Request") continue;
    if (s.api_key > kMaxApiKey) {
      ADD_FAILURE() << stem << " has key " << s.api_key << " above kMaxApiKey";
      continue;
    }
    const ApiKey key = static_cast<ApiKey>(s.api_key);
    // Keys we do not name are fine (KRaft-internal APIs); named ones must agree.
    if (std::string(api_name(key)) == "Unknown") continue;
    EXPECT_EQ(std::string(api_name(key)) + "Request", stem);
  }
}

// Versions Kafka 4.x added after the schema snapshot the tests read (see
// tests/protocol/golden/gen.py, LATER_VERSIONS, which encodes their fields): the
// codec may reach these, and no further.
int later_than_snapshot(ApiKey key) {
  switch (key) {
    case ApiKey::kMetadata: return 13;        // KIP-1102, Kafka 4.0
    case ApiKey::kDescribeGroups: return 6;   // KIP-1043, Kafka 4.0
    case ApiKey::kDescribeCluster: return 2;  // KIP-1073, Kafka 4.0
    case ApiKey::kListTransactions: return 2;  // KIP-1152, Kafka 4.1
    case ApiKey::kConsumerGroupDescribe: return 1;  // KIP-1099, Kafka 4.0
    default: return -1;
  }
}

TEST_F(ApiKeysTest, CodecRangesLieWithinTheSchemasValidVersions) {
  for_each_api_codec([&](auto codec) {
    using C = decltype(codec);
    const std::string name = api_name(C::kKey);
    SCOPED_TRACE(name);
    const Schema* req = find(name + "Request");
    ASSERT_NE(req, nullptr);
    const auto [lo, hi] = parse_range(req->valid_versions);
    EXPECT_GE(C::kMinVersion, lo);
    EXPECT_LE(C::kMaxVersion, std::max(hi, later_than_snapshot(C::kKey)));
    // A later version is listed only while the snapshot lacks it.
    if (later_than_snapshot(C::kKey) >= 0) {
      EXPECT_GT(later_than_snapshot(C::kKey), hi);
    }
  });
}

TEST(ApiKeysHeaderTest, HeaderVersionsFollowFlexibility) {
  EXPECT_EQ(request_header_version(ApiKey::kProduce, 8), 1);
  EXPECT_EQ(request_header_version(ApiKey::kProduce, 9), 2);
  EXPECT_EQ(response_header_version(ApiKey::kFetch, 11), 0);
  EXPECT_EQ(response_header_version(ApiKey::kFetch, 12), 1);
  // ApiVersions answers with header v0 at every version, so any client can read the error.
  EXPECT_EQ(request_header_version(ApiKey::kApiVersions, 3), 2);
  EXPECT_EQ(response_header_version(ApiKey::kApiVersions, 3), 0);
  // SaslHandshake and OffsetDelete never became flexible.
  EXPECT_EQ(request_header_version(ApiKey::kSaslHandshake, 1), 1);
  EXPECT_EQ(request_header_version(ApiKey::kOffsetDelete, 0), 1);
}

// The prefix a connection writes before a response body: the frame size, the correlation id and,
// for a flexible response header, its empty tagged-field section; a client's decoder reads it back.
TEST(ApiKeysHeaderTest, ResponsePrefixIsTheSizeAndTheResponseHeader) {
  std::array<std::byte, kMaxResponsePrefix> prefix{};
  EXPECT_EQ(write_response_prefix(prefix, ApiKey::kFetch, 11, 0x01020304, 100), 8u);
  EXPECT_EQ(prefix[3], std::byte{104});  // 4 (correlation id) + 100
  EXPECT_EQ(prefix[4], std::byte{1});
  EXPECT_EQ(prefix[7], std::byte{4});

  const std::vector<std::byte> body(37, std::byte{0x5a});
  for (const auto& [key, version] : {std::pair{ApiKey::kFetch, int16_t{12}}, std::pair{ApiKey::kApiVersions, int16_t{3}},
                                     std::pair{ApiKey::kProduce, int16_t{9}}}) {
    const size_t n = write_response_prefix(prefix, key, version, -7, body.size());
    EXPECT_EQ(n, response_header_version(key, version) >= 1 ? 9u : 8u);
    std::vector<std::byte> frame(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(n));
    frame.insert(frame.end(), body.begin(), body.end());
    Reader r(frame);
    EXPECT_EQ(r.read_int32(), static_cast<int32_t>(frame.size() - 4));
    int32_t cid = 0;
    ASSERT_TRUE(decode_response_header(r, key, version, cid));
    EXPECT_EQ(cid, -7);
    EXPECT_EQ(frame.size() - r.position(), body.size()) << "the body follows the header";
  }
}

}  // namespace
}  // namespace rokka::protocol
