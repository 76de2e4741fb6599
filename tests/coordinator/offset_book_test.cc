// OffsetBook on its own: OffsetCommit's own checks, OffsetFetch, OffsetDelete, expiry by
// the retention a group's kind gives, and transactional staging -- with a FakeMetaStore
// whose writes complete when the test says and a queue standing in for the strand.
#include "coordinator/offset_book.h"

#include <gtest/gtest.h>

#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator::test {
namespace {

class OffsetBookTest : public ::testing::Test {
 protected:
  OffsetBookTest() { options_.offset_metadata_max_bytes = 4; }

  OffsetCommitArgs commit_args(const std::string& group, std::vector<TopicCommit> topics) {
    OffsetCommitArgs a;
    a.group_id = group;
    a.topics = std::move(topics);
    return a;
  }
  Answer<OffsetCommitResult> commit(const OffsetCommitArgs& args, int64_t now_ms) {
    auto answer = std::make_shared<std::optional<OffsetCommitResult>>();
    book_.commit(args, now_ms, [answer](OffsetCommitResult r) { *answer = std::move(r); });
    return answer;
  }
  void commit_durably(const std::string& group, const std::string& topic, int32_t partition, int64_t offset,
                      int64_t now_ms, int64_t retention_time_ms = -1) {
    OffsetCommitArgs a = commit_args(group, {{topic, {PartitionCommit{partition, offset, -1, ""}}}});
    a.retention_time_ms = retention_time_ms;
    auto done = commit(a, now_ms);
    settle();
    ASSERT_TRUE(*done);
  }
  PartitionOffset fetch(const std::string& group, const std::string& topic, int32_t partition,
                        bool require_stable = false) const {
    OffsetFetchArgs a;
    a.group_id = group;
    a.topics = std::vector<TopicPartitions>{{topic, {partition}}};
    a.require_stable = require_stable;
    return book_.fetch(a).topics.at(0).partitions.at(0);
  }
  void settle() { strand_.settle(); }
  void fail_next_write() { strand_.fail_next_write(); }

