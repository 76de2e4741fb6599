// Committed offsets: durable before acknowledged, -1 when never committed, simple
// (non-group) commits, expiry after offsets.retention.minutes, reload after a restart,
// OffsetDelete, DeleteGroups and deleted topics.
#include <gtest/gtest.h>

#include <chrono>

#include "coordinator/group_coordinator.h"
#include "coordinator/log.h"
#include "coordinator/meta_records.h"
#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator::test {
namespace {

using H = CoordinatorHarness;
constexpr int64_t kRetentionMs = 600000;  // offsets.retention.minutes = 10 in expiry tests

GroupError only_error(const Answer<OffsetCommitResult>& answer) {
  if (!*answer || (*answer)->topics.size() != 1 || (*answer)->topics[0].partitions.size() != 1) {
    return GroupError::kCoordinatorNotAvailable;  // "no single answer" fails any EXPECT on kNone
  }
  return (*answer)->topics[0].partitions[0].error;
}

TEST(OffsetsTest, CommittedOffsetComesBackWithMetadataAndLeaderEpoch) {
  H h;
  H::StableGroup g = h.form_group("g", 1);
  auto c = h.commit("g", g.generation, g.members[0], "t", 3, 42, "checkpoint");
  h.settle();
  ASSERT_EQ(only_error(c), GroupError::kNone);
  PartitionOffset p = h.fetch("g", "t", 3);
  EXPECT_EQ(p.error, GroupError::kNone);
  EXPECT_EQ(p.offset, 42);
  EXPECT_EQ(p.leader_epoch, 7);
  EXPECT_EQ(p.metadata, "checkpoint");
}

TEST(OffsetsTest, NeverCommittedPartitionFetchesMinusOne) {
  H h;
  H::StableGroup g = h.form_group("g", 1);
  PartitionOffset p = h.fetch("g", "t", 0);
  EXPECT_EQ(p.error, GroupError::kNone);
  EXPECT_EQ(p.offset, -1);
  EXPECT_EQ(p.leader_epoch, -1);
  EXPECT_EQ(h.fetch("no-such-group", "t", 0).offset, -1);
}

TEST(OffsetsTest, CommitIsAcknowledgedOnlyOnceDurable) {
  H h;
  auto c = h.commit("g", -1, "", "t", 0, 100);
  EXPECT_FALSE(*c) << "no answer before the MetaStore reports the write durable";
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1) << "an unacknowledged commit is not served";
  EXPECT_EQ(h.fetch("g", "t", 0, /*require_stable=*/true).error, GroupError::kUnstableOffsetCommit);
  h.meta.complete_next();
  EXPECT_FALSE(*c) << "the completion comes back through the strand";
  h.drain();
  ASSERT_TRUE(*c);
  EXPECT_EQ(only_error(c), GroupError::kNone);
  EXPECT_EQ(h.fetch("g", "t", 0, true).offset, 100);
}

TEST(OffsetsTest, FailedWriteIsReportedAndTheOldOffsetStays) {
  H h;
  h.commit("g", -1, "", "t", 0, 10);
  h.settle();
  auto c = h.commit("g", -1, "", "t", 0, 20);
  h.fail_next_write();
  ASSERT_TRUE(*c);
  EXPECT_EQ(only_error(c), GroupError::kStorageError);
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 10);
}

TEST(OffsetsTest, OversizedMetadataIsRejectedPerPartition) {
  H h;
  OffsetCommitArgs a;
  a.group_id = "g";
  a.topics.push_back({"t", {PartitionCommit{0, 1, -1, std::string(4097, 'x')}, PartitionCommit{1, 2, -1, "ok"}}});
  std::optional<OffsetCommitResult> r;
  h.coord().commit_offsets(a, [&](OffsetCommitResult res) { r = std::move(res); });
  h.settle();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->topics[0].partitions[0].error, GroupError::kOffsetMetadataTooLarge);
  EXPECT_EQ(r->topics[0].partitions[1].error, GroupError::kNone);
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1);
  EXPECT_EQ(h.fetch("g", "t", 1).offset, 2);
}

