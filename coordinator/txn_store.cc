#include "coordinator/txn_store.h"

#include <utility>

#include "coordinator/log.h"
#include "coordinator/txn_records.h"

namespace rokka::coordinator {

const TxnEntry* TxnStore::find(std::string_view transactional_id) const {
  auto it = entries_.find(std::string(transactional_id));
  return it == entries_.end() ? nullptr : it->second.get();
}

TxnEntry& TxnStore::add(TxnMetadata meta) {
  auto e = std::make_unique<TxnEntry>();
  e->meta = std::move(meta);
  const std::string id = e->meta.transactional_id;
  return *(entries_[id] = std::move(e));
}

void TxnStore::transition(TxnEntry& e, TxnMetadata next, TxnCallback done, bool stay_pending) {
  e.pending = true;
  const std::string id = e.meta.transactional_id;
  std::vector<storage::MetaStore::Mutation> batch;
  batch.push_back({encode_txn_key(id), encode_txn_value(next), false});
  writer_.write(std::move(batch), [this, id, next = std::move(next), done = std::move(done),
                                   stay_pending](storage::Status status) mutable {
    TxnEntry* e = find(id);  // a pending id is never removed
    if (!status.ok()) {
      log().warn("transaction state not stored: transactional_id={} state={} error={}", id,
                 txn_state_name(next.state), status.to_string());
      e->pending = false;
      return done(TxnError::kStorageError);
    }
    e->meta = std::move(next);
    e->pending = stay_pending;
    done(TxnError::kNone);
  });
}

size_t TxnStore::expire_idle(int64_t now_ms, int64_t ttl_ms) {
  std::vector<storage::MetaStore::Mutation> batch;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const TxnEntry& e = *it->second;
    const bool idle = e.meta.state == TxnState::kEmpty || e.meta.state == TxnState::kCompleteCommit ||
                      e.meta.state == TxnState::kCompleteAbort;
    if (!e.pending && idle && now_ms - e.meta.update_ms >= ttl_ms) {
      batch.push_back({encode_txn_key(it->first), std::string(), true});
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  if (batch.empty()) return 0;
  const size_t expired = batch.size();
  log().info("transactional ids expired: count={}", expired);
  writer_.write(std::move(batch), [](storage::Status status) {
    if (!status.ok()) log().warn("transactional id expiry not stored: error={}", status.to_string());
  });
  return expired;
}

}  // namespace rokka::coordinator
