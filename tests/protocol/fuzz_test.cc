// The fuzz entry points accept every valid golden frame and survive deterministic
// mutations of them (run under -DROKKA_SANITIZE=ON to catch memory errors); a real
// fuzzer (libFuzzer) wraps the same functions.
#include "protocol/fuzz.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "protocol/api_codecs.h"
#include "tests/protocol/golden_support.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::protocol {
namespace {

constexpr int kMutationsPerFrame = 24;

// Byte flips, hostile length bytes, truncation and insertion, from a fixed seed.
std::vector<std::byte> mutate(const std::vector<std::byte>& in, std::mt19937& rng) {
  std::vector<std::byte> out = in;
  if (out.empty()) return out;
  std::uniform_int_distribution<size_t> pos(0, out.size() - 1);
  switch (rng() % 5) {
    case 0: out[pos(rng)] ^= static_cast<std::byte>(1u << (rng() % 8)); break;
    case 1: out[pos(rng)] = std::byte{0xff}; break;
    case 2: out[pos(rng)] = std::byte{0x7f}; break;
    case 3: out.resize(pos(rng)); break;
    default: out.insert(out.begin() + static_cast<ptrdiff_t>(pos(rng)), std::byte{0x80}); break;
  }
  return out;
}

struct Frames {
  std::vector<std::vector<std::byte>> requests;
  // (key, version, body) of responses.
  std::vector<std::tuple<ApiKey, int16_t, std::vector<std::byte>>> responses;
};

Frames golden_frames() {
  Frames f;
  for_each_api_codec([&](auto codec) {
    using C = decltype(codec);
    const std::string name = api_name(C::kKey);
    const GoldenFile req = GoldenFile::load(name + "Request");
    const GoldenFile resp = GoldenFile::load(name + "Response");
    for (int16_t v = C::kMinVersion; v <= C::kMaxVersion; ++v) {
      for (const char* variant : {"full", "null", "tagged"}) {
        if (const GoldenCase* g = req.find(v, variant)) f.requests.push_back(g->frame);
        if (const GoldenCase* g = resp.find(v, variant)) {
          Reader r(g->frame);
          int32_t correlation_id;
          if (!decode_response_header(r, C::kKey, v, correlation_id)) continue;
          const Bytes body = Bytes(g->frame).subspan(r.position());
          f.responses.emplace_back(C::kKey, v, std::vector<std::byte>(body.begin(), body.end()));
        }
      }
    }
  });
  return f;
}

TEST(FuzzTest, EveryGoldenRequestIsAccepted) {
  const Frames f = golden_frames();
  ASSERT_GT(f.requests.size(), 300u);
  for (const auto& frame : f.requests) EXPECT_TRUE(fuzz_decode_request(frame));
  for (const auto& [key, version, body] : f.responses) EXPECT_TRUE(fuzz_decode_response(key, version, body));
}

TEST(FuzzTest, MutatedFramesAreHandledWithoutCrashing) {
  const Frames f = golden_frames();
  std::mt19937 rng(20240601);
  size_t accepted = 0, total = 0;
  for (const auto& frame : f.requests) {
    for (int i = 0; i < kMutationsPerFrame; ++i, ++total) accepted += fuzz_decode_request(mutate(frame, rng));
  }
  for (const auto& [key, version, body] : f.responses) {
    for (int i = 0; i < kMutationsPerFrame; ++i, ++total) accepted += fuzz_decode_response(key, version, mutate(body, rng));
  }
  // Many mutations land in values and still decode; many break framing. Both happen.
  EXPECT_GT(accepted, 0u);
  EXPECT_LT(accepted, total);
}

TEST(FuzzTest, RecordBatchesAreAcceptedAndMutationsSurvived) {
  std::mt19937 rng(7);
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                        Compression::kZstd}) {
    testutil::RecordBatchBuilder b;
    b.compression(c);
    for (int i = 0; i < 20; ++i) b.add(testutil::TestRecord{"k" + std::to_string(i), std::string(i * 10, 'v'), {{"h", "x"}}, i});
    const auto batch = b.build();
    EXPECT_TRUE(fuzz_records(batch)) << compression_name(c);
    for (int i = 0; i < 200; ++i) (void)fuzz_records(mutate(batch, rng));
  }
}

// fuzz_record_validator aborts when RecordValidator and RecordReader disagree: its
// seeds (every codec, spanning chunks) and mutations of them must all get through.
TEST(FuzzTest, RecordValidatorAgreesWithTheReaderOnMutatedSeeds) {
  const std::filesystem::path dir = std::filesystem::path(ROKKA_SOURCE_DIR) / "tests/fuzz/seeds/validate";
  std::mt19937 rng(11);
  size_t seeds = 0, accepted = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<std::byte> seed(reinterpret_cast<const std::byte*>(text.data()),
                                      reinterpret_cast<const std::byte*>(text.data() + text.size()));
    ++seeds;
    accepted += fuzz_record_validator(seed);
    for (int i = 0; i < 300; ++i) (void)fuzz_record_validator(mutate(seed, rng));
  }
  EXPECT_GE(seeds, 10u);
  EXPECT_GE(accepted, 6u);  // the well-formed seeds of each codec
}

// (Under -DROKKA_SANITIZE=ON an allocation sized by one of these claims would abort.)
TEST(FuzzTest, HugeCountsAndLengthsFailWithoutAllocatingForThem) {
  // Produce v3: transactional id null, acks, timeout, then 2^31-1 topics in 4 bytes.
  const auto produce = testutil::from_hex("0000 0003 00000001 ffff  ffff 0001 00001388 7fffffff 00000000");
  EXPECT_FALSE(fuzz_decode_request(produce));
  // Fetch v12 (flexible): a compact topics array claiming 2^32-2 entries.
  const auto fetch = testutil::from_hex("0001 000c 00000001 ffff 00  ffffffff 00000000 00000000 00000000 00"
                                        "00000000 ffffffff ffffffff0f 00");
  EXPECT_FALSE(fuzz_decode_request(fetch));
  // JoinGroup v5: a group id string of 32767 bytes with 3 present.
  const auto join = testutil::from_hex("000b 0005 00000001 ffff  7fff 616263");
  EXPECT_FALSE(fuzz_decode_request(join));
  // ListTransactions v1 (flexible): a compact state-filter array claiming 2^32-2 entries.
  const auto list_txns = testutil::from_hex("0042 0001 00000001 ffff 00  ffffffff0f");
  EXPECT_FALSE(fuzz_decode_request(list_txns));
  // DescribeTransactions v0: one transactional id whose compact length claims 2^31 bytes, 2 present.
  const auto describe_txns = testutil::from_hex("0041 0000 00000001 ffff 00  02 8080808008 6869");
  EXPECT_FALSE(fuzz_decode_request(describe_txns));
}

TEST(FuzzTest, TinyAndEmptyInputsAreRejected) {
  EXPECT_FALSE(fuzz_decode_request({}));
  const auto unknown_key = testutil::from_hex("7fff 0000 00000001 ffff");
  EXPECT_FALSE(fuzz_decode_request(unknown_key));
  const auto produce_v2 = testutil::from_hex("0000 0002 00000001 ffff");  // below the codec's range
  EXPECT_FALSE(fuzz_decode_request(produce_v2));
  EXPECT_FALSE(fuzz_decode_response(ApiKey::kLeaderAndIsr, 0, {}));
  EXPECT_TRUE(fuzz_records({}));  // no batches at all is a well-formed (empty) blob
}

}  // namespace
}  // namespace rokka::protocol
