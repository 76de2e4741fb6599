// coordinator/byte_codec.h, the MetaStore records' codec: each primitive's bytes, and a
// reader that refuses truncated input, negative lengths and counts the input cannot hold.
#include "coordinator/byte_codec.h"

#include <gtest/gtest.h>

#include <string>

namespace rokka::coordinator {
namespace {

using namespace std::literals;

TEST(ByteCodecTest, EachPrimitiveIsBigEndian) {
  ByteWriter w;
  w.i8(-2);
  w.i16(0x0102);
  w.i32(-1);
  w.f64(1.0);
  w.str("ab");
  w.str16("cd");
  w.nullable_str16(std::nullopt);
  EXPECT_EQ(std::move(w).take(), "\xfe\x01\x02\xff\xff\xff\xff\x3f\xf0\0\0\0\0\0\0\0\0\0\x02" "ab\0\x02" "cd\xff\xff"s);

  ByteReader r("\xfe\x01\x02\xff\xff\xff\xff\x3f\xf0\0\0\0\0\0\0\0\0\0\x02" "ab\0\x02" "cd\xff\xff"sv);
  EXPECT_EQ(r.i8(), -2);
  EXPECT_EQ(r.i16(), 0x0102);
  EXPECT_EQ(r.i32(), -1);
  EXPECT_EQ(r.f64(), 1.0);
  EXPECT_EQ(r.str(), "ab");
  EXPECT_EQ(r.str16(), "cd");
  EXPECT_EQ(r.nullable_str16(), std::nullopt);
  EXPECT_TRUE(r.at_end());
}

TEST(ByteCodecTest, Str16RefusesNullNegativeAndTruncatedLengths) {
  ByteReader null_name("\xff\xff"sv);
  EXPECT_EQ(null_name.str16(), "");
  EXPECT_FALSE(null_name.ok());

  ByteReader null_ok("\xff\xff"sv);
  EXPECT_EQ(null_ok.nullable_str16(), std::nullopt);
  EXPECT_TRUE(null_ok.at_end());

  ByteReader negative("\xff\xfe" "abc"sv);  // -2
  EXPECT_EQ(negative.nullable_str16(), std::nullopt);
  EXPECT_FALSE(negative.ok());

  ByteReader truncated("\0\x05" "abc"sv);
  EXPECT_EQ(truncated.str16(), "");
  EXPECT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.i32(), 0);  // sticky: every later read is zero
  EXPECT_FALSE(truncated.at_end());
}

TEST(ByteCodecTest, CountRefusesWhatTheBytesCannotHold) {
  ByteReader fits("\0\0\0\x02" "abcd"sv);
  EXPECT_EQ(fits.count(2), 2u);
  EXPECT_TRUE(fits.ok());

  ByteReader too_many("\0\0\0\x03" "abcd"sv);  // three items of two bytes in four
  EXPECT_EQ(too_many.count(2), std::nullopt);
  EXPECT_FALSE(too_many.ok());

  ByteReader negative("\xff\xff\xff\xff" "abcd"sv);  // int32 -1
  EXPECT_EQ(negative.count(1), std::nullopt);
  EXPECT_FALSE(negative.ok());

  ByteReader huge("\x7f\xff\xff\xff"sv);
  EXPECT_EQ(huge.count(1), std::nullopt);

  ByteReader short_count("\0\0"sv);
  EXPECT_EQ(short_count.count(1), std::nullopt);
  EXPECT_FALSE(short_count.ok());
}

}  // namespace
}  // namespace rokka::coordinator
