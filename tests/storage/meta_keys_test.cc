// The MetaStore key prefix registry (storage/meta_keys.h) through a real MetaJournal:
// each owner's scan sees its own keys and nobody else's, the pairs that share a first
// letter ("g/" and "gc/") included, and the table itself is well formed.
#include "storage/meta_keys.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "storage/meta_journal.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::storage {
namespace {

TEST(MetaKeysTest, EveryPrefixIsDistinctAndEndsWithASlash) {
  std::set<std::string_view> seen;
  for (const std::string_view p : meta_prefix::kAll) {
    EXPECT_TRUE(seen.insert(p).second) << p;
    ASSERT_FALSE(p.empty());
    EXPECT_EQ(p.back(), '/') << p;
  }
  EXPECT_TRUE(meta_prefix::disjoint());
}

TEST(MetaKeysTest, EachOwnersScanSeesOnlyItsOwnKeys) {
  testutil::TempDir dir;
  auto journal = MetaJournal::open(FileSystem::real(), dir.path() / "meta");
  ASSERT_TRUE(journal.ok()) << journal.status().to_string();
  // One key per owner: "g/key" and "gc/key" among them, which a scan of "g" (no slash)
  // would both return.
  std::vector<MetaStore::Mutation> batch;
  for (const std::string_view p : meta_prefix::kAll) batch.push_back({std::string(p) + "key", "v"});
  ASSERT_TRUE((*journal)->append(batch).ok());
  for (const std::string_view p : meta_prefix::kAll) {
    const auto found = (*journal)->scan(p);
    ASSERT_EQ(found.size(), 1u) << p;
    EXPECT_EQ(found[0].first, std::string(p) + "key");
  }
}

}  // namespace
}  // namespace rokka::storage
