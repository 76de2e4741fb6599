#include "protocol/codec.h"

#include <gtest/gtest.h>

#include "tests/testutil/hex.h"

namespace rokka::protocol {
namespace {

using testutil::from_hex;
using testutil::to_hex;

TEST(CodecTest, VarintsRoundTripAtEveryWidth) {
  const int64_t values[] = {0, 1, -1, 63, -64, 64, 8191, -8192, 1 << 20, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  for (int64_t v : values) {
    Writer w;
    w.write_varlong(v);
    if (v >= INT32_MIN && v <= INT32_MAX) w.write_varint(static_cast<int32_t>(v));
    auto bytes = std::move(w).take();
    Reader r(bytes);
    EXPECT_EQ(r.read_varlong(), v);
    if (v >= INT32_MIN && v <= INT32_MAX) {
      EXPECT_EQ(r.read_varint(), v);
    }
    EXPECT_TRUE(r.at_end());
  }
}

TEST(CodecTest, ZigZagMatchesProtobufEncoding) {
  Writer w;
  w.write_varint(0);
  w.write_varint(-1);
  w.write_varint(1);
  w.write_varint(-2);
  w.write_varint(300);
  EXPECT_EQ(to_hex(std::move(w).take()), "00010203d804");
}

TEST(CodecTest, OverlongVarintIsRejected) {
  auto six = from_hex("ffffffffff01");
  Reader r(six);
  r.read_uvarint();
  EXPECT_FALSE(r.ok());
  auto above32 = from_hex("ffffffff1f");  // 5th byte carries bits above 32
  Reader r2(above32);
  r2.read_uvarint();
  EXPECT_FALSE(r2.ok());
  auto max32 = from_hex("ffffffff0f");
  Reader r3(max32);
  EXPECT_EQ(r3.read_uvarint(), 0xffffffffu);
  EXPECT_TRUE(r3.ok());
}

TEST(CodecTest, StringsClassicAndCompact) {
  Writer w;
  w.write_string("abc", false);
  w.write_nullable_string(std::nullopt, false);
  w.write_string("abc", true);
  w.write_nullable_string(std::nullopt, true);
  auto bytes = std::move(w).take();
  EXPECT_EQ(to_hex(bytes), "0003616263ffff0461626300");
  Reader r(bytes);
  EXPECT_EQ(r.read_string(false), "abc");
  EXPECT_FALSE(r.read_nullable_string(false).has_value());
  EXPECT_EQ(r.read_string(true), "abc");
  EXPECT_FALSE(r.read_nullable_string(true).has_value());
  EXPECT_TRUE(r.at_end());
}

TEST(CodecTest, LengthsBeyondTheBufferFailWithoutReading) {
  auto s = from_hex("7fff41");  // string of 32767 bytes, 1 present
  Reader r(s);
  r.read_string(false);
  EXPECT_FALSE(r.ok());
  auto neg = from_hex("fffe");  // length -2
  Reader r2(neg);
  r2.read_nullable_string(false);
  EXPECT_FALSE(r2.ok());
  auto arr = from_hex("7fffffff00");  // 2^31-1 elements, 1 byte left
  Reader r3(arr);
  EXPECT_EQ(r3.read_array_count(false), -1);
  EXPECT_FALSE(r3.ok());
}

TEST(CodecTest, StickyErrorYieldsZerosAfterwards) {
  auto b = from_hex("0001");
  Reader r(b);
  EXPECT_EQ(r.read_int32(), 0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.read_int8(), 0);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CodecTest, TaggedFieldsAreSkippedAndMustIncrease) {
  auto good = from_hex("02 00 01 ff 05 02 aabb 07");
  Reader r(good);
  r.skip_tagged_fields();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.read_int8(), 7);
  auto dup = from_hex("02 01 00 01 00");
  Reader r2(dup);
  r2.skip_tagged_fields();
  EXPECT_FALSE(r2.ok());
}

TEST(CodecTest, ExternalBytesAreSplicedWithoutCopyAndCountedInLengths) {
  static const std::byte kExternal[] = {std::byte{1}, std::byte{2}, std::byte{3}};
  Writer w;
  const auto mark = w.reserve_int32();
  w.write_int8(9);
  w.write_external({Bytes(kExternal), nullptr});
  w.write_int8(8);
  w.patch_length(mark);
  auto chunks = w.chunks();
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].data(), kExternal);
  EXPECT_EQ(w.size(), 9u);
  EXPECT_EQ(to_hex(std::move(w).take()), "0000000509010203" "08");
}

}  // namespace
}  // namespace rokka::protocol
