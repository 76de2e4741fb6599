// The transaction coordinator's state machine (Kafka's TransactionCoordinator rules),
// driven with a ManualClock, a FakeMetaStore and hand-completed markers.
#include <gtest/gtest.h>

#include "coordinator/txn_records.h"
#include "tests/coordinator/txn_harness.h"

namespace rokka::coordinator::test {
namespace {

constexpr int16_t kMaxEpoch = 32767;

TEST(TxnInitTest, NewIdGetsAProducerIdAtEpochZeroAndEachInitBumpsTheEpoch) {
  TxnHarness h;
  auto first = h.init("app");
  EXPECT_FALSE(first->has_value()) << "answered before the record is durable";
  h.settle();
  ASSERT_EQ((*first)->error, TxnError::kNone);
  EXPECT_EQ((*first)->producer_id, 1000);
  EXPECT_EQ((*first)->producer_epoch, 0);
  auto second = h.init("app");
  h.settle();
  EXPECT_EQ((*second)->producer_id, 1000);
  EXPECT_EQ((*second)->producer_epoch, 1);
  h.restart();  // durable: the id keeps its producer id
  auto third = h.init("app");
  h.settle();
  EXPECT_EQ((*third)->producer_id, 1000);
  EXPECT_EQ((*third)->producer_epoch, 2);
}

TEST(TxnInitTest, EmptyIdAndTimeoutsOutsideTheLimitAreRefused) {
  TxnHarness h;
  auto empty = h.init("");
  auto zero = h.init("a", -1, -1, 0);
  auto too_long = h.init("a", -1, -1, txn_test_options().max_timeout_ms + 1);
  EXPECT_EQ((*empty)->error, TxnError::kInvalidRequest);
  EXPECT_EQ((*zero)->error, TxnError::kInvalidTransactionTimeout);
  EXPECT_EQ((*too_long)->error, TxnError::kInvalidTransactionTimeout);
  EXPECT_EQ(h.txn().size(), 0u);
}

TEST(TxnInitTest, AFailedWriteAnswersAStorageErrorAndChangesNothing) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  auto again = h.init("app");
  h.meta().fail_next();
  h.settle();
  EXPECT_EQ((*again)->error, TxnError::kStorageError);
  EXPECT_EQ(h.txn().find("app")->producer_epoch, p.producer_epoch);
  EXPECT_EQ(h.settled(h.add_partitions(p, {tp("t", 0)})), TxnError::kNone);  // still usable
}

TEST(TxnInitTest, Kip360RetryOfASuccessfulBumpGetsTheSameEpochAndAStaleOneIsFenced) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");  // epoch 0
  auto bumped = h.init("app", p.producer_id, p.producer_epoch);
  h.settle();
  ASSERT_EQ((*bumped)->error, TxnError::kNone);
  EXPECT_EQ((*bumped)->producer_epoch, 1);
  auto retried = h.init("app", p.producer_id, p.producer_epoch);  // the response was lost
  h.settle();
  EXPECT_EQ((*retried)->error, TxnError::kNone);
  EXPECT_EQ((*retried)->producer_epoch, 1);
  auto other = h.init("app");  // a new instance: epoch 2
  h.settle();
  auto stale = h.init("app", p.producer_id, p.producer_epoch);
  auto wrong_id = h.init("app", 777, 2);
  EXPECT_EQ((*stale)->error, TxnError::kProducerFenced);
  EXPECT_EQ((*wrong_id)->error, TxnError::kProducerFenced);
}

TEST(TxnInitTest, AnExhaustedEpochRotatesTheProducerId) {
  TxnHarness h;
  TxnMetadata m;
  m.transactional_id = "app";
  m.producer_id = 5;
  m.producer_epoch = kMaxEpoch - 1;
  m.timeout_ms = 1000;
  m.state = TxnState::kCompleteCommit;
  h.meta().put(encode_txn_key("app"), encode_txn_value(m));
  h.restart();
  auto rotated = h.init("app", 5, kMaxEpoch - 1);
  h.settle();
  ASSERT_EQ((*rotated)->error, TxnError::kNone);
  EXPECT_EQ((*rotated)->producer_id, 1000);
  EXPECT_EQ((*rotated)->producer_epoch, 0);
  EXPECT_EQ(h.txn().find("app")->last_producer_id, 5);
  // A retry naming the old id with its exhausted epoch is not fenced.
  auto retried = h.init("app", 5, kMaxEpoch - 1);
  h.settle();
  EXPECT_EQ((*retried)->error, TxnError::kNone);
  EXPECT_EQ((*retried)->producer_id, 1000);
}

