// TxnCompleter on its own: Prepare -> markers -> offsets -> Complete in that order, each
// failed step retried after the backoff, timeouts that abort with the epoch bumped, and
// shutdown -- over a TxnStore and a GroupCoordinator on one FakeMetaStore, with marker
// requests the test answers by hand and the harness's queue standing in for the strand.
#include "coordinator/txn_completer.h"

#include <gtest/gtest.h>

#include <deque>

#include "tests/coordinator/txn_harness.h"

namespace rokka::coordinator::test {
namespace {

constexpr int64_t kBackoffMs = 500;

class TxnCompleterTest : public ::testing::Test {
 protected:
  // An Ongoing transaction of producer 7 at epoch 3: partition t/0, and offset 42 of
  // group g's t/0 staged.
  TxnEntry& ongoing(const std::string& id) {
    TxnMetadata m;
    m.transactional_id = id;
    m.producer_id = 7;
    m.producer_epoch = 3;
    m.timeout_ms = 10000;
    m.state = TxnState::kOngoing;
    m.start_ms = clock().now_ms();
    m.partitions.insert(tp("t", 0));
    m.groups["g"][tp("t", 0)] = CommittedOffset{42, -1, "", clock().now_ms(), -1};
    groups_.coord().stage_txn_offsets("g", {tp("t", 0)});
    return store_.add(std::move(m));
  }
  Answer<TxnError> end(TxnEntry& e, bool commit, std::optional<int16_t> fence = std::nullopt) {
    auto answer = std::make_shared<std::optional<TxnError>>();
    completer_.end(e, commit, fence, [answer](TxnError r) { *answer = r; });
    return answer;
  }
  // Runs strand work and makes writes durable, leaving marker requests waiting.
  void settle() { groups_.settle(); }
  void answer_markers(storage::Status status = storage::Status()) {
    ASSERT_FALSE(markers_.empty());
    auto [req, done] = std::move(markers_.front());
    markers_.pop_front();
    done(status);
    settle();
  }
  void advance(int64_t ms) {
    const int64_t target = clock().now_ms() + ms;
    for (auto next = timers_.next_deadline(); next && *next <= target; next = timers_.next_deadline()) {
      clock().set(std::max(clock().now_ms(), *next));
      timers_.run_due(clock().now_ms());
    }
    clock().set(target);
    settle();
  }
  TxnState state(const std::string& id) const { return store_.find(id)->meta.state; }
  testutil::ManualClock& clock() { return groups_.clock; }

