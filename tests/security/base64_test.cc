#include "security/base64.h"

#include <gtest/gtest.h>

namespace rokka::security {
namespace {

TEST(Base64Test, EncodesRfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64url_encode("fo"), "Zm8");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64_encode("\xfb\xff"), "+/8=");
}

TEST(Base64Test, DecodesOnlyTheCanonicalPaddedForm) {
  EXPECT_EQ(base64_decode("Zm9vYg==", 100), "foob");
  EXPECT_EQ(base64_decode("Zm9vYmE=", 100), "fooba");
  EXPECT_EQ(base64_decode("", 100), "");
  EXPECT_FALSE(base64_decode("Zm9vYg", 100));     // padding missing
  EXPECT_FALSE(base64_decode("Zm9v\nYmFy", 100));  // whitespace
  EXPECT_FALSE(base64_decode("Zm=vYmFy", 100));    // '=' inside
  EXPECT_FALSE(base64_decode("Z===", 100));
  EXPECT_FALSE(base64_decode("-_8=", 100));        // the url alphabet
}

TEST(Base64Test, UrlDecodingRefusesPaddingAndTheStandardAlphabet) {
  EXPECT_EQ(base64url_decode("-_8", 100), "\xfb\xff");
  EXPECT_FALSE(base64url_decode("+/8", 100));
  EXPECT_FALSE(base64url_decode("Zm8=", 100));
  EXPECT_FALSE(base64url_decode("Zm9vY", 100));  // 5 symbols: a dangling 6 bits
}

TEST(Base64Test, RefusesInputThatDecodesPastTheBound) {
  EXPECT_EQ(base64_decode("Zm9vYmFy", 6), "foobar");
  EXPECT_FALSE(base64_decode("Zm9vYmFy", 5));
  EXPECT_FALSE(base64url_decode("Zm9vYmE", 4));
  EXPECT_EQ(base64url_decode("Zm9vYmE", 5), "fooba");
}

}  // namespace
}  // namespace rokka::security