TEST(OffsetsTest, AssignOnlyConsumerCommitsWithoutJoining) {
  H h;
  auto c = h.commit("standalone", -1, "", "t", 0, 5, std::nullopt);
  h.settle();
  EXPECT_EQ(only_error(c), GroupError::kNone);
  PartitionOffset p = h.fetch("standalone", "t", 0);
  EXPECT_EQ(p.offset, 5);
  EXPECT_EQ(p.metadata, "") << "null metadata is stored as empty";
  EXPECT_EQ(h.coord().describe_group("standalone").state, "Empty");
  auto stale = h.commit("unknown", 3, "m", "t", 0, 5);
  EXPECT_EQ(only_error(stale), GroupError::kIllegalGeneration);
}

TEST(OffsetsTest, OnlyMembersCommitToAGroupWithMembers) {
  H h;
  H::StableGroup g = h.form_group("g", 1);
  auto outsider = h.commit("g", -1, "", "t", 0, 5);
  EXPECT_EQ(only_error(outsider), GroupError::kUnknownMemberId);
  auto member = h.commit("g", g.generation, g.members[0], "t", 0, 5);
  h.settle();
  EXPECT_EQ(only_error(member), GroupError::kNone);
}

TEST(OffsetsTest, CommitBetweenJoinAndSyncAsksToFinishTheRebalance) {
  H h;
  auto j = h.join(h.join_args("g"));
  h.advance(3001);
  auto c = h.commit("g", 1, (*j)->member_id, "t", 0, 5);
  EXPECT_EQ(only_error(c), GroupError::kRebalanceInProgress);
}

TEST(OffsetsTest, FetchWithoutTopicsReturnsEveryCommittedOffset) {
  H h;
  h.commit("g", -1, "", "b", 1, 11);
  h.commit("g", -1, "", "a", 0, 10);
  h.commit("g", -1, "", "b", 0, 12);
  h.settle();
  OffsetFetchArgs all;
  all.group_id = "g";
  OffsetFetchResult r = h.coord().fetch_offsets(all);
  ASSERT_EQ(r.topics.size(), 2u);
  EXPECT_EQ(r.topics[0].topic, "a");
  ASSERT_EQ(r.topics[1].partitions.size(), 2u);
  EXPECT_EQ(r.topics[1].partitions[0].partition, 0);
  EXPECT_EQ(r.topics[1].partitions[0].offset, 12);
  EXPECT_EQ(r.topics[1].partitions[1].offset, 11);
}

CoordinatorOptions short_retention() {
  CoordinatorOptions o = test_options();
  o.offsets_retention_ms = kRetentionMs;
  o.offsets_retention_check_interval_ms = 60000;
  return o;
}

TEST(OffsetsTest, SimpleGroupOffsetsExpireRetentionAfterTheirCommit) {
  H h(short_retention());
  h.commit("simple", -1, "", "t", 0, 1);
  h.settle();
  h.advance(kRetentionMs / 2);
  h.commit("simple", -1, "", "t", 1, 2);
  h.settle();
  h.advance(kRetentionMs / 2 + 60000);  // an expiry pass has run since the first commit aged out
  h.settle();
  EXPECT_EQ(h.fetch("simple", "t", 0).offset, -1);
  EXPECT_EQ(h.fetch("simple", "t", 1).offset, 2);
  h.advance(kRetentionMs / 2);
  h.settle();
  EXPECT_EQ(h.fetch("simple", "t", 1).offset, -1);
  EXPECT_EQ(h.coord().find_group("simple"), nullptr) << "an empty group without offsets is dropped";
  h.restart();
  EXPECT_EQ(h.fetch("simple", "t", 0).offset, -1) << "expiry is durable";
  EXPECT_EQ(h.fetch("simple", "t", 1).offset, -1);
}

TEST(OffsetsTest, OffsetsOfAGroupExpireRetentionAfterItBecameEmpty) {
  H h(short_retention());
  H::StableGroup g = h.form_group("g", 1);
  h.commit("g", g.generation, g.members[0], "t", 0, 9);
  h.settle();
  h.keep_alive(2 * kRetentionMs, "g", g.generation, g.members);
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 9) << "a live group's offsets stay, however old";
  h.leave("g", {{g.members[0], std::nullopt, std::nullopt}});
  h.settle();
  h.advance(kRetentionMs - 60001);
  h.settle();
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 9);
  h.advance(120001);
  h.settle();
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1);
  EXPECT_TRUE(h.coord().list_groups({}).groups.empty());
}

