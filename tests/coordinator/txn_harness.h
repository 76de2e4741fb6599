// A TransactionCoordinator driven by hand, next to the GroupCoordinator of a
// CoordinatorHarness (same ManualClock and FakeMetaStore): producer ids come from a
// counter, markers are recorded and complete when the test says (or at once), and a
// queue stands in for the shared strand.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/transaction_coordinator.h"
#include "tests/coordinator/coordinator_harness.h"

namespace rokka::coordinator {

inline void PrintTo(TxnError e, std::ostream* os) { *os << txn_error_name(e); }
inline void PrintTo(TxnState s, std::ostream* os) { *os << txn_state_name(s); }

}  // namespace rokka::coordinator

namespace rokka::coordinator::test {

inline TxnCoordinatorOptions txn_test_options() {
  TxnCoordinatorOptions o;
  o.max_timeout_ms = 60000;
  o.id_expiration_ms = 3600000;
  o.id_expiration_check_interval_ms = 600000;
  o.retry_backoff_ms = 500;
  o.offset_metadata_max_bytes = 16;
  return o;
}

class TxnHarness {
 public:
  static constexpr int32_t kTimeoutMs = 10000;

  explicit TxnHarness(TxnCoordinatorOptions options = txn_test_options()) : options_(options) { start(); }

  TransactionCoordinator& txn() { return *txn_; }
  GroupCoordinator& groups() { return group_harness.coord(); }
  testutil::FakeMetaStore& meta() { return group_harness.meta; }
  testutil::ManualClock& clock() { return group_harness.clock; }

  // A broker restart: writes not yet durable are lost, markers in flight never land.
  void restart() {
    group_harness.restart();
    posted_.clear();
    in_flight_.clear();
    start();
  }

  // Runs queued strand work, completing writes (and markers, unless held) until quiet.
  void settle() {
    for (;;) {
      group_harness.settle();
      if (!posted_.empty()) {
        auto fn = std::move(posted_.front());
        posted_.pop_front();
        fn();
        continue;
      }
      if (!hold_markers && !in_flight_.empty()) {
        complete_markers(storage::Status());
        continue;
      }
      if (meta().pending() == 0) return;
    }
  }
  // Answers the oldest marker request in flight with `status`, then runs what follows.
  void complete_markers(storage::Status status) {
    auto [req, done] = std::move(in_flight_.front());
    in_flight_.pop_front();
    if (status.ok()) markers.push_back(req);
    done(status);
  }
  size_t markers_in_flight() const { return in_flight_.size(); }

  // Moves the clock forward, firing transaction timers at their deadlines on the way.
  void advance(int64_t ms) {
    const int64_t target = clock().now_ms() + ms;
    for (auto next = txn_->next_deadline(); next && *next <= target; next = txn_->next_deadline()) {
      clock().set(std::max(clock().now_ms(), *next));
      txn_->run_due_timers();
    }
    clock().set(target);
    txn_->run_due_timers();
  }

  // ---- one call per API; the answer is empty until the coordinator gives it ----
  Answer<InitProducerIdResult> init(const std::string& id, int64_t pid = -1, int16_t epoch = -1,
                                    int32_t timeout_ms = kTimeoutMs) {
    auto answer = std::make_shared<std::optional<InitProducerIdResult>>();
    txn_->init_producer_id({id, timeout_ms, pid, epoch}, [answer](InitProducerIdResult r) { *answer = r; });
    return answer;
  }
  // InitProducerId that must succeed once settled.
  ProducerRef init_ok(const std::string& id) {
    auto a = init(id);
    settle();
    EXPECT_TRUE(a->has_value() && (*a)->error == TxnError::kNone);
    return a->has_value() ? ProducerRef{id, (*a)->producer_id, (*a)->producer_epoch} : ProducerRef{id};
  }
  Answer<TxnError> add_partitions(const ProducerRef& p, std::vector<TopicPartition> tps) {
    auto answer = std::make_shared<std::optional<TxnError>>();
    txn_->add_partitions(p, std::move(tps), [answer](TxnError e) { *answer = e; });
    return answer;
  }
  Answer<TxnError> add_offsets(const ProducerRef& p, const std::string& group) {
    auto answer = std::make_shared<std::optional<TxnError>>();
    txn_->add_offsets(p, group, [answer](TxnError e) { *answer = e; });
    return answer;
  }
  Answer<TxnOffsetCommitResult> offset_commit(const ProducerRef& p, const std::string& group,
                                              std::vector<std::pair<TopicPartition, int64_t>> offsets,
                                              int32_t generation = -1, std::string member = "",
                                              std::string metadata = "m") {
    TxnOffsetCommitArgs a;
    a.producer = p;
    a.group_id = group;
    a.generation_id = generation;
    a.member_id = std::move(member);
    for (auto& [tp, offset] : offsets) a.offsets.push_back({tp, CommittedOffset{offset, -1, metadata, 0, -1}});
    auto answer = std::make_shared<std::optional<TxnOffsetCommitResult>>();
    txn_->txn_offset_commit(std::move(a), [answer](TxnOffsetCommitResult r) { *answer = std::move(r); });
    return answer;
  }
  Answer<TxnError> end(const ProducerRef& p, bool commit) {
    auto answer = std::make_shared<std::optional<TxnError>>();
    txn_->end_txn(p, commit, [answer](TxnError e) { *answer = e; });
    return answer;
  }
  TxnError settled(const Answer<TxnError>& a) {
    settle();
    return a->value_or(TxnError::kCoordinatorNotAvailable);
  }
  TxnState state(const std::string& id) const {
    const TxnMetadata* m = txn_->find(id);
    return m ? m->state : TxnState::kDead;
  }

  CoordinatorHarness group_harness{test_options()};
  std::vector<MarkerRequest> markers;  // written, in order
  bool hold_markers = false;           // settle() leaves marker requests in flight
  int64_t next_producer_id = 1000;
  bool fail_allocation = false;

 private:
  void start() {
    txn_ = std::make_unique<TransactionCoordinator>(
        options_, meta(), clock().fn(), [this](std::function<void()> fn) { posted_.push_back(std::move(fn)); },
        [this](std::function<void(storage::Result<int64_t>)> done) {
          if (fail_allocation) return done(storage::Status::io_error("no ids"));
          done(next_producer_id++);
        },
        [this](MarkerRequest req, std::function<void(storage::Status)> done) {
          in_flight_.emplace_back(std::move(req), std::move(done));
        },
        groups());
    txn_->install(load_transactions(meta()));
  }

  TxnCoordinatorOptions options_;
  std::deque<std::function<void()>> posted_;
  std::deque<std::pair<MarkerRequest, std::function<void(storage::Status)>>> in_flight_;
  std::unique_ptr<TransactionCoordinator> txn_;
};

inline TopicPartition tp(const std::string& topic, int32_t partition) { return {topic, partition}; }

}  // namespace rokka::coordinator::test
