// The store's own MetaStore records (storage/partition_records.h): the durable
// partition table, written by the writer and read back by recovery.
#include "storage/partition_records.h"

#include <gtest/gtest.h>

namespace rokka::storage::partition_records {
namespace {

TEST(PartitionRecordsTest, APartitionRecordRoundTrips) {
  const auto m = put_partition(4'000'000'000u, 1234567890123);
  EXPECT_FALSE(m.erase);
  const auto r = parse_partition(m.key, m.value);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->id, 4'000'000'000u);
  EXPECT_EQ(r->floor, 1234567890123);
}

TEST(PartitionRecordsTest, KeysSortByPartitionId) {
  EXPECT_EQ(put_partition(7, 0).key, "s/p/0000000007");
  EXPECT_LT(put_partition(9, 0).key, put_partition(10, 0).key);  // a scan yields ids in order
}

TEST(PartitionRecordsTest, EraseNamesTheSameKey) {
  const auto m = erase_partition(12);
  EXPECT_TRUE(m.erase);
  EXPECT_EQ(m.key, put_partition(12, 0).key);
}

TEST(PartitionRecordsTest, MalformedRecordsAreRejected) {
  EXPECT_FALSE(parse_partition("s/p/12x", std::string(8, '\0')).has_value());
  EXPECT_FALSE(parse_partition("s/p/", std::string(8, '\0')).has_value());
  EXPECT_FALSE(parse_partition("s/p/99999999999", std::string(8, '\0')).has_value());  // beyond uint32
  EXPECT_FALSE(parse_partition("s/p/1", "short").has_value());
  EXPECT_FALSE(parse_partition("t/p/1", std::string(8, '\0')).has_value());
}

TEST(PartitionRecordsTest, TheNextIdIsDecimal) {
  const auto m = put_next_id(42);
  EXPECT_EQ(m.key, kNextIdKey);
  EXPECT_EQ(parse_next_id(m.value), 42u);
  EXPECT_FALSE(parse_next_id("4x").has_value());
  EXPECT_FALSE(parse_next_id("").has_value());
}

}  // namespace
}  // namespace rokka::storage::partition_records