TEST(TxnFlowTest, CommitWritesCommitMarkersToEveryPartitionThenAnswers) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  ASSERT_EQ(h.settled(h.add_partitions(p, {tp("t", 0), tp("t", 1)})), TxnError::kNone);
  ASSERT_EQ(h.settled(h.add_partitions(p, {tp("u", 0)})), TxnError::kNone);
  EXPECT_EQ(h.state("app"), TxnState::kOngoing);
  EXPECT_EQ(h.txn().check_produce(p, {tp("t", 1), tp("u", 0)}), TxnError::kNone);
  EXPECT_EQ(h.txn().check_produce(p, {tp("t", 2)}), TxnError::kInvalidTxnState);

  h.hold_markers = true;
  auto ended = h.end(p, true);
  h.settle();
  EXPECT_FALSE(ended->has_value()) << "answered before the markers are written";
  EXPECT_EQ(h.state("app"), TxnState::kPrepareCommit);
  ASSERT_EQ(h.markers_in_flight(), 1u);
  h.complete_markers(storage::Status());
  h.settle();
  ASSERT_TRUE(ended->has_value());
  EXPECT_EQ(**ended, TxnError::kNone);
  EXPECT_EQ(h.state("app"), TxnState::kCompleteCommit);
  ASSERT_EQ(h.markers.size(), 1u);
  EXPECT_TRUE(h.markers[0].commit);
  EXPECT_EQ(h.markers[0].producer_id, p.producer_id);
  EXPECT_EQ(h.markers[0].producer_epoch, p.producer_epoch);
  EXPECT_EQ(h.markers[0].partitions, (std::vector<TopicPartition>{tp("t", 0), tp("t", 1), tp("u", 0)}));
  EXPECT_TRUE(h.txn().find("app")->partitions.empty());
  // Produce between transactions is refused; a retried EndTxn(commit) is fine.
  EXPECT_EQ(h.txn().check_produce(p, {tp("t", 0)}), TxnError::kInvalidTxnState);
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kNone);
  EXPECT_EQ(h.settled(h.end(p, false)), TxnError::kInvalidTxnState);
}

TEST(TxnFlowTest, AbortWritesAbortMarkersAndTheNextTransactionStartsClean) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_partitions(p, {tp("t", 0)}));
  EXPECT_EQ(h.settled(h.end(p, false)), TxnError::kNone);
  EXPECT_EQ(h.state("app"), TxnState::kCompleteAbort);
  ASSERT_EQ(h.markers.size(), 1u);
  EXPECT_FALSE(h.markers[0].commit);
  EXPECT_EQ(h.settled(h.add_partitions(p, {tp("t", 3)})), TxnError::kNone);
  EXPECT_EQ(h.txn().find("app")->partitions, (TopicPartitionSet{tp("t", 3)}));
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kNone);
  EXPECT_EQ(h.markers.back().partitions, (std::vector<TopicPartition>{tp("t", 3)}));
}

TEST(TxnFlowTest, EndTxnWithNothingAddedIsAnInvalidState) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kInvalidTxnState);
  EXPECT_EQ(h.settled(h.end(p, false)), TxnError::kInvalidTxnState);
}

TEST(TxnFlowTest, RequestsNamingAnotherProducerAreRefused) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  const ProducerRef unknown{"nope", p.producer_id, p.producer_epoch};
  const ProducerRef other_id{"app", p.producer_id + 1, p.producer_epoch};
  const ProducerRef old_epoch{"app", p.producer_id, static_cast<int16_t>(p.producer_epoch - 1)};
  EXPECT_EQ(h.settled(h.add_partitions(unknown, {tp("t", 0)})), TxnError::kInvalidProducerIdMapping);
  EXPECT_EQ(h.settled(h.add_partitions(other_id, {tp("t", 0)})), TxnError::kInvalidProducerIdMapping);
  EXPECT_EQ(h.settled(h.add_partitions(old_epoch, {tp("t", 0)})), TxnError::kProducerFenced);
  EXPECT_EQ(h.settled(h.add_offsets(old_epoch, "g")), TxnError::kProducerFenced);
  EXPECT_EQ(h.settled(h.end(old_epoch, true)), TxnError::kProducerFenced);
  EXPECT_EQ(h.settled(h.add_partitions(ProducerRef{"", 1, 0}, {tp("t", 0)})), TxnError::kInvalidRequest);
  EXPECT_EQ(h.txn().check_produce(old_epoch, {tp("t", 0)}), TxnError::kProducerFenced);
  EXPECT_EQ(h.txn().check_produce(unknown, {tp("t", 0)}), TxnError::kInvalidProducerIdMapping);
}

