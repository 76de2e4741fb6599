// TxnCompleter: how a transaction ends, whoever ends it -- EndTxn, its own timeout, or an
// InitProducerId that fences the producer:
//   1. the Prepare record (PrepareCommit or PrepareAbort, with the epoch bumped when
//      fencing) is made durable; the id then stays pending to the end;
//   2. one COMMIT or ABORT marker per partition (WriteMarkers: the broker appends control
//      batches; storage then refuses the fenced producer's older epoch);
//   3. on commit, the staged offsets become committed offsets (GroupCoordinator);
//   4. the Complete record; then the staged offsets are released and the waiting EndTxn
//      requests answered.
// A failed step 2, 3 or 4 is retried after retry_backoff_ms while the id stays pending; a
// failed step 1 leaves the transaction Ongoing, its timeout re-armed for a later try.
// After a restart, resume() takes a transaction found in a Prepare state from step 2.
//
// Single-threaded, on the transaction coordinator's strand: completions of the markers
// come back through `post`; timers live in the TimerQueue it shares with the coordinator.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "coordinator/clock.h"
#include "coordinator/durable_writer.h"
#include "coordinator/group_coordinator.h"
#include "coordinator/timer_queue.h"
#include "coordinator/txn_store.h"
#include "coordinator/txn_types.h"

namespace rokka::coordinator {

class TxnCompleter {
 public:
  // Writes one marker per partition; `done` (any thread) once all are durable, or with
  // the first error. A partition that no longer exists counts as written.
  using WriteMarkers = std::function<void(MarkerRequest, std::function<void(storage::Status)>)>;

  // All references must outlive the completer.
  TxnCompleter(int64_t retry_backoff_ms, const Clock& clock, Post post, WriteMarkers write_markers, TxnStore& txns,
               TimerQueue& timers, GroupCoordinator& groups);
  TxnCompleter(const TxnCompleter&) = delete;
  TxnCompleter& operator=(const TxnCompleter&) = delete;

  // Ends `e`'s Ongoing transaction; with `fence_epoch` the Prepare record carries that
  // epoch. `done` (may be empty) runs once the Complete record is durable, or with the
  // error of the Prepare record.
  void end(TxnEntry& e, bool commit, std::optional<int16_t> fence_epoch, TxnCallback done);
  // Carries a transaction loaded in a Prepare state on from its markers.
  // REQUIRES: its entry is pending.
  void resume(const std::string& transactional_id);
  // Arms `e`'s timeout at its start + timeout, not before `not_before`. When it fires on
  // an Ongoing transaction, that transaction is aborted with the epoch bumped.
  void arm_timeout(TxnEntry& e, int64_t not_before);
  // Answers every waiting EndTxn with kCoordinatorNotAvailable; later completions do
  // nothing (the caller drops the timers).
  void shutdown();

  // The epoch that fences a producer at `epoch`: the next one, while there is one.
  static int16_t fencing_epoch(int16_t epoch);

 private:
  void send_markers(const std::string& transactional_id);
  void commit_offsets(const std::string& transactional_id);
  void complete(const std::string& transactional_id);
  void retry_later(const std::string& transactional_id, void (TxnCompleter::*step)(const std::string&));
  void release_staged(const TxnMetadata& meta);
  void on_timeout(const std::string& transactional_id);

  int64_t retry_backoff_ms_;
  const Clock& clock_;
  Post post_;
  WriteMarkers write_markers_;
  TxnStore& txns_;
  TimerQueue& timers_;
  GroupCoordinator& groups_;
  bool stopped_ = false;
};

}  // namespace rokka::coordinator
