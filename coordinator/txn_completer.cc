#include "coordinator/txn_completer.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "coordinator/log.h"

namespace rokka::coordinator {

TxnCompleter::TxnCompleter(int64_t retry_backoff_ms, const Clock& clock, Post post, WriteMarkers write_markers,
                           TxnStore& txns, TimerQueue& timers, GroupCoordinator& groups)
    : retry_backoff_ms_(retry_backoff_ms),
      clock_(clock),
      post_(std::move(post)),
      write_markers_(std::move(write_markers)),
      txns_(txns),
      timers_(timers),
      groups_(groups) {}

int16_t TxnCompleter::fencing_epoch(int16_t epoch) {
  return epoch < std::numeric_limits<int16_t>::max() ? static_cast<int16_t>(epoch + 1) : epoch;
}

void TxnCompleter::resume(const std::string& transactional_id) { send_markers(transactional_id); }

void TxnCompleter::shutdown() {
  stopped_ = true;
  txns_.for_each([](TxnEntry& e) {
    for (auto& waiter : std::exchange(e.on_complete, {})) waiter(TxnError::kCoordinatorNotAvailable);
  });
}

void TxnCompleter::end(TxnEntry& e, bool commit, std::optional<int16_t> fence_epoch, TxnCallback done) {
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
        TxnEntry* e = txns_.find(id);
        if (error != TxnError::kNone) {
          // Still Ongoing: its timeout (or the client) tries again.
          arm_timeout(*e, clock_() + retry_backoff_ms_);
          if (done) done(error);
          return;
        }
        if (done) e->on_complete.push_back(done);
        send_markers(id);
      },
      /*stay_pending=*/true);
}

void TxnCompleter::send_markers(const std::string& transactional_id) {
  TxnEntry* e = txns_.find(transactional_id);
  if (e == nullptr || stopped_) return;
  MarkerRequest req;
  req.producer_id = e->meta.producer_id;
  req.producer_epoch = e->meta.producer_epoch;
  req.commit = e->meta.state == TxnState::kPrepareCommit;
  req.partitions.assign(e->meta.partitions.begin(), e->meta.partitions.end());
  if (req.partitions.empty()) return commit_offsets(transactional_id);
  write_markers_(std::move(req), [this, transactional_id](storage::Status status) {
    post_([this, transactional_id, status] {
      if (stopped_) return;
      if (!status.ok()) {
        log().warn("transaction markers not written, retrying: transactional_id={} error={}", transactional_id,
                   status.to_string());
        return retry_later(transactional_id, &TxnCompleter::send_markers);
      }
      commit_offsets(transactional_id);
    });
  });
}

void TxnCompleter::commit_offsets(const std::string& transactional_id) {
  TxnEntry* e = txns_.find(transactional_id);
  if (e == nullptr || stopped_) return;
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
      if (--progress->left > 0 || stopped_) return;
      if (progress->failed) return retry_later(transactional_id, &TxnCompleter::commit_offsets);
      complete(transactional_id);
    });
  }
}

void TxnCompleter::complete(const std::string& transactional_id) {
  TxnEntry* e = txns_.find(transactional_id);
  if (e == nullptr || stopped_) return;
  const bool committed = e->meta.state == TxnState::kPrepareCommit;
  TxnMetadata next = e->meta;
  next.state = committed ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  next.partitions.clear();
  next.groups.clear();
  next.update_ms = clock_();
  txns_.transition(*e, std::move(next), [this, transactional_id, ended = e->meta, committed](TxnError error) {
    TxnEntry* e = txns_.find(transactional_id);
    if (error != TxnError::kNone) {
      e->pending = true;  // still ending: nothing else may start
      return retry_later(transactional_id, &TxnCompleter::complete);
    }
    release_staged(ended);
    log().info("transaction {}: transactional_id={} producer_id={} epoch={} partitions={}",
               committed ? "committed" : "aborted", transactional_id, ended.producer_id, ended.producer_epoch,
               ended.partitions.size());
    for (auto& waiter : std::exchange(e->on_complete, {})) waiter(TxnError::kNone);
  });
}

void TxnCompleter::release_staged(const TxnMetadata& meta) {
  for (const auto& [group, offsets] : meta.groups) {
    std::vector<TopicPartition> tps;
    tps.reserve(offsets.size());
    for (const auto& [tp, offset] : offsets) tps.push_back(tp);
    groups_.release_txn_offsets(group, tps);
  }
}

void TxnCompleter::retry_later(const std::string& transactional_id, void (TxnCompleter::*step)(const std::string&)) {
  timers_.schedule(clock_() + retry_backoff_ms_, [this, transactional_id, step] { (this->*step)(transactional_id); });
}

// ---------------------------------------------------------------------------------------
// Timeouts

void TxnCompleter::arm_timeout(TxnEntry& e, int64_t not_before) {
  timers_.cancel(e.timeout_timer);
  const int64_t deadline = std::max(e.meta.start_ms + e.meta.timeout_ms, not_before);
  e.timeout_timer = timers_.schedule(deadline, [this, id = e.meta.transactional_id] { on_timeout(id); });
}

void TxnCompleter::on_timeout(const std::string& transactional_id) {
  TxnEntry* e = txns_.find(transactional_id);
  if (e == nullptr) return;
  e->timeout_timer = TimerQueue::kNone;
  if (e->meta.state != TxnState::kOngoing) return;
  if (e->pending) return arm_timeout(*e, clock_() + retry_backoff_ms_);  // look again after the write
  const int16_t fence = fencing_epoch(e->meta.producer_epoch);
  log().info("transaction timed out, aborting: transactional_id={} producer_id={} epoch={} timeout_ms={}",
             transactional_id, e->meta.producer_id, fence, e->meta.timeout_ms);
  end(*e, false, fence, nullptr);
}

}  // namespace rokka::coordinator