TEST(OffsetsTest, StableConsumerGroupKeepsOffsetsOfTopicsItSubscribesTo) {
  H h(short_retention());
  H::StableGroup g = h.form_group("g", 1, {"subscribed"});
  h.commit("g", g.generation, g.members[0], "subscribed", 0, 1);
  h.commit("g", g.generation, g.members[0], "dropped", 0, 2);
  h.settle();
  h.keep_alive(kRetentionMs + 60001, "g", g.generation, g.members);
  EXPECT_EQ(h.fetch("g", "subscribed", 0).offset, 1);
  EXPECT_EQ(h.fetch("g", "dropped", 0).offset, -1);
}

TEST(OffsetsTest, RetentionTimeOfOldCommitVersionsIsHonoured) {
  H h(short_retention());
  OffsetCommitArgs a;
  a.group_id = "g";
  a.retention_time_ms = 120000;
  a.topics.push_back({"t", {PartitionCommit{0, 1, -1, std::nullopt}}});
  h.coord().commit_offsets(a, [](OffsetCommitResult) {});
  h.settle();
  h.advance(180001);
  h.settle();
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1);
}

TEST(OffsetsTest, OffsetsAndGroupsSurviveARestart) {
  H h;
  H::StableGroup g = h.form_group("g", 2);
  h.commit("g", g.generation, g.members[0], "t", 0, 1000);
  h.commit("g", g.generation, g.members[1], "t", 1, 2000);
  h.commit("simple", -1, "", "u", 5, 55);
  h.settle();
  h.restart();
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 1000);
  EXPECT_EQ(h.fetch("g", "t", 1).offset, 2000);
  EXPECT_EQ(h.fetch("simple", "u", 5).offset, 55);
  // Members carry on as if nothing happened: same ids, same generation.
  EXPECT_EQ(h.heartbeat("g", g.generation, g.members[0]), GroupError::kNone);
  auto sync = h.sync("g", g.generation, g.members[1]);
  EXPECT_EQ((*sync)->assignment, "assignment-" + g.members[1]);
  DescribedGroup d = h.coord().describe_group("g");
  EXPECT_EQ(d.state, "Stable");
  EXPECT_EQ(d.members.size(), 2u);
  // A member that does not come back is expelled a session later.
  h.advance(5000);
  h.heartbeat("g", g.generation, g.members[0]);
  h.advance(5001);
  EXPECT_EQ(h.heartbeat("g", g.generation, g.members[0]), GroupError::kRebalanceInProgress);
}

TEST(OffsetsTest, CommitNotDurableAtACrashIsNotServedAfterRestart) {
  H h;
  h.commit("g", -1, "", "t", 0, 1);
  h.settle();
  auto lost = h.commit("g", -1, "", "t", 0, 2);
  EXPECT_FALSE(*lost);
  h.restart();  // the write never became durable
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 1);
}

TEST(OffsetsTest, DeleteGroupsRemovesEmptyGroupsWithTheirOffsets) {
  H h;
  H::StableGroup g = h.form_group("busy", 1);
  h.commit("idle", -1, "", "t", 0, 1);
  h.settle();
  std::optional<DeleteGroupsResult> r;
  h.coord().delete_groups({"busy", "idle", "ghost"}, [&](DeleteGroupsResult res) { r = std::move(res); });
  EXPECT_FALSE(r) << "answered once the deletion is durable";
  h.settle();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->groups.size(), 3u);
  EXPECT_EQ(r->groups[0].error, GroupError::kNonEmptyGroup);
  EXPECT_EQ(r->groups[1].error, GroupError::kNone);
  EXPECT_EQ(r->groups[2].error, GroupError::kGroupIdNotFound);
  EXPECT_EQ(h.fetch("idle", "t", 0).offset, -1);
  EXPECT_EQ(h.heartbeat("busy", g.generation, g.members[0]), GroupError::kNone);
  h.restart();
  EXPECT_EQ(h.fetch("idle", "t", 0).offset, -1);
  EXPECT_EQ(h.coord().find_group("idle"), nullptr);
}

TEST(OffsetsTest, OffsetDeleteSparesTopicsALiveGroupSubscribesTo) {
  H h;
  H::StableGroup g = h.form_group("g", 1, {"live"});
  h.commit("g", g.generation, g.members[0], "live", 0, 1);
  h.commit("g", g.generation, g.members[0], "old", 0, 2);
  h.settle();
  OffsetDeleteArgs a;
  a.group_id = "g";
  a.topics = {{"live", {0}}, {"old", {0}}};
  std::optional<OffsetDeleteResult> r;
  h.coord().delete_offsets(a, [&](OffsetDeleteResult res) { r = std::move(res); });
  h.settle();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error, GroupError::kNone);
  EXPECT_EQ(r->topics[0].partitions[0].error, GroupError::kGroupSubscribedToTopic);
  EXPECT_EQ(r->topics[1].partitions[0].error, GroupError::kNone);
  EXPECT_EQ(h.fetch("g", "live", 0).offset, 1);
  EXPECT_EQ(h.fetch("g", "old", 0).offset, -1);
  h.restart();
  EXPECT_EQ(h.fetch("g", "old", 0).offset, -1);
}

