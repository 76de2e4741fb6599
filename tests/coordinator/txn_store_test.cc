// TxnStore on its own: a transition is applied once durable, pending meanwhile, and idle
// ids expire -- on a FakeMetaStore whose writes complete when the test says.
#include "coordinator/txn_store.h"

#include <gtest/gtest.h>

#include "coordinator/txn_records.h"
#include "tests/coordinator/txn_harness.h"
#include "tests/coordinator/fake_strand.h"

namespace rokka::coordinator::test {
namespace {

class TxnStoreTest : public ::testing::Test {
 protected:
  TxnMetadata meta(const std::string& id, TxnState state, int64_t update_ms) {
    TxnMetadata m;
    m.transactional_id = id;
    m.producer_id = 7;
    m.state = state;
    m.update_ms = update_ms;
    return m;
  }
  FakeStrand strand_;
  testutil::FakeMetaStore& meta_ = strand_.meta;
  DurableWriter writer_{strand_.meta, strand_.post()};
  TxnStore store_{writer_};
};

TEST_F(TxnStoreTest, ATransitionIsAppliedOnlyOnceDurable) {
  TxnEntry& e = store_.add(meta("a", TxnState::kEmpty, 0));
  std::optional<TxnError> answer;
  store_.transition(e, meta("a", TxnState::kOngoing, 5), [&](TxnError r) { answer = r; });
  EXPECT_TRUE(e.pending);
  EXPECT_EQ(e.meta.state, TxnState::kEmpty) << "not before the record is durable";
  meta_.complete_next();
  EXPECT_FALSE(answer) << "the completion comes back through the strand";
  strand_.settle();
  EXPECT_EQ(answer, TxnError::kNone);
  EXPECT_FALSE(e.pending);
  EXPECT_EQ(e.meta.state, TxnState::kOngoing);
  EXPECT_TRUE(meta_.contains(encode_txn_key("a")));
}

TEST_F(TxnStoreTest, AFailedTransitionChangesNothingAndFreesTheId) {
  TxnEntry& e = store_.add(meta("a", TxnState::kOngoing, 0));
  std::optional<TxnError> answer;
  store_.transition(e, meta("a", TxnState::kPrepareCommit, 5), [&](TxnError r) { answer = r; });
  meta_.fail_next();
  strand_.settle();
  EXPECT_EQ(answer, TxnError::kStorageError);
  EXPECT_FALSE(e.pending);
  EXPECT_EQ(e.meta.state, TxnState::kOngoing);
}

TEST_F(TxnStoreTest, StayPendingKeepsTheIdBusyAfterTheWrite) {
  TxnEntry& e = store_.add(meta("a", TxnState::kOngoing, 0));
  store_.transition(e, meta("a", TxnState::kPrepareAbort, 5), [](TxnError) {}, /*stay_pending=*/true);
  strand_.settle();
  EXPECT_EQ(e.meta.state, TxnState::kPrepareAbort);
  EXPECT_TRUE(e.pending) << "ending: nothing else may start";
}

TEST_F(TxnStoreTest, OnlyIdleIdsPastTheirExpiryGoAndTheirRecordsAreErased) {
  for (TxnState s : {TxnState::kEmpty, TxnState::kCompleteCommit, TxnState::kOngoing}) {
    TxnMetadata m = meta(std::string(txn_state_name(s)), s, 0);
    TxnEntry& e = store_.add(m);
    store_.transition(e, m, [](TxnError) {});
  }
  strand_.settle();
  store_.add(meta("recent", TxnState::kCompleteAbort, 900));
  TxnEntry& busy = store_.add(meta("busy", TxnState::kEmpty, 0));
  busy.pending = true;
  EXPECT_EQ(store_.expire_idle(/*now_ms=*/1000, /*ttl_ms=*/1000), 2u);
  EXPECT_EQ(store_.find("Empty"), nullptr);
  EXPECT_EQ(store_.find("CompleteCommit"), nullptr);
  EXPECT_NE(store_.find("Ongoing"), nullptr) << "an open transaction never expires";
  EXPECT_NE(store_.find("recent"), nullptr);
  EXPECT_NE(store_.find("busy"), nullptr) << "a pending id is never removed";
  strand_.settle();
  EXPECT_FALSE(meta_.contains(encode_txn_key("Empty")));
  EXPECT_TRUE(meta_.contains(encode_txn_key("Ongoing")));
}

}  // namespace
}  // namespace rokka::coordinator::test