  CoordinatorOptions options_ = test_options();
  FakeStrand strand_;
  DurableWriter writer_{strand_.meta, strand_.post()};
  OffsetBook book_{options_, writer_};
};

TEST_F(OffsetBookTest, MetadataOverTheLimitFailsItsPartitionAndStoresTheOthers) {
  auto done =
      commit(commit_args("g", {{"t", {PartitionCommit{0, 10, 3, "ok"}, PartitionCommit{1, 11, 3, "too long"}}}}), 1000);
  EXPECT_FALSE(*done) << "answered once durable";
  settle();
  ASSERT_TRUE(*done);
  ASSERT_EQ((*done)->topics.at(0).partitions.size(), 2u);
  EXPECT_EQ((*done)->topics[0].partitions[0].error, GroupError::kNone);
  EXPECT_EQ((*done)->topics[0].partitions[1].error, GroupError::kOffsetMetadataTooLarge);
  EXPECT_EQ(fetch("g", "t", 0).offset, 10);
  EXPECT_EQ(fetch("g", "t", 0).leader_epoch, 3);
  EXPECT_EQ(fetch("g", "t", 1).offset, -1);
  EXPECT_EQ(book_.size(), 1u);
}

TEST_F(OffsetBookTest, AFailedWriteFailsThePartitionsItCarriedAndServesNothing) {
  auto done =
      commit(commit_args("g", {{"t", {PartitionCommit{0, 10, -1, ""}, PartitionCommit{1, 11, -1, "too long"}}}}), 1000);
  EXPECT_EQ(fetch("g", "t", 0, /*require_stable=*/true).error, GroupError::kUnstableOffsetCommit);
  fail_next_write();
  ASSERT_TRUE(*done);
  EXPECT_EQ((*done)->topics[0].partitions[0].error, GroupError::kStorageError);
  EXPECT_EQ((*done)->topics[0].partitions[1].error, GroupError::kOffsetMetadataTooLarge) << "its own error stays";
  EXPECT_EQ(fetch("g", "t", 0, true).offset, -1);
  EXPECT_EQ(fetch("g", "t", 0, true).error, GroupError::kNone);
  EXPECT_FALSE(book_.holds("g"));
}

TEST_F(OffsetBookTest, StagedOffsetsAreUnstableUntilEveryStageIsReleased) {
  commit_durably("g", "t", 0, 5, 1000);
  const std::vector<TopicPartition> staged{{"t", 0}};
  book_.stage_txn("g", staged);
  book_.stage_txn("g", staged);
  EXPECT_EQ(fetch("g", "t", 0, true).error, GroupError::kUnstableOffsetCommit);
  EXPECT_EQ(fetch("g", "t", 0, false).offset, 5) << "without require_stable the committed offset is served";
  book_.release_txn("g", staged);
  EXPECT_EQ(fetch("g", "t", 0, true).error, GroupError::kUnstableOffsetCommit) << "one stage is still open";
  book_.release_txn("g", staged);
  EXPECT_EQ(fetch("g", "t", 0, true).offset, 5);
  bool stored = false;
  book_.commit_txn("g", {{{"t", 0}, CommittedOffset{9, -1, "", 2000, -1}}},
                   [&](storage::Status s) { stored = s.ok(); });
  EXPECT_EQ(fetch("g", "t", 0).offset, 5) << "not served before durable";
  settle();
  EXPECT_TRUE(stored);
  EXPECT_EQ(fetch("g", "t", 0).offset, 9);
}

TEST_F(OffsetBookTest, ExpiryFollowsTheRetentionTheGroupsKindGives) {
  const int64_t retention = options_.offsets_retention_ms;
  commit_durably("g", "old", 0, 1, 0);
  commit_durably("g", "kept", 0, 2, 0);
  commit_durably("g", "own-time", 0, 3, 0, /*retention_time_ms=*/10);
  OffsetBook::Mutations out;
  EXPECT_EQ(book_.expire("g", OffsetRetention{}, retention * 10, out), 0u) << "kNever keeps even a commit's own time";
  OffsetRetention since_empty{OffsetRetention::Since::kEmpty, /*empty_since_ms=*/retention, nullptr};
  EXPECT_EQ(book_.expire("g", since_empty, retention * 2 - 1, out), 1u) << "only the commit past its own time";
  EXPECT_EQ(fetch("g", "own-time", 0).offset, -1);
  OffsetRetention since_commit{OffsetRetention::Since::kCommit, -1,
                               [](const std::string& topic) { return topic == "kept"; }};
  EXPECT_EQ(book_.expire("g", since_commit, retention, out), 1u);
  EXPECT_EQ(fetch("g", "old", 0).offset, -1);
  EXPECT_EQ(fetch("g", "kept", 0).offset, 2) << "a topic in use never expires";
  EXPECT_EQ(out.size(), 2u) << "one erase per expired offset, for the caller to write";
  EXPECT_TRUE(book_.holds("g"));
}

TEST_F(OffsetBookTest, OffsetDeleteKeepsTopicsInUseAndAFailedWriteSaysSo) {
  commit_durably("g", "a", 0, 1, 0);
  commit_durably("g", "b", 0, 2, 0);
  OffsetBook::Mutations batch;
  std::vector<TopicErrors> topics = book_.remove("g", {{"a", {0}}, {"b", {0}}},
                                                 [](const std::string& topic) { return topic == "b"; }, batch);
  ASSERT_EQ(topics.size(), 2u);
  EXPECT_EQ(topics[0].partitions[0].error, GroupError::kNone);
  EXPECT_EQ(topics[1].partitions[0].error, GroupError::kGroupSubscribedToTopic);
  EXPECT_EQ(fetch("g", "a", 0).offset, -1) << "gone from memory at once";
  EXPECT_EQ(fetch("g", "b", 0).offset, 2);
  std::optional<std::vector<TopicErrors>> answer;
  book_.store_removals(std::move(batch), std::move(topics), [&](std::vector<TopicErrors> t) { answer = std::move(t); });
  EXPECT_FALSE(answer);
  fail_next_write();
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)[0].partitions[0].error, GroupError::kStorageError);
  EXPECT_EQ((*answer)[1].partitions[0].error, GroupError::kGroupSubscribedToTopic);
}

}  // namespace
}  // namespace rokka::coordinator::test
