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

// Kafka's generated readers skip every tag they do not know by its size, whatever the
// order, and read the varints as Java ints (ByteUtils.readUnsignedVarint).
TEST(CodecTest, TaggedFieldsAreSkippedByTagAsKafkaReadsThem) {
  auto skipped = [](const char* hex) {
    auto b = from_hex(hex);
    Reader r(b);
    r.skip_tagged_fields();
    const int8_t after = r.read_int8();  // the byte after the tagged fields
    return r.ok() ? after : int8_t{-1};
  };
  EXPECT_EQ(skipped("02 00 01 ff 05 02 aabb 07"), 7);
  EXPECT_EQ(skipped("02 01 00 01 00 07"), 7);                  // a tag twice
  EXPECT_EQ(skipped("02 05 01 aa 00 00 07"), 7);               // 5 before 0
  EXPECT_EQ(skipped("01 ff ff ff ff 7f 01 aa 07"), 7);         // a tag overflowing 32 bits in 5 bytes
  EXPECT_EQ(skipped("80 80 80 80 08 07"), 7);                  // a count of -2^31 as an int: no field
  EXPECT_EQ(skipped("01 ff ff ff ff ff 01 01 aa 07"), -1);     // a sixth varint byte
  EXPECT_EQ(skipped("01 00 ff ff ff ff 0f 07"), -1);           // a size of -1 as an int
  EXPECT_EQ(skipped("01 00 05 aabb 07"), -1);                  // a size beyond the bytes
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