TEST(TxnFlowTest, AnyRequestWhileATransitionIsBeingWrittenGetsConcurrentTransactions) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  auto adding = h.add_partitions(p, {tp("t", 0)});  // not durable yet
  auto ending = h.end(p, true);
  auto init = h.init("app");
  EXPECT_EQ(**ending, TxnError::kConcurrentTransactions);
  EXPECT_EQ((*init)->error, TxnError::kConcurrentTransactions);
  EXPECT_EQ(h.settled(adding), TxnError::kNone);
  h.hold_markers = true;
  auto committing = h.end(p, true);
  h.settle();
  EXPECT_EQ(h.settled(h.add_partitions(p, {tp("t", 1)})), TxnError::kConcurrentTransactions);
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kConcurrentTransactions);
  h.hold_markers = false;
  EXPECT_EQ(h.settled(committing), TxnError::kNone);
}

TEST(TxnFencingTest, TimeoutAbortsWithABumpedEpochThatFencesTheOldProducer) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_partitions(p, {tp("t", 0)}));
  h.advance(TxnHarness::kTimeoutMs - 1);
  h.settle();
  EXPECT_EQ(h.state("app"), TxnState::kOngoing);
  h.advance(1);
  h.settle();
  EXPECT_EQ(h.state("app"), TxnState::kCompleteAbort);
  ASSERT_EQ(h.markers.size(), 1u);
  EXPECT_FALSE(h.markers[0].commit);
  EXPECT_EQ(h.markers[0].producer_epoch, p.producer_epoch + 1);
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kProducerFenced);
  EXPECT_EQ(h.settled(h.add_partitions(p, {tp("t", 0)})), TxnError::kProducerFenced);
  // The application re-initializes and goes on.
  auto again = h.init("app");
  h.settle();
  EXPECT_EQ((*again)->producer_epoch, p.producer_epoch + 2);
}

TEST(TxnFencingTest, TheTimeoutRunsFromTheFirstAddNotFromTheLast) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_partitions(p, {tp("t", 0)}));
  h.advance(TxnHarness::kTimeoutMs / 2);
  h.settled(h.add_partitions(p, {tp("t", 1)}));
  h.advance(TxnHarness::kTimeoutMs / 2);
  h.settle();
  EXPECT_EQ(h.state("app"), TxnState::kCompleteAbort);
}

TEST(TxnFencingTest, InitWhileOngoingAbortsWithAFencingEpochAndTheRetryBumpsAgain) {
  TxnHarness h;
  const ProducerRef zombie = h.init_ok("app");
  h.settled(h.add_partitions(zombie, {tp("t", 0)}));
  auto init = h.init("app");
  EXPECT_EQ((*init)->error, TxnError::kConcurrentTransactions);
  h.settle();
  EXPECT_EQ(h.state("app"), TxnState::kCompleteAbort);
  ASSERT_EQ(h.markers.size(), 1u);
  EXPECT_EQ(h.markers[0].producer_epoch, zombie.producer_epoch + 1);
  auto retry = h.init("app");
  h.settle();
  ASSERT_EQ((*retry)->error, TxnError::kNone);
  EXPECT_EQ((*retry)->producer_epoch, zombie.producer_epoch + 2);
  EXPECT_EQ(h.settled(h.end(zombie, true)), TxnError::kProducerFenced);
  EXPECT_EQ(h.txn().check_produce(zombie, {tp("t", 0)}), TxnError::kProducerFenced);
}

