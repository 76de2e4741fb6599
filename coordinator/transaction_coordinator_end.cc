// TransactionCoordinator, part 2: EndTxn and everything that ends a transaction
// (Prepare record -> markers -> staged offsets -> Complete record), timeouts, retries and
// transactional-id expiry.
#include <limits>

#include "coordinator/log.h"
#include "coordinator/transaction_coordinator.h"

namespace rokka::coordinator {

void TransactionCoordinator::end_txn(ProducerRef producer, bool commit, TxnCallback done) {
  if (TxnError e = serving(); e != TxnError::kNone) return done(e);
  Entry* e = txns_.find(producer.transactional_id);
  if (TxnError err = check_producer(e, producer); err != TxnError::kNone) return done(err);
  switch (e->meta.state) {
    case TxnState::kOngoing:
      return end_transaction(*e, commit, std::nullopt, std::move(done));
    case TxnState::kCompleteCommit:  // a retry of an EndTxn that completed
      return done(commit ? TxnError::kNone : TxnError::kInvalidTxnState);
    case TxnState::kCompleteAbort:
      return done(commit ? TxnError::kInvalidTxnState : TxnError::kNone);
    case TxnState::kPrepareCommit:
      return done(commit ? TxnError::kConcurrentTransactions : TxnError::kInvalidTxnState);
    case TxnState::kPrepareAbort:
      return done(commit ? TxnError::kInvalidTxnState : TxnError::kConcurrentTransactions);
    case TxnState::kEmpty:
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      return done(TxnError::kInvalidTxnState);
  }
}

void TransactionCoordinator::end_transaction(Entry& e, bool commit, std::optional<int16_t> fence_epoch,
                                             TxnCallback done) {
  timers_.cancel(e.timeout_timer);
  TxnMetadata next = e.meta;
  next.state = commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort;
  if (fence_epoch) {
    next.producer_epoch = *fence_epoch;
    next.last_producer_epoch = -1;
  }
  next.update_ms = clock_();
  const std::string id = e.meta.transactional_id;
  txns_.transition(
      e, std::move(next),
      [this, id, done = std::move(done)](TxnError error) {
        Entry* e = txns_.find(id);
        if (error != TxnError::kNone) {
          // Still Ongoing: its timeout (or the client) tries again.
          arm_timeout(*e, clock_() + options_.retry_backoff_ms);
          if (done) done(error);
          return;
        }
        if (done) e->on_complete.push_back(done);
        send_markers(id);
      },
      /*stay_pending=*/true);
}

void TransactionCoordinator::send_markers(const std::string& transactional_id) {
  Entry* e = txns_.find(transactional_id);
  if (e == nullptr || shut_down_) return;
  MarkerRequest req;
  req.producer_id = e->meta.producer_id;
  req.producer_epoch = e->meta.producer_epoch;
  req.commit = e->meta.state == TxnState::kPrepareCommit;
  req.partitions.assign(e->meta.partitions.begin(), e->meta.partitions.end());
  if (req.partitions.empty()) return commit_offsets(transactional_id);
  write_markers_(std::move(req), [this, transactional_id](storage::Status status) {
    post_([this, transactional_id, status] {
      if (shut_down_) return;
      if (!status.ok()) {
        log().warn("transaction markers not written, retrying: transactional_id={} error={}", transactional_id,
                   status.to_string());
        return retry_later(transactional_id, &TransactionCoordinator::send_markers);
      }
      commit_offsets(transactional_id);
    });
  });
}

void TransactionCoordinator::commit_offsets(const std::string& transactional_id) {
  Entry* e = txns_.find(transactional_id);
  if (e == nullptr || shut_down_) return;
  struct Progress {
    size_t left = 0;
    bool failed = false;
  };
  auto progress = std::make_shared<Progress>();
  if (e->meta.state == TxnState::kPrepareCommit) {
    for (const auto& [group, offsets] : e->meta.groups)
      if (!offsets.empty()) ++progress->left;
  }
  if (progress->left == 0) return complete(transactional_id);
  for (const auto& [group, offsets] : e->meta.groups) {
    if (offsets.empty()) continue;
    std::vector<std::pair<TopicPartition, CommittedOffset>> batch(offsets.begin(), offsets.end());
    groups_.commit_txn_offsets(group, std::move(batch), [this, transactional_id, progress](storage::Status status) {
      progress->failed = progress->failed || !status.ok();
      if (--progress->left > 0 || shut_down_) return;
      if (progress->failed) return retry_later(transactional_id, &TransactionCoordinator::commit_offsets);
      complete(transactional_id);
    });
  }
}

void TransactionCoordinator::complete(const std::string& transactional_id) {
  Entry* e = txns_.find(transactional_id);
  if (e == nullptr || shut_down_) return;
  const bool committed = e->meta.state == TxnState::kPrepareCommit;
  TxnMetadata next = e->meta;
  next.state = committed ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  next.partitions.clear();
  next.groups.clear();
  next.update_ms = clock_();
  txns_.transition(*e, std::move(next), [this, transactional_id, ended = e->meta, committed](TxnError error) {
    Entry* e = txns_.find(transactional_id);
    if (error != TxnError::kNone) {
      e->pending = true;  // still ending: nothing else may start
      return retry_later(transactional_id, &TransactionCoordinator::complete);
    }
    release_staged(ended);
    log().info("transaction {}: transactional_id={} producer_id={} epoch={} partitions={}",
               committed ? "committed" : "aborted", transactional_id, ended.producer_id, ended.producer_epoch,
               ended.partitions.size());
    for (auto& waiter : std::exchange(e->on_complete, {})) waiter(TxnError::kNone);
  });
}

void TransactionCoordinator::release_staged(const TxnMetadata& meta) {
  for (const auto& [group, offsets] : meta.groups) {
    std::vector<TopicPartition> tps;
    tps.reserve(offsets.size());
    for (const auto& [tp, offset] : offsets) tps.push_back(tp);
    groups_.release_txn_offsets(group, tps);
  }
}

void TransactionCoordinator::retry_later(const std::string& transactional_id,
                                         void (TransactionCoordinator::*step)(const std::string&)) {
  timers_.schedule(clock_() + options_.retry_backoff_ms, [this, transactional_id, step] { (this->*step)(transactional_id); });
}

// ---------------------------------------------------------------------------------------
// Timeouts and expiry

void TransactionCoordinator::arm_timeout(Entry& e, int64_t not_before) {
  timers_.cancel(e.timeout_timer);
  const int64_t deadline = std::max(e.meta.start_ms + e.meta.timeout_ms, not_before);
  e.timeout_timer = timers_.schedule(deadline, [this, id = e.meta.transactional_id] { on_timeout(id); });
}

void TransactionCoordinator::on_timeout(const std::string& transactional_id) {
  Entry* e = txns_.find(transactional_id);
  if (e == nullptr) return;
  e->timeout_timer = TimerQueue::kNone;
  if (e->meta.state != TxnState::kOngoing) return;
  if (e->pending) return arm_timeout(*e, clock_() + options_.retry_backoff_ms);  // look again after the write
  const int16_t epoch = e->meta.producer_epoch;
  const int16_t fence = epoch < std::numeric_limits<int16_t>::max() ? static_cast<int16_t>(epoch + 1) : epoch;
  log().info("transaction timed out, aborting: transactional_id={} producer_id={} epoch={} timeout_ms={}",
             transactional_id, e->meta.producer_id, fence, e->meta.timeout_ms);
  end_transaction(*e, false, fence, nullptr);
}

void TransactionCoordinator::schedule_expiry() {
  timers_.schedule(clock_() + options_.id_expiration_check_interval_ms, [this] {
    expire_ids();
    schedule_expiry();
  });
}

void TransactionCoordinator::expire_ids() { txns_.expire_idle(clock_(), options_.id_expiration_ms); }

}  // namespace rokka::coordinator
