// TransactionCoordinator: every transactional id of the broker -- Kafka's transaction
// coordinator (KIP-98, KIP-360, KIP-588) for one broker: InitProducerId with a
// transactional id, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn,
// transaction timeouts and transactional-id expiry.
//
// PURE LOGIC, single-threaded: every method runs on the strand it shares with the
// GroupCoordinator (TransactionService provides it), so transactional offsets are handed
// to the group coordinator by direct calls. Time comes from the injected clock; deadlines
// live in a TimerQueue and fire from run_due_timers(). Completions of the MetaStore, of
// producer-id allocation and of marker writes come back through `post` (to the strand).
//
// State machine (Kafka's TransactionMetadata): Empty -> Ongoing (first partition or group
// added) -> PrepareCommit | PrepareAbort (EndTxn, a timeout, or a newer producer fencing
// this one) -> CompleteCommit | CompleteAbort -> Ongoing (next transaction) ... Every
// transition is written to the MetaStore ("x/" records) and applied once durable; while a
// write is in flight the id is "pending" and other requests get CONCURRENT_TRANSACTIONS.
//
// Its parts: TxnStore (txn_store.h) holds each id's metadata and writes its transitions;
// TxnCompleter (txn_completer.h) ends transactions and owns their timeouts; this class
// answers the APIs, decides InitProducerId's epochs and fencing, and expires idle ids.
//
// Ending a transaction (TxnCompleter): the Prepare record is made durable, then one
// COMMIT/ABORT marker per partition (WriteMarkers: the broker builds control batches and
// appends them), then on commit the staged offsets become committed offsets
// (GroupCoordinator), then the Complete record. EndTxn is answered after the Complete
// record is durable -- later than Kafka (which answers after the Prepare record and sends
// markers in the background) but the client then never sees CONCURRENT_TRANSACTIONS from
// its next transaction. A marker
// or offset write that fails is retried after retry_backoff_ms while the EndTxn waits.
// After a restart, transactions found in a Prepare state are resumed the same way, once
// the group coordinator has loaded; Ongoing ones keep their timeout.
//
// Fencing: a timed-out transaction, or an ongoing one whose transactional id is
// initialized again, is aborted with the epoch bumped, so the markers fence the old
// producer on every partition it wrote (storage refuses its older epoch); an
// InitProducerId that fenced answers CONCURRENT_TRANSACTIONS and its retry bumps again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/durable_writer.h"
#include "coordinator/group_coordinator.h"
#include "coordinator/timer_queue.h"
#include "coordinator/txn_completer.h"
#include "coordinator/txn_records.h"
#include "coordinator/txn_store.h"
#include "coordinator/txn_types.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

struct TxnCoordinatorOptions {
  int32_t max_timeout_ms = 900000;                        // transaction.max.timeout.ms
  int64_t id_expiration_ms = 7 * 24 * 3600 * 1000LL;      // transactional.id.expiration.ms
  int64_t id_expiration_check_interval_ms = 3600000;      // transaction.remove.expired.transaction.cleanup.interval.ms
  int64_t retry_backoff_ms = 1000;                        // a failed marker or offset write is retried after this
  int32_t offset_metadata_max_bytes = 4096;               // offset.metadata.max.bytes
};

class TransactionCoordinator {
 public:
  using Clock = coordinator::Clock;  // milliseconds
  // Hands out a fresh producer id; `done` may run on any thread, at once or later.
  using AllocateProducerId = std::function<void(std::function<void(storage::Result<int64_t>)>)>;
  using WriteMarkers = TxnCompleter::WriteMarkers;  // one marker per partition

  TransactionCoordinator(TxnCoordinatorOptions options, storage::MetaStore& meta, Clock clock_ms, Post post,
                         AllocateProducerId allocate, WriteMarkers write_markers, GroupCoordinator& groups);
  TransactionCoordinator(const TransactionCoordinator&) = delete;
  TransactionCoordinator& operator=(const TransactionCoordinator&) = delete;

  // ---- start-up and shutdown ----
  bool loaded() const { return loaded_; }
  // Takes the records read by load_transactions() and starts serving; until then every
  // API answers kCoordinatorLoadInProgress.
  void install(LoadedTxns loaded);
  // Answers waiting EndTxn requests with kCoordinatorNotAvailable and drops all timers;
  // every later call gets kCoordinatorNotAvailable. Writes in flight still complete.
  void shutdown();

  // ---- the APIs (each callback is called exactly once, possibly before returning) ----
  void init_producer_id(InitProducerIdArgs args, std::function<void(InitProducerIdResult)> done);
  void add_partitions(ProducerRef producer, std::vector<TopicPartition> partitions, TxnCallback done);
  void add_offsets(ProducerRef producer, std::string group_id, TxnCallback done);
  void txn_offset_commit(TxnOffsetCommitArgs args, std::function<void(TxnOffsetCommitResult)> done);
  void end_txn(ProducerRef producer, bool commit, TxnCallback done);
  // May `producer` append transactional batches to `partitions` now? Its transaction
  // must be Ongoing with every partition added. Synchronous, so the caller queues its
  // append within the same strand turn: any marker of a later EndTxn is queued after it.
  TxnError check_produce(const ProducerRef& producer, const std::vector<TopicPartition>& partitions) const;

  // ---- timers ----
  std::optional<int64_t> next_deadline() const { return timers_.next_deadline(); }
  size_t run_due_timers() { return timers_.run_due(clock_()); }

  // ---- DescribeTransactions, ListTransactions ----
  TxnDescription describe(std::string_view transactional_id) const;  // dead ids are not found
  TxnListResult list(const TxnListFilter& filter) const;              // dead ids are never listed

  // ---- introspection (tests) ----
  const TxnMetadata* find(std::string_view transactional_id) const;
  bool pending(std::string_view transactional_id) const;
  size_t size() const { return txns_.size(); }

 private:
  using Entry = TxnEntry;

  TxnError serving() const;
  // Checks a request against the id's current producer: mapping, epoch, pending.
  TxnError check_producer(const Entry* e, const ProducerRef& producer) const;

  // InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn
  void init_known(Entry& e, const InitProducerIdArgs& args, std::function<void(InitProducerIdResult)> done);
  void rotate_producer_id(const InitProducerIdArgs& args, std::function<void(InitProducerIdResult)> done);
  void write_new_epoch(Entry& e, TxnMetadata next, std::function<void(InitProducerIdResult)> done);
  void add_to_transaction(Entry& e, TxnMetadata next, TxnCallback done);

  // transactional.id.expiration.ms, one pass every check interval
  void schedule_expiry();
  void expire_ids();

  TxnCoordinatorOptions options_;
  Clock clock_;
  DurableWriter writer_;
  Post post_;
  AllocateProducerId allocate_;
  GroupCoordinator& groups_;
  TimerQueue timers_;
  TxnStore txns_;
  TxnCompleter completer_;  // ends transactions (txn_completer.h)
  bool loaded_ = false;
  bool shut_down_ = false;
};

}  // namespace rokka::coordinator