  CoordinatorHarness groups_;
  Clock clock_fn_ = groups_.clock.fn();
  Post post_ = groups_.post();  // the group coordinator's strand is the completer's
  DurableWriter writer_{groups_.meta, post_};
  TxnStore store_{writer_};
  TimerQueue timers_;
  std::deque<std::pair<MarkerRequest, std::function<void(storage::Status)>>> markers_;
  TxnCompleter completer_{kBackoffMs,
                          clock_fn_,
                          post_,
                          [this](MarkerRequest req, std::function<void(storage::Status)> done) {
                            markers_.emplace_back(std::move(req), std::move(done));
                          },
                          store_,
                          timers_,
                          groups_.coord()};
};

TEST_F(TxnCompleterTest, ACommitWritesPrepareThenMarkersThenOffsetsThenComplete) {
  TxnEntry& e = ongoing("app");
  auto done = end(e, /*commit=*/true);
  EXPECT_TRUE(markers_.empty()) << "no marker before the Prepare record is durable";
  settle();
  EXPECT_EQ(state("app"), TxnState::kPrepareCommit);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_TRUE(markers_.front().first.commit);
  EXPECT_EQ(markers_.front().first.producer_id, 7);
  EXPECT_EQ(markers_.front().first.producer_epoch, 3);
  EXPECT_EQ(groups_.fetch("g", "t", 0).offset, -1) << "offsets only after the markers";
  answer_markers();
  EXPECT_EQ(groups_.fetch("g", "t", 0).offset, 42);
  EXPECT_EQ(groups_.fetch("g", "t", 0, /*require_stable=*/true).error, GroupError::kNone)
      << "released once complete";
  EXPECT_EQ(state("app"), TxnState::kCompleteCommit);
  EXPECT_TRUE(e.meta.partitions.empty());
  EXPECT_FALSE(e.pending);
  EXPECT_EQ(*done, TxnError::kNone);
}

TEST_F(TxnCompleterTest, AFencingAbortCarriesTheNewEpochAndCommitsNoOffsets) {
  TxnEntry& e = ongoing("app");
  completer_.end(e, /*commit=*/false, TxnCompleter::fencing_epoch(3), nullptr);
  settle();
  EXPECT_EQ(state("app"), TxnState::kPrepareAbort);
  EXPECT_EQ(e.meta.producer_epoch, 4);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_FALSE(markers_.front().first.commit);
  EXPECT_EQ(markers_.front().first.producer_epoch, 4) << "the markers fence the old epoch";
  answer_markers();
  EXPECT_EQ(state("app"), TxnState::kCompleteAbort);
  EXPECT_EQ(groups_.fetch("g", "t", 0).offset, -1);
  EXPECT_EQ(TxnCompleter::fencing_epoch(32767), 32767) << "no epoch beyond the last";
}

TEST_F(TxnCompleterTest, FailedMarkersAreRetriedAfterTheBackoffAndNotBefore) {
  TxnEntry& e = ongoing("app");
  auto done = end(e, true);
  settle();
  answer_markers(storage::Status::io_error("disk"));
  EXPECT_TRUE(markers_.empty());
  EXPECT_TRUE(e.pending) << "still ending: nothing else may start";
  advance(kBackoffMs - 1);
  EXPECT_TRUE(markers_.empty());
  advance(1);
  ASSERT_EQ(markers_.size(), 1u) << "retried once the backoff has passed";
  EXPECT_FALSE(*done);
  answer_markers();
  EXPECT_EQ(*done, TxnError::kNone);
}

TEST_F(TxnCompleterTest, AFailedCompleteRecordKeepsTheIdPendingUntilARetryLands) {
  TxnEntry& e = ongoing("app");
  auto done = end(e, true);
  settle();
  markers_.front().second(storage::Status());
  markers_.pop_front();
  groups_.drain();  // the markers' completion: the offsets are written
  ASSERT_EQ(groups_.meta.pending(), 1u);
  groups_.meta.complete_next();
  groups_.drain();  // the offsets are durable: the Complete record is written
  ASSERT_EQ(groups_.fetch("g", "t", 0).offset, 42);
  ASSERT_EQ(groups_.meta.pending(), 1u);
  groups_.meta.fail_next();
  groups_.drain();
  EXPECT_EQ(state("app"), TxnState::kPrepareCommit);
  EXPECT_TRUE(e.pending);
  EXPECT_FALSE(*done);
  advance(kBackoffMs);
  EXPECT_EQ(state("app"), TxnState::kCompleteCommit);
  EXPECT_EQ(*done, TxnError::kNone);
}

TEST_F(TxnCompleterTest, ATimeoutAbortsAnOngoingTransactionWithTheEpochBumped) {
  TxnEntry& e = ongoing("app");
  completer_.arm_timeout(e, 0);
  advance(e.meta.timeout_ms - 1);
  EXPECT_EQ(state("app"), TxnState::kOngoing);
  advance(1);
  EXPECT_EQ(state("app"), TxnState::kPrepareAbort);
  EXPECT_EQ(e.meta.producer_epoch, 4);
  answer_markers();
  EXPECT_EQ(state("app"), TxnState::kCompleteAbort);
}

TEST_F(TxnCompleterTest, ShutdownAnswersTheWaitingEndTxnAndStopsTheEnding) {
  TxnEntry& e = ongoing("app");
  auto done = end(e, true);
  settle();
  ASSERT_EQ(markers_.size(), 1u);
  completer_.shutdown();
  EXPECT_EQ(*done, TxnError::kCoordinatorNotAvailable);
  const size_t writes = groups_.meta.writes();
  answer_markers();
  EXPECT_EQ(groups_.meta.writes(), writes) << "neither offsets nor a Complete record after shutdown";
  EXPECT_EQ(state("app"), TxnState::kPrepareCommit) << "resumed after the next start";
}

}  // namespace
}  // namespace rokka::coordinator::test
