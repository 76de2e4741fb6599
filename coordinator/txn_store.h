// TxnStore: every transactional id's metadata, in memory and durable in the MetaStore
// ("x/" records, coordinator/txn_records.h), with what the strand keeps beside it.
//
// A transition is written first and applied once durable. While it is in flight the id
// is pending: the transaction coordinator answers other requests for it with
// CONCURRENT_TRANSACTIONS, and a pending id is never removed, so a completion always
// finds its entry. Not thread-safe: the coordinator's strand only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/durable_writer.h"
#include "coordinator/timer_queue.h"
#include "coordinator/txn_types.h"

namespace rokka::coordinator {

struct TxnEntry {
  TxnMetadata meta;                                  // as durable
  bool pending = false;                              // a transition is being written, or the transaction ended
  TimerQueue::Id timeout_timer = TimerQueue::kNone;  // the Ongoing transaction's timeout (TxnCompleter's)
  std::vector<TxnCallback> on_complete;              // EndTxn requests waiting for the Complete record
};

class TxnStore {
 public:
  explicit TxnStore(DurableWriter& writer) : writer_(writer) {}
  TxnStore(const TxnStore&) = delete;
  TxnStore& operator=(const TxnStore&) = delete;

  const TxnEntry* find(std::string_view transactional_id) const;
  TxnEntry* find(std::string_view transactional_id) {
    return const_cast<TxnEntry*>(static_cast<const TxnStore&>(*this).find(transactional_id));
  }
  // A new id's entry, as loaded or not yet written. REQUIRES: no entry for its id.
  TxnEntry& add(TxnMetadata meta);
  size_t size() const { return entries_.size(); }
  // Calls fn(TxnEntry&) (fn(const TxnEntry&)) for every entry, in no particular order.
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (auto& [id, e] : entries_) fn(*e);
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [id, e] : entries_) fn(static_cast<const TxnEntry&>(*e));
  }

  // Writes `next` as the entry's metadata and applies it once durable: done(kNone), or
  // done(kStorageError) with nothing changed. The entry is pending meanwhile, and stays
  // pending afterwards if `stay_pending`.
  void transition(TxnEntry& e, TxnMetadata next, TxnCallback done, bool stay_pending = false);
  // Removes every idle id (Empty or Complete*, not pending) last updated `ttl_ms` or more
  // before `now_ms` (transactional.id.expiration.ms), writing their erasures. Returns how
  // many went.
  size_t expire_idle(int64_t now_ms, int64_t ttl_ms);

 private:
  DurableWriter& writer_;
  std::unordered_map<std::string, std::unique_ptr<TxnEntry>> entries_;
};

}  // namespace rokka::coordinator