TEST(TxnOffsetsTest, StagedOffsetsAreUnstableUntilTheCommitMakesThemCommitted) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  ASSERT_EQ(h.settled(h.add_offsets(p, "g")), TxnError::kNone);
  auto staged = h.offset_commit(p, "g", {{tp("in", 0), 42}});
  h.settle();
  ASSERT_TRUE(staged->has_value());
  EXPECT_EQ((*staged)->txn_error, TxnError::kNone);
  EXPECT_EQ((*staged)->group_error, GroupError::kNone);
  EXPECT_EQ(h.group_harness.fetch("g", "in", 0, true).error, GroupError::kUnstableOffsetCommit);
  EXPECT_EQ(h.group_harness.fetch("g", "in", 0).offset, -1);  // not committed yet
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kNone);
  const PartitionOffset after = h.group_harness.fetch("g", "in", 0, true);
  EXPECT_EQ(after.error, GroupError::kNone);
  EXPECT_EQ(after.offset, 42);
  EXPECT_EQ(after.metadata, "m");
}

TEST(TxnOffsetsTest, AbortDropsStagedOffsets) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_offsets(p, "g"));
  h.offset_commit(p, "g", {{tp("in", 0), 42}});
  h.settle();
  EXPECT_EQ(h.settled(h.end(p, false)), TxnError::kNone);
  const PartitionOffset after = h.group_harness.fetch("g", "in", 0, true);
  EXPECT_EQ(after.error, GroupError::kNone);
  EXPECT_EQ(after.offset, -1);
}

TEST(TxnOffsetsTest, OffsetCommitNeedsTheGroupInTheTransaction) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  auto without = h.offset_commit(p, "g", {{tp("in", 0), 1}});
  h.settle();
  EXPECT_EQ((*without)->txn_error, TxnError::kInvalidTxnState);
  h.settled(h.add_offsets(p, "other"));
  auto other = h.offset_commit(p, "g", {{tp("in", 0), 1}});
  h.settle();
  EXPECT_EQ((*other)->txn_error, TxnError::kInvalidTxnState);
  const ProducerRef stale{"app", p.producer_id, static_cast<int16_t>(p.producer_epoch + 1)};
  auto fenced = h.offset_commit(stale, "other", {{tp("in", 0), 1}});
  h.settle();
  EXPECT_EQ((*fenced)->txn_error, TxnError::kProducerFenced);
}

TEST(TxnOffsetsTest, MemberAndGenerationAreCheckedWhenGivenAndLongMetadataIsRefusedPerPartition) {
  TxnHarness h;
  const auto group = h.group_harness.form_group("g", 1);
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_offsets(p, "g"));
  auto unknown = h.offset_commit(p, "g", {{tp("in", 0), 1}}, group.generation, "who");
  auto stale = h.offset_commit(p, "g", {{tp("in", 0), 1}}, group.generation + 1, group.members[0]);
  auto anonymous = h.offset_commit(p, "g", {{tp("in", 0), 1}});
  h.settle();
  EXPECT_EQ((*unknown)->group_error, GroupError::kUnknownMemberId);
  EXPECT_EQ((*stale)->group_error, GroupError::kIllegalGeneration);
  EXPECT_EQ((*anonymous)->group_error, GroupError::kNone);
  auto too_long = h.offset_commit(p, "g", {{tp("in", 1), 5}}, group.generation, group.members[0],
                                  std::string(txn_test_options().offset_metadata_max_bytes + 1, 'x'));
  h.settle();
  EXPECT_EQ((*too_long)->group_error, GroupError::kNone);
  EXPECT_EQ((*too_long)->partitions, (std::vector<GroupError>{GroupError::kOffsetMetadataTooLarge}));
  EXPECT_EQ(h.settled(h.end(p, true)), TxnError::kNone);
  EXPECT_EQ(h.group_harness.fetch("g", "in", 0).offset, 1);
  EXPECT_EQ(h.group_harness.fetch("g", "in", 1).offset, -1);
}

TEST(TxnRecoveryTest, ACommitPreparedBeforeACrashIsFinishedAfterTheRestart) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_partitions(p, {tp("t", 0)}));
  h.settled(h.add_offsets(p, "g"));
  h.offset_commit(p, "g", {{tp("in", 0), 7}});
  h.settle();
  h.hold_markers = true;
  h.end(p, true);
  h.settle();  // PrepareCommit is durable; the markers never land
  ASSERT_EQ(h.state("app"), TxnState::kPrepareCommit);
  h.restart();
  EXPECT_TRUE(h.txn().pending("app"));
  EXPECT_EQ(h.group_harness.fetch("g", "in", 0, true).error, GroupError::kUnstableOffsetCommit);
  EXPECT_EQ(h.settled(h.add_partitions(p, {tp("t", 1)})), TxnError::kConcurrentTransactions);
  ASSERT_EQ(h.markers_in_flight(), 1u);  // resumed at install
  h.hold_markers = false;
  h.settle();
  EXPECT_EQ(h.state("app"), TxnState::kCompleteCommit);
  EXPECT_TRUE(h.markers.back().commit);
  EXPECT_EQ(h.group_harness.fetch("g", "in", 0, true).offset, 7);
}