TEST(OffsetsTest, OffsetDeleteOfAnUnknownGroupIsNotFound) {
  H h;
  OffsetDeleteArgs a;
  a.group_id = "ghost";
  a.topics = {{"t", {0}}};
  std::optional<OffsetDeleteResult> r;
  h.coord().delete_offsets(a, [&](OffsetDeleteResult res) { r = std::move(res); });
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error, GroupError::kGroupIdNotFound);
  EXPECT_TRUE(r->topics.empty());
}

TEST(OffsetsTest, CommitInFlightWhenItsGroupIsDeletedStaysDeleted) {
  H h;
  h.commit("g", -1, "", "t", 0, 1);
  h.settle();
  auto in_flight = h.commit("g", -1, "", "t", 0, 2);
  std::optional<DeleteGroupsResult> r;
  h.coord().delete_groups({"g"}, [&](DeleteGroupsResult res) { r = std::move(res); });
  h.settle();
  ASSERT_TRUE(*in_flight && r);
  EXPECT_EQ(r->groups[0].error, GroupError::kNone);
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1);
  h.restart();
  EXPECT_EQ(h.fetch("g", "t", 0).offset, -1) << "the erase was written after the commit";
}

Answer<storage::Status> remove_topic(H& h, const std::string& topic) {
  auto done = std::make_shared<std::optional<storage::Status>>();
  h.coord().remove_topic_offsets(topic, [done](storage::Status s) { *done = std::move(s); });
  return done;
}

TEST(OffsetsTest, DeletedTopicLeavesNoOffsetInAnyGroup) {
  H h;
  H::StableGroup g = h.form_group("live", 1, {"doomed", "kept"});
  h.commit("live", g.generation, g.members[0], "doomed", 0, 10);
  h.commit("live", g.generation, g.members[0], "kept", 0, 11);
  h.commit("simple", -1, "", "doomed", 3, 12);
  h.settle();
  auto done = remove_topic(h, "doomed");
  EXPECT_FALSE(*done) << "answered once the removal is durable";
  EXPECT_EQ(h.fetch("live", "doomed", 0).offset, -1) << "gone from memory at once";
  h.settle();
  ASSERT_TRUE(*done);
  EXPECT_TRUE((*done)->ok());
  EXPECT_EQ(h.fetch("simple", "doomed", 3).offset, -1);
  EXPECT_EQ(h.fetch("live", "kept", 0).offset, 11);
  // The simple group had nothing else: it is gone. The live group carries on.
  EXPECT_EQ(h.coord().find_group("simple"), nullptr);
  EXPECT_EQ(h.heartbeat("live", g.generation, g.members[0]), GroupError::kNone);
  h.restart();
  EXPECT_EQ(h.fetch("live", "doomed", 0).offset, -1);
  EXPECT_EQ(h.fetch("simple", "doomed", 3).offset, -1);
  EXPECT_EQ(h.fetch("live", "kept", 0).offset, 11);
}

TEST(OffsetsTest, CommitInFlightWhenItsTopicIsDeletedStaysDeleted) {
  H h;
  auto in_flight = h.commit("g", -1, "", "doomed", 0, 2);
  auto done = remove_topic(h, "doomed");
  EXPECT_FALSE(*done) << "the in-flight commit's record must be erased behind it";
  h.settle();
  ASSERT_TRUE(*in_flight && *done);
  EXPECT_EQ(h.fetch("g", "doomed", 0).offset, -1);
  h.restart();
  EXPECT_EQ(h.fetch("g", "doomed", 0).offset, -1);
}

