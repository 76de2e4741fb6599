// TransactionCoordinator: start-up, InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
// TxnOffsetCommit, EndTxn, the Produce check and id expiry. The ending of a transaction
// (Prepare -> markers -> offsets -> Complete) and its timeout: txn_completer.cc.
#include "coordinator/transaction_coordinator.h"

#include <algorithm>
#include <limits>

#include "coordinator/log.h"

namespace rokka::coordinator {

namespace {

// Kafka's TransactionMetadata.isEpochExhausted: the last epochs are kept for fencing.
bool epoch_exhausted(int16_t epoch) { return epoch >= std::numeric_limits<int16_t>::max() - 1; }

// The metadata of a freshly (re)initialized producer: no transaction, nothing in it.
TxnMetadata initialized(const TxnMetadata& from, int32_t timeout_ms, int64_t now) {
  TxnMetadata next = from;
  next.state = TxnState::kEmpty;
  next.timeout_ms = timeout_ms;
  next.partitions.clear();
  next.groups.clear();
  next.start_ms = -1;
  next.update_ms = now;
  return next;
}

}  // namespace

TransactionCoordinator::TransactionCoordinator(TxnCoordinatorOptions options, storage::MetaStore& meta, Clock clock_ms,
                                               Post post, AllocateProducerId allocate, WriteMarkers write_markers,
                                               GroupCoordinator& groups)
    : options_(options),
      clock_(std::move(clock_ms)),
      writer_(meta, post),
      post_(post),
      allocate_(std::move(allocate)),
      groups_(groups),
      txns_(writer_),
      completer_(options_.retry_backoff_ms, clock_, std::move(post), std::move(write_markers), txns_, timers_,
                 groups_) {}

// ---------------------------------------------------------------------------------------
// Start-up and shutdown

void TransactionCoordinator::install(LoadedTxns loaded) {
  std::vector<std::string> resume;
  for (TxnMetadata& meta : loaded.txns) {
    Entry& entry = txns_.add(std::move(meta));
    for (const auto& [group, offsets] : entry.meta.groups) {
      std::vector<TopicPartition> tps;
      for (const auto& [tp, offset] : offsets) tps.push_back(tp);
      groups_.stage_txn_offsets(group, tps);
    }
    if (entry.meta.state == TxnState::kOngoing) completer_.arm_timeout(entry, 0);
    if (entry.meta.state == TxnState::kPrepareCommit || entry.meta.state == TxnState::kPrepareAbort) {
      entry.pending = true;
      resume.push_back(entry.meta.transactional_id);
    }
  }
  loaded_ = true;
  schedule_expiry();
  log().info("transaction state installed: transactional_ids={} resuming={} skipped_records={}", txns_.size(),
             resume.size(), loaded.skipped_records);
  if (resume.empty()) return;
  // Committing staged offsets needs the group coordinator's offsets loaded first.
  groups_.when_loaded([this, resume = std::move(resume)] {
    for (const std::string& id : resume) completer_.resume(id);
  });
}

void TransactionCoordinator::shutdown() {
  shut_down_ = true;
  completer_.shutdown();
  timers_ = TimerQueue();
}

TxnError TransactionCoordinator::serving() const {
  if (shut_down_) return TxnError::kCoordinatorNotAvailable;
  if (!loaded_) return TxnError::kCoordinatorLoadInProgress;
  return TxnError::kNone;
}

const TxnMetadata* TransactionCoordinator::find(std::string_view transactional_id) const {
  const Entry* e = txns_.find(transactional_id);
  return e == nullptr ? nullptr : &e->meta;
}

TxnDescription TransactionCoordinator::describe(std::string_view transactional_id) const {
  TxnDescription out;
  out.meta.transactional_id = std::string(transactional_id);
  out.error = serving();
  if (out.error != TxnError::kNone) return out;
  const TxnMetadata* meta = find(transactional_id);
  if (meta == nullptr || meta->state == TxnState::kDead) {
    out.error = TxnError::kTransactionalIdNotFound;
    return out;
  }
  out.meta = *meta;
  return out;
}

TxnListResult TransactionCoordinator::list(const TxnListFilter& filter) const {
  TxnListResult out;
  out.error = serving();
  if (out.error != TxnError::kNone) return out;
  const int64_t now = clock_();
  txns_.for_each([&](const Entry& e) {
    const TxnMetadata& m = e.meta;
    if (m.state == TxnState::kDead) return;
    if (filter.states && std::find(filter.states->begin(), filter.states->end(), m.state) == filter.states->end())
      return;
    if (!filter.producer_ids.empty() &&
        std::find(filter.producer_ids.begin(), filter.producer_ids.end(), m.producer_id) == filter.producer_ids.end())
      return;
    if (filter.longer_than_ms >= 0 && (m.start_ms < 0 || now - m.start_ms <= filter.longer_than_ms)) return;
    out.txns.push_back(m);
  });
  std::sort(out.txns.begin(), out.txns.end(),
            [](const TxnMetadata& a, const TxnMetadata& b) { return a.transactional_id < b.transactional_id; });
  return out;
}

bool TransactionCoordinator::pending(std::string_view transactional_id) const {
  const Entry* e = txns_.find(transactional_id);
  return e != nullptr && e->pending;
}

TxnError TransactionCoordinator::check_producer(const Entry* e, const ProducerRef& producer) const {
  if (producer.transactional_id.empty()) return TxnError::kInvalidRequest;
  if (e == nullptr || e->meta.producer_id != producer.producer_id) return TxnError::kInvalidProducerIdMapping;
  if (e->meta.producer_epoch != producer.producer_epoch) return TxnError::kProducerFenced;
  if (e->pending) return TxnError::kConcurrentTransactions;
  return TxnError::kNone;
}

// ---------------------------------------------------------------------------------------
// InitProducerId

void TransactionCoordinator::init_producer_id(InitProducerIdArgs args,
                                              std::function<void(InitProducerIdResult)> done) {
  if (TxnError e = serving(); e != TxnError::kNone) return done({e});
  if (args.transactional_id.empty()) return done({TxnError::kInvalidRequest});
  if (args.transaction_timeout_ms <= 0 || args.transaction_timeout_ms > options_.max_timeout_ms)
    return done({TxnError::kInvalidTransactionTimeout});
  if (Entry* e = txns_.find(args.transactional_id)) return init_known(*e, args, std::move(done));
  // A new transactional id: it gets a fresh producer id, and epoch 0 below.
  allocate_([this, args, done](storage::Result<int64_t> id) {
    post_([this, args, done, id]() mutable {
      if (TxnError e = serving(); e != TxnError::kNone) return done({e});
      if (!id.ok()) return done({TxnError::kStorageError});
      Entry* e = txns_.find(args.transactional_id);
      if (e == nullptr) {  // else another InitProducerId created it meanwhile: this id is unused
        TxnMetadata created;
        created.transactional_id = args.transactional_id;
        created.producer_id = *id;
        created.timeout_ms = args.transaction_timeout_ms;
        created.update_ms = clock_();
        e = &txns_.add(std::move(created));
      }
      init_known(*e, args, std::move(done));
    });
  });
}

void TransactionCoordinator::init_known(Entry& e, const InitProducerIdArgs& args,
                                        std::function<void(InitProducerIdResult)> done) {
  const TxnMetadata& m = e.meta;
  const bool expected = args.producer_id >= 0;  // KIP-360: the producer says who it was
  if (e.pending) return done({TxnError::kConcurrentTransactions});
  // Fence unless the id is new, the producer id is current, or it is a retry of a
  // rotation that exhausted the old id's epochs.
  if (expected && m.producer_epoch != -1 && args.producer_id != m.producer_id &&
      !(args.producer_id == m.last_producer_id && epoch_exhausted(args.producer_epoch)))
    return done({TxnError::kProducerFenced});
  switch (m.state) {
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      return done({TxnError::kConcurrentTransactions});
    case TxnState::kOngoing: {
      // Abort it with a bumped epoch first (fencing the old producer); the client retries
      // and its retry bumps the epoch again.
      const int16_t fence = TxnCompleter::fencing_epoch(m.producer_epoch);
      log().info("fencing ongoing transaction: transactional_id={} producer_id={} epoch={}", m.transactional_id,
                 m.producer_id, fence);
      completer_.end(e, false, fence, nullptr);
      return done({TxnError::kConcurrentTransactions});
    }
    case TxnState::kEmpty:
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
      break;
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      return done({TxnError::kInvalidTxnState});  // never held by a live id
  }
  if (epoch_exhausted(m.producer_epoch) && (!expected || args.producer_epoch == m.producer_epoch))
    return rotate_producer_id(args, std::move(done));
  // Kafka's prepareIncrementProducerEpoch.
  TxnMetadata next = initialized(m, args.transaction_timeout_ms, clock_());
  if (!expected) {
    next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
    next.last_producer_epoch = -1;
  } else if (m.producer_epoch == -1 || args.producer_epoch == m.producer_epoch) {
    next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
    next.last_producer_epoch = m.producer_epoch;
  } else if (args.producer_epoch != m.last_producer_epoch) {
    return done({TxnError::kProducerFenced});
  }  // else: a retry of a bump that succeeded: the current epoch again
  write_new_epoch(e, std::move(next), std::move(done));
}

void TransactionCoordinator::rotate_producer_id(const InitProducerIdArgs& args,
                                                std::function<void(InitProducerIdResult)> done) {
  allocate_([this, args, done](storage::Result<int64_t> id) {
    post_([this, args, done, id]() mutable {
      if (TxnError e = serving(); e != TxnError::kNone) return done({e});
      if (!id.ok()) return done({TxnError::kStorageError});
      Entry* e = txns_.find(args.transactional_id);
      if (e == nullptr || e->pending || e->meta.state == TxnState::kOngoing ||
          e->meta.state == TxnState::kPrepareCommit || e->meta.state == TxnState::kPrepareAbort)
        return done({TxnError::kConcurrentTransactions});  // changed meanwhile: retry
      TxnMetadata next = initialized(e->meta, args.transaction_timeout_ms, clock_());
      next.last_producer_id = e->meta.producer_id;
      next.producer_id = *id;
      next.producer_epoch = 0;
      next.last_producer_epoch = args.producer_id >= 0 ? e->meta.producer_epoch : int16_t{-1};
      log().info("producer id rotated: transactional_id={} old={} new={}", args.transactional_id,
                 e->meta.producer_id, *id);
      write_new_epoch(*e, std::move(next), std::move(done));
    });
  });
}

void TransactionCoordinator::write_new_epoch(Entry& e, TxnMetadata next,
                                             std::function<void(InitProducerIdResult)> done) {
  const int64_t producer_id = next.producer_id;
  const int16_t epoch = next.producer_epoch;
  const std::string id = next.transactional_id;
  txns_.transition(e, std::move(next), [id, producer_id, epoch, done = std::move(done)](TxnError error) {
    if (error != TxnError::kNone) return done({error});
    log().info("transactional producer initialized: transactional_id={} producer_id={} epoch={}", id, producer_id,
               epoch);
    done({TxnError::kNone, producer_id, epoch});
  });
}

// ---------------------------------------------------------------------------------------
// AddPartitionsToTxn, AddOffsetsToTxn

void TransactionCoordinator::add_partitions(ProducerRef producer, std::vector<TopicPartition> partitions,
                                            TxnCallback done) {
  if (TxnError e = serving(); e != TxnError::kNone) return done(e);
  Entry* e = txns_.find(producer.transactional_id);
  if (TxnError err = check_producer(e, producer); err != TxnError::kNone) return done(err);
  TxnMetadata next = e->meta;
  next.partitions.insert(partitions.begin(), partitions.end());
  if (e->meta.state == TxnState::kOngoing && next.partitions.size() == e->meta.partitions.size())
    return done(TxnError::kNone);  // all there already
  add_to_transaction(*e, std::move(next), std::move(done));
}

void TransactionCoordinator::add_offsets(ProducerRef producer, std::string group_id, TxnCallback done) {
  if (TxnError e = serving(); e != TxnError::kNone) return done(e);
  Entry* e = txns_.find(producer.transactional_id);
  if (TxnError err = check_producer(e, producer); err != TxnError::kNone) return done(err);
  if (e->meta.state == TxnState::kOngoing && e->meta.groups.count(group_id) != 0) return done(TxnError::kNone);
  TxnMetadata next = e->meta;
  next.groups[group_id];
  add_to_transaction(*e, std::move(next), std::move(done));
}

void TransactionCoordinator::add_to_transaction(Entry& e, TxnMetadata next, TxnCallback done) {
  switch (e.meta.state) {
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      return done(TxnError::kConcurrentTransactions);
    case TxnState::kOngoing:
      break;
    case TxnState::kEmpty:
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
      next.start_ms = clock_();  // a new transaction begins
      break;
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      return done(TxnError::kInvalidTxnState);
  }
  next.state = TxnState::kOngoing;
  next.update_ms = clock_();
  const std::string id = next.transactional_id;
  txns_.transition(e, std::move(next), [this, id, done = std::move(done)](TxnError error) {
    if (error == TxnError::kNone) {
      Entry* e = txns_.find(id);
      if (e->timeout_timer == TimerQueue::kNone) completer_.arm_timeout(*e, 0);
    }
    done(error);
  });
}

// ---------------------------------------------------------------------------------------
// TxnOffsetCommit

void TransactionCoordinator::txn_offset_commit(TxnOffsetCommitArgs args,
                                               std::function<void(TxnOffsetCommitResult)> done) {
  TxnOffsetCommitResult result;
  result.partitions.assign(args.offsets.size(), GroupError::kNone);
  auto fail = [&](TxnError e) {
    result.txn_error = e;
    done(std::move(result));
  };
  if (TxnError e = serving(); e != TxnError::kNone) return fail(e);
  Entry* e = txns_.find(args.producer.transactional_id);
  if (TxnError err = check_producer(e, args.producer); err != TxnError::kNone) return fail(err);
  // The group must have been added (AddOffsetsToTxn) to this ongoing transaction.
  if (e->meta.state != TxnState::kOngoing || e->meta.groups.count(args.group_id) == 0)
    return fail(TxnError::kInvalidTxnState);
  result.group_error =
      groups_.check_txn_offset_commit(args.group_id, args.generation_id, args.member_id, args.group_instance_id);
  if (result.group_error != GroupError::kNone) return done(std::move(result));

  const int64_t now = clock_();
  TxnMetadata next = e->meta;
  StagedOffsets& staged = next.groups[args.group_id];
  std::vector<TopicPartition> added;
  for (size_t i = 0; i < args.offsets.size(); ++i) {
    auto& [tp, offset] = args.offsets[i];
    if (offset.metadata.size() > static_cast<size_t>(options_.offset_metadata_max_bytes)) {
      result.partitions[i] = GroupError::kOffsetMetadataTooLarge;
      continue;
    }
    offset.commit_timestamp_ms = now;
    offset.expire_timestamp_ms = -1;
    if (staged.count(tp) == 0) added.push_back(tp);
    staged[tp] = std::move(offset);
  }
  if (next.groups == e->meta.groups) return done(std::move(result));  // nothing new to stage
  next.update_ms = now;
  txns_.transition(*e, std::move(next),
             [this, group = args.group_id, added = std::move(added), result = std::move(result),
              done = std::move(done)](TxnError error) mutable {
               if (error != TxnError::kNone) {
                 result.txn_error = error;
               } else {
                 groups_.stage_txn_offsets(group, added);
               }
               done(std::move(result));
             });
}

// ---------------------------------------------------------------------------------------
// Produce

TxnError TransactionCoordinator::check_produce(const ProducerRef& producer,
                                               const std::vector<TopicPartition>& partitions) const {
  if (TxnError e = serving(); e != TxnError::kNone) return e;
  if (producer.transactional_id.empty()) return TxnError::kInvalidRequest;
  const Entry* e = txns_.find(producer.transactional_id);
  if (e == nullptr || e->meta.producer_id != producer.producer_id) return TxnError::kInvalidProducerIdMapping;
  const TxnMetadata& m = e->meta;
  if (m.producer_epoch != producer.producer_epoch) return TxnError::kProducerFenced;
  if (m.state != TxnState::kOngoing) return TxnError::kInvalidTxnState;
  for (const TopicPartition& tp : partitions)
    if (m.partitions.count(tp) == 0) return TxnError::kInvalidTxnState;
  return TxnError::kNone;
}

// ---------------------------------------------------------------------------------------
// EndTxn (the ending itself: TxnCompleter)

void TransactionCoordinator::end_txn(ProducerRef producer, bool commit, TxnCallback done) {
  if (TxnError e = serving(); e != TxnError::kNone) return done(e);
  Entry* e = txns_.find(producer.transactional_id);
  if (TxnError err = check_producer(e, producer); err != TxnError::kNone) return done(err);
  switch (e->meta.state) {
    case TxnState::kOngoing:
      return completer_.end(*e, commit, std::nullopt, std::move(done));
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

// ---------------------------------------------------------------------------------------
// Transactional-id expiry

void TransactionCoordinator::schedule_expiry() {
  timers_.schedule(clock_() + options_.id_expiration_check_interval_ms, [this] {
    expire_ids();
    schedule_expiry();
  });
}

void TransactionCoordinator::expire_ids() { txns_.expire_idle(clock_(), options_.id_expiration_ms); }

}  // namespace rokka::coordinator
