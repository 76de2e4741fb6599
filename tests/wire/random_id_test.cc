// wire/random_id.h: the formats of the ids the brokers draw (Kafka's as Kafka writes them)
// and that many draws do not repeat.
#include "wire/random_id.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace rokka::wire {
namespace {

constexpr int kDraws = 20000;

Uuid counting() {  // 00 01 02 ... 0f
  Uuid u{};
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(i);
  return u;
}

TEST(RandomIdTest, TextFormsAreKafkasAndJavas) {
  // Python's base64.urlsafe_b64encode(bytes(range(16))) without its "==" padding.
  EXPECT_EQ(to_base64url(counting()), "AAECAwQFBgcICQoLDA0ODw");
  EXPECT_EQ(to_base64url(Uuid{}), "AAAAAAAAAAAAAAAAAAAAAA");  // Kafka's Uuid.ZERO_UUID
  Uuid one{};
  one[15] = 1;
  EXPECT_EQ(to_base64url(one), "AAAAAAAAAAAAAAAAAAAAAQ");  // Kafka's Uuid.METADATA_TOPIC_ID
  Uuid all{};
  all.fill(0xff);
  EXPECT_EQ(to_base64url(all), "_____________________w");
  EXPECT_EQ(to_uuid_text(counting()), "00010203-0405-0607-0809-0a0b0c0d0e0f");
}

TEST(RandomIdTest, UuidsAreVersion4NonZeroAndDistinct) {
  std::set<Uuid> seen;
  for (int i = 0; i < kDraws; ++i) {
    const Uuid u = random_uuid();
    ASSERT_NE(u, Uuid{});
    ASSERT_EQ(u[6] >> 4, 4);        // version 4
    ASSERT_EQ(u[8] & 0xc0, 0x80);   // variant 10
    ASSERT_TRUE(seen.insert(u).second) << "a UUID repeated after " << i << " draws";
  }
  // Every byte position varies (the random bits are not stuck).
  for (size_t b = 0; b < 16; ++b) {
    std::set<uint8_t> values;
    for (const Uuid& u : seen) values.insert(u[b]);
    EXPECT_GT(values.size(), 3u) << "byte " << b;
  }
}

TEST(RandomIdTest, ClusterIdsAre22CharactersOfUrlSafeBase64) {
  const std::regex kafka_uuid("[A-Za-z0-9_-]{21}[AQgw]");  // 128 bits: the last character holds 2
  std::set<std::string> seen;
  for (int i = 0; i < kDraws; ++i) {
    const std::string id = random_cluster_id();
    ASSERT_TRUE(std::regex_match(id, kafka_uuid)) << id;
    ASSERT_TRUE(seen.insert(id).second) << "a cluster id repeated: " << id;
  }
}

TEST(RandomIdTest, MemberIdsArePrefixThenAUuid) {
  const std::regex member("consumer-1-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> seen;
  for (int i = 0; i < kDraws; ++i) {
    const std::string id = random_member_id("consumer-1-");
    ASSERT_TRUE(std::regex_match(id, member)) << id;
    ASSERT_TRUE(seen.insert(id).second) << "a member id repeated: " << id;
  }
  EXPECT_EQ(random_member_id("").size(), 36u);  // KIP-848: the id alone
}

TEST(RandomIdTest, NumbersAreDistinct) {
  std::set<uint64_t> seen;
  for (int i = 0; i < kDraws; ++i) ASSERT_TRUE(seen.insert(random_u64()).second);
  uint64_t any_high = 0;
  for (uint64_t v : seen) any_high |= v;
  EXPECT_EQ(any_high, ~uint64_t{0});  // every bit is set in some draw
}

}  // namespace
}  // namespace rokka::wire
