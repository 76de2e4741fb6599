#include "protocol/record.h"

#include <gtest/gtest.h>

#include "tests/testutil/hex.h"
#include "tests/testutil/record_batch_builder.h"

namespace rokka::protocol {
namespace {

using testutil::from_hex;
using testutil::RecordBatchBuilder;

int count_records(Bytes section, int32_t count, bool* ok) {
  RecordReader reader(section, count);
  Record r;
  int n = 0;
  while (reader.next(r)) ++n;
  *ok = reader.ok();
  return n;
}

TEST(RecordTest, ReadsKnownBytes) {
  // length 12: attributes 0, ts delta 5 (zig-zag 0a), offset delta 0, key "ab",
  // value null (01 = -1), one header "h" -> "z".
  const auto section = from_hex("18 00 0a 00 04 6162 01 02 02 68 02 7a");
  RecordReader reader(section, 1);
  Record r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.timestamp_delta, 5);
  EXPECT_EQ(r.offset_delta, 0);
  ASSERT_TRUE(r.key.has_value());
  EXPECT_EQ(as_string_view(*r.key), "ab");
  EXPECT_FALSE(r.value.has_value());
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].key, "h");
  EXPECT_EQ(as_string_view(*r.headers[0].value), "z");
  EXPECT_FALSE(reader.next(r));
  EXPECT_TRUE(reader.ok());
}

TEST(RecordTest, EveryTruncatedSectionFails) {
  const auto section = RecordBatchBuilder().add("key", "value").add(testutil::TestRecord{"k", std::nullopt, {{"h", "v"}}, 2}).records_section();
  bool ok = false;
  ASSERT_EQ(count_records(section, 2, &ok), 2);
  ASSERT_TRUE(ok);
  for (size_t n = 0; n < section.size(); ++n) {
    count_records(Bytes(section).first(n), 2, &ok);
    EXPECT_FALSE(ok) << n;
  }
}

TEST(RecordTest, CountAndSectionMustAgree) {
  const auto section = RecordBatchBuilder().add("a", "b").add("c", "d").records_section();
  bool ok = true;
  EXPECT_EQ(count_records(section, 1, &ok), 1);  // a record left over
  EXPECT_FALSE(ok);
  count_records(section, 3, &ok);  // one missing
  EXPECT_FALSE(ok);
  count_records(section, -1, &ok);
  EXPECT_FALSE(ok);
  count_records(section, INT32_MAX, &ok);  // refused up front: 7 bytes per record at least
  EXPECT_FALSE(ok);
}

TEST(RecordTest, HostileLengthsInsideARecordFail) {
  bool ok = true;
  // Record length beyond the section.
  count_records(from_hex("7e 00 00 00 01 01 00"), 1, &ok);
  EXPECT_FALSE(ok);
  // Key length 1,000,000 inside a 7-byte record.
  count_records(from_hex("10 00 00 00 80897a 01 00"), 1, &ok);
  EXPECT_FALSE(ok);
  // Key length -2.
  count_records(from_hex("0c 00 00 00 03 01 00"), 1, &ok);
  EXPECT_FALSE(ok);
  // 2^30 headers announced in a tiny record.
  count_records(from_hex("14 00 00 00 01 01 80808008 00"), 1, &ok);
  EXPECT_FALSE(ok);
  // A null header key.
  count_records(from_hex("12 00 00 00 01 01 02 01 01"), 1, &ok);
  EXPECT_FALSE(ok);
  // A record whose body is longer than its fields (trailing byte inside the record).
  count_records(from_hex("10 00 00 00 01 01 00 ff"), 1, &ok);
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace rokka::protocol
