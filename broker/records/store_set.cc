#include "broker/records/store_set.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace rokka::broker {

void StoreSet::append(std::span<const StoreSlot> slots, std::vector<storage::AppendRequest> requests,
                      storage::AppendCallback done) const {
  using Results = std::vector<storage::Result<storage::AppendInfo>>;
  bool one_store = true;
  for (StoreSlot s : slots) one_store = one_store && s == slots.front();
  if (requests.empty() || one_store) {
    storage::Store* store = at(slots.empty() ? kRootSlot : slots.front());
    if (store == nullptr)
      return done(Results(requests.size(), storage::Status::not_found("no store in this slot")));
    return store->append(std::move(requests), std::move(done));
  }
  // Several stores: each gets its share, and the results go back to their request's place.
  struct Gather {
    Results results;
    std::atomic<size_t> pending{0};
    storage::AppendCallback done;
  };
  auto gather = std::make_shared<Gather>();
  gather->results.assign(requests.size(), storage::Status::not_found("no store in this slot"));
  gather->done = std::move(done);
  std::vector<std::vector<size_t>> by_slot(entries_.size());
  for (size_t i = 0; i < requests.size(); ++i)
    if (slots[i] < entries_.size()) by_slot[slots[i]].push_back(i);
  size_t stores = 0;
  for (const auto& at_slot : by_slot) stores += at_slot.empty() ? 0 : 1;
  gather->pending.store(stores + 1);  // +1: held until every append is queued
  auto finish = [gather] {
    if (gather->pending.fetch_sub(1) == 1) gather->done(std::move(gather->results));
  };
  for (size_t slot = 0; slot < by_slot.size(); ++slot) {
    if (by_slot[slot].empty()) continue;
    std::vector<storage::AppendRequest> mine;
    mine.reserve(by_slot[slot].size());
    for (size_t i : by_slot[slot]) mine.push_back(requests[i]);
    entries_[slot].store->append(std::move(mine), [gather, finish, where = by_slot[slot]](Results r) {
      for (size_t k = 0; k < where.size() && k < r.size(); ++k) gather->results[where[k]] = std::move(r[k]);
      finish();
    });
  }
  finish();
}

}  // namespace rokka::broker