TEST(OffsetsTest, TopicDeletedWhileLoadingIsPurgedFromTheLoadedOffsets) {
  H h(test_options(), /*load=*/false);
  h.meta.put(encode_offset_key("g", {"doomed", 0}), encode_offset_value(CommittedOffset{5, -1, "", 0, -1}));
  h.meta.put(encode_offset_key("g", {"kept", 0}), encode_offset_value(CommittedOffset{6, -1, "", 0, -1}));
  auto done = remove_topic(h, "doomed");
  ASSERT_TRUE(*done) << "nothing to wait for before the offsets are loaded";
  h.coord().install(load_coordinator_state(h.meta));
  EXPECT_EQ(h.fetch("g", "doomed", 0).offset, -1);
  EXPECT_EQ(h.fetch("g", "kept", 0).offset, 6);
  h.settle();
  h.restart();
  EXPECT_EQ(h.fetch("g", "doomed", 0).offset, -1);
  EXPECT_EQ(h.fetch("g", "kept", 0).offset, 6);
}

// A crash between a topic's deletion and its offsets' removal leaves offsets of a topic
// that no longer exists: they go at the next load, durably.
TEST(OffsetsTest, OffsetsOfTopicsThatNoLongerExistAreRemovedAtLoad) {
  H h(test_options(), /*load=*/false);
  h.meta.put(encode_offset_key("g", {"gone", 0}), encode_offset_value(CommittedOffset{5, -1, "", 0, -1}));
  h.meta.put(encode_offset_key("g", {"kept", 0}), encode_offset_value(CommittedOffset{6, -1, "", 0, -1}));
  h.meta.put(encode_offset_key("only-gone", {"gone", 1}), encode_offset_value(CommittedOffset{7, -1, "", 0, -1}));
  h.coord().set_topic_exists([](const std::string& topic) { return topic == "kept"; });
  h.coord().install(load_coordinator_state(h.meta));
  EXPECT_EQ(h.fetch("g", "gone", 0).offset, -1);
  EXPECT_EQ(h.fetch("only-gone", "gone", 1).offset, -1);
  EXPECT_EQ(h.fetch("g", "kept", 0).offset, 6);
  EXPECT_EQ(h.coord().find_group("only-gone"), nullptr) << "a group left with no offsets goes too";
  h.settle();
  h.restart();  // no topic filter now: only what was erased durably is gone
  EXPECT_EQ(h.fetch("g", "gone", 0).offset, -1);
  EXPECT_EQ(h.fetch("only-gone", "gone", 1).offset, -1);
  EXPECT_EQ(h.fetch("g", "kept", 0).offset, 6);
}

TEST(OffsetsTest, UndecodableRecordsAreSkippedAtLoad) {
  H h;
  h.commit("g", -1, "", "t", 0, 1);
  h.settle();
  h.meta.put(std::string(kOffsetKeyPrefix) + "garbage", "x");
  h.meta.put(encode_offset_key("g", {"t", 1}), "\x07short");
  h.meta.put(encode_group_key("h"), std::string(3, '\xff'));
  LoadedState state = load_coordinator_state(h.meta);
  EXPECT_EQ(state.skipped_records, 3u);
  EXPECT_EQ(state.offsets.size(), 1u);
  h.restart();
  EXPECT_EQ(h.fetch("g", "t", 0).offset, 1);
}

TEST(OffsetsTest, HundredThousandOffsetsLoadBack) {
  H h;
  constexpr int kGroups = 100;
  constexpr int kPartitionsPerGroup = 1000;
  for (int g = 0; g < kGroups; ++g) {
    for (int p = 0; p < kPartitionsPerGroup; ++p) {
      const CommittedOffset c{int64_t{g} * 1'000'000 + p, 3, "m", 1, -1};
      h.meta.put(encode_offset_key("group-" + std::to_string(g), {"topic-" + std::to_string(p % 10), p}),
                 encode_offset_value(c));
    }
  }
  const auto started = std::chrono::steady_clock::now();
  h.restart();
  const auto elapsed = std::chrono::steady_clock::now() - started;
  // Measured, not asserted: the number shows in the test log.
  log().warn("loaded offsets for the record: offsets={} load_and_install_ms={}", h.coord().offsets().size(),
             std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count());
  EXPECT_EQ(h.coord().offsets().size(), 100'000u);
  EXPECT_EQ(h.coord().group_count(), static_cast<size_t>(kGroups));
  EXPECT_EQ(h.fetch("group-42", "topic-7", 517).offset, 42'000'517);
  EXPECT_EQ(h.fetch("group-99", "topic-9", 999).offset, 99'000'999);
}

}  // namespace
}  // namespace rokka::coordinator::test