TEST(TxnRecoveryTest, AnOngoingTransactionFoundAtStartUpStillTimesOut) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_partitions(p, {tp("t", 0)}));
  h.restart();
  EXPECT_EQ(h.state("app"), TxnState::kOngoing);
  h.advance(TxnHarness::kTimeoutMs);
  h.settle();
  EXPECT_EQ(h.state("app"), TxnState::kCompleteAbort);
  ASSERT_EQ(h.markers.size(), 1u);
  EXPECT_EQ(h.markers[0].producer_epoch, p.producer_epoch + 1);
}

TEST(TxnRecoveryTest, FailedMarkersAreRetriedAndEndTxnWaitsForThem) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("app");
  h.settled(h.add_partitions(p, {tp("t", 0)}));
  h.hold_markers = true;
  auto ended = h.end(p, false);
  h.settle();
  h.complete_markers(storage::Status::io_error("disk"));
  h.settle();
  EXPECT_FALSE(ended->has_value());
  EXPECT_EQ(h.markers_in_flight(), 0u);
  h.advance(txn_test_options().retry_backoff_ms);
  h.settle();
  ASSERT_EQ(h.markers_in_flight(), 1u);
  h.complete_markers(storage::Status());
  h.settle();
  ASSERT_TRUE(ended->has_value());
  EXPECT_EQ(**ended, TxnError::kNone);
}

TEST(TxnLifecycleTest, LoadingShutdownAndExpiry) {
  TxnHarness h;
  const ProducerRef p = h.init_ok("idle");
  const ProducerRef busy = h.init_ok("busy");
  h.settled(h.add_partitions(busy, {tp("t", 0)}));
  h.hold_markers = true;
  auto waiting = h.end(busy, true);
  h.settle();
  h.advance(txn_test_options().id_expiration_ms + txn_test_options().id_expiration_check_interval_ms);
  h.settle();
  EXPECT_EQ(h.txn().find("idle"), nullptr) << "expired";
  EXPECT_FALSE(h.meta().contains(encode_txn_key("idle")));
  EXPECT_NE(h.txn().find("busy"), nullptr) << "an id being ended never expires";
  h.txn().shutdown();
  ASSERT_TRUE(waiting->has_value());
  EXPECT_EQ(**waiting, TxnError::kCoordinatorNotAvailable);
  EXPECT_EQ((*h.init("x"))->error, TxnError::kCoordinatorNotAvailable);
  (void)p;
}

TEST(TxnRecordsTest, RoundTripAndHostileBytes) {
  TxnMetadata m;
  m.transactional_id = "app";
  m.producer_id = 12;
  m.last_producer_id = 3;
  m.producer_epoch = 4;
  m.last_producer_epoch = 3;
  m.timeout_ms = 60000;
  m.state = TxnState::kPrepareCommit;
  m.partitions = {tp("a", 0), tp("b", 2)};
  m.groups["g"][tp("in", 1)] = CommittedOffset{9, 2, "meta", 100, -1};
  m.groups["h"];
  m.start_ms = 5;
  m.update_ms = 6;
  const std::string value = encode_txn_value(m);
  auto back = decode_txn_value("app", value);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, m);
  for (size_t n = 0; n < value.size(); ++n) EXPECT_FALSE(decode_txn_value("app", value.substr(0, n))) << n;
  EXPECT_FALSE(decode_txn_value("app", value + "x"));
  std::string dead = value;
  dead[1 + 8 + 8 + 2 + 2 + 4] = static_cast<char>(TxnState::kDead);
  EXPECT_FALSE(decode_txn_value("app", dead));
  std::string huge = value;
  const size_t count_at = 1 + 8 + 8 + 2 + 2 + 4 + 1 + 8 + 8;
  huge[count_at] = '\x7f';  // partition count ~2^30
  EXPECT_FALSE(decode_txn_value("app", huge));
  EXPECT_EQ(decode_txn_key("x/app"), "app");
  EXPECT_FALSE(decode_txn_key("x/"));
}

}  // namespace
}  // namespace rokka::coordinator::test
