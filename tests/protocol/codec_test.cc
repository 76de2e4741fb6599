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

// Kafka 4.4 refuses arrays of more than 1,000,000 elements and tagged sections of more
// than 10,000 fields; so do we, before allocating, even when the bytes are there.
TEST(CodecTest, ArraysAboveAMillionElementsAreRefusedBeforeAllocating) {
  std::vector<std::byte> body(1'000'001 + 4, std::byte{0});
  auto put_count = [&](int32_t n) {
    for (int i = 0; i < 4; ++i) body[i] = static_cast<std::byte>(static_cast<uint32_t>(n) >> (24 - 8 * i));
  };
  put_count(1'000'000);
  Reader at_limit(body);
  EXPECT_EQ(at_limit.read_array_count(false), 1'000'000);
  EXPECT_TRUE(at_limit.ok());
  put_count(1'000'001);
  Reader above(body);
  EXPECT_EQ(above.read_array_count(false), -1);
  EXPECT_FALSE(above.ok());

  // Compact: uvarint(n + 1).
  Writer w;
  w.write_uvarint(1'000'002);
  auto compact = std::move(w).take();
  compact.resize(compact.size() + 1'000'001);
  Reader compact_above(compact);
  EXPECT_EQ(compact_above.read_array_count(true), -1);
  EXPECT_FALSE(compact_above.ok());
}

TEST(CodecTest, TaggedSectionsAboveTenThousandFieldsAreRefused) {
  auto section = [](uint32_t n) {
    Writer w;
    w.write_uvarint(n);
    for (uint32_t i = 0; i < n; ++i) {
      w.write_uvarint(i);
      w.write_uvarint(0);
    }
    w.write_int8(7);
    return std::move(w).take();
  };
  auto at_limit = section(10'000);
  Reader ok(at_limit);
  ok.skip_tagged_fields();
  EXPECT_EQ(ok.read_int8(), 7);
  EXPECT_TRUE(ok.ok());
  auto above = section(10'001);
  Reader bad(above);
  bad.skip_tagged_fields();
  EXPECT_FALSE(bad.ok());
}

// A message with known tagged fields: they round-trip, absent ones are not written,
// unknown ones are skipped, and a known field whose bytes do not match its type fails.
struct WithTags {
  int32_t plain = 0;
  int64_t epoch = -1;               // tag 1
  std::vector<int32_t> numbers;     // tag 4
  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.plain);
    s.tags(tagged(1, m.epoch != -1, [&](auto& t) { t.i64(m.epoch); }),
           tagged(4, !m.numbers.empty(), [&](auto& t) { t.array_i32(m.numbers); }));
  }
};

TEST(CodecTest, KnownTaggedFieldsRoundTripAndUnknownOnesAreSkipped) {
  WithTags m;
  m.plain = 9;
  Writer none;
  encode_message(m, none, 0, true);
  EXPECT_EQ(to_hex(std::move(none).take()), "0000000900");  // nothing tagged is written

  m.epoch = 5;
  m.numbers = {1, 2};
  Writer w;
  encode_message(m, w, 0, true);
  const auto bytes = std::move(w).take();
  EXPECT_EQ(to_hex(bytes), "00000009" "02" "0108" "0000000000000005" "0409" "03" "00000001" "00000002");

  WithTags got;
  Reader r(bytes);
  ASSERT_TRUE(decode_message(got, r, 0, true));
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(got.epoch, 5);
  EXPECT_EQ(got.numbers, (std::vector<int32_t>{1, 2}));

  // An unknown tag (2) in between is skipped; the known ones still decode.
  auto with_unknown = from_hex("00000009 03 0108 0000000000000007 0202 aabb 0405 02 0000002a");
  WithTags u;
  Reader ru(with_unknown);
  ASSERT_TRUE(decode_message(u, ru, 0, true));
  EXPECT_EQ(u.epoch, 7);
  EXPECT_EQ(u.numbers, (std::vector<int32_t>{42}));

  // Tag 1 with 3 bytes: an int64 cannot be read from them; with 9, one is left over.
  for (const char* hex : {"00000009 01 0103 aabbcc", "00000009 01 0109 000000000000000700"}) {
    auto bad = from_hex(hex);
    WithTags b;
    Reader rb(bad);
    EXPECT_FALSE(decode_message(b, rb, 0, true)) << hex;
  }
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
