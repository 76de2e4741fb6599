#include "storage/crc32c.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace rokka::storage {
namespace {

// Check values from RFC 3720 (iSCSI), appendix B.4, and the common "123456789" check.
TEST(Crc32cTest, MatchesPublishedVectors) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  std::array<uint8_t, 32> buf{};
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x8A9136AAu);
  buf.fill(0xff);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x62A8AB43u);
  std::iota(buf.begin(), buf.end(), 0);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x46DD794Eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x113FDB5Cu);
}

TEST(Crc32cTest, ExtendEqualsOneShotAtEverySplitAndAlignment) {
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 131 + 7);
  for (size_t start = 0; start < 9; ++start) {
    const uint8_t* p = data.data() + start;
    const size_t n = data.size() - start;
    const uint32_t whole = crc32c(p, n);
    for (size_t split = 0; split <= n; split += 37) {
      EXPECT_EQ(crc32c_extend(crc32c(p, split), p + split, n - split), whole) << start << " " << split;
    }
  }
}

// A bit-at-a-time CRC-32C straight from the definition, to check the fast paths
// (three interleaved streams above 1,536 bytes) on long inputs.
uint32_t reference_crc32c(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return ~crc;
}

TEST(Crc32cTest, LongInputsMatchTheBitwiseDefinition) {
  std::vector<uint8_t> data(20000);
  uint32_t x = 12345;
  for (auto& b : data) {
    x = x * 1103515245u + 12345u;
    b = static_cast<uint8_t>(x >> 16);
  }
  for (size_t n : {1535u, 1536u, 1537u, 3071u, 3072u, 3080u, 4999u, 16384u, 19993u}) {
    for (size_t start = 0; start < 3; ++start) {
      EXPECT_EQ(crc32c(data.data() + start, n), reference_crc32c(data.data() + start, n)) << n << " " << start;
    }
  }
}

TEST(Crc32cTest, DetectsSingleBitFlips) {
  std::string s(256, 'x');
  const uint32_t base = crc32c(s.data(), s.size());
  for (size_t bit = 0; bit < s.size() * 8; bit += 13) {
    std::string t = s;
    t[bit / 8] = static_cast<char>(t[bit / 8] ^ (1 << (bit % 8)));
    EXPECT_NE(crc32c(t.data(), t.size()), base);
  }
}

}  // namespace
}  // namespace rokka::storage
