#include "broker/records/fetch_waiters.h"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace rokka::broker {

std::shared_ptr<FetchWaiters::Waiter> FetchWaiters::add(std::span<const uint64_t> partitions,
                                                        boost::asio::any_io_executor ex) {
  auto w = std::make_shared<Waiter>(std::move(ex));
  std::lock_guard lock(mu_);
  for (auto p : partitions) by_partition_[p].push_back(w);
  return w;
}

void FetchWaiters::remove(const std::shared_ptr<Waiter>& waiter, std::span<const uint64_t> partitions) {
  std::lock_guard lock(mu_);
  for (auto p : partitions) {
    auto it = by_partition_.find(p);
    if (it == by_partition_.end()) continue;
    auto& v = it->second;
    std::erase_if(v, [&](const std::weak_ptr<Waiter>& w) {  // this one, and any gone without remove()
      return w.expired() || (!w.owner_before(waiter) && !waiter.owner_before(w));
    });
    if (v.empty()) by_partition_.erase(it);
  }
}

void FetchWaiters::wake(const std::weak_ptr<Waiter>& waiter) {
  std::shared_ptr<Waiter> w = waiter.lock();
  if (!w || w->woken.exchange(true)) return;
  boost::asio::post(w->timer.get_executor(), [w] { w->timer.cancel(); });
}

void FetchWaiters::notify(StoreSlot slot, std::span<const storage::PartitionId> partitions) {
  std::lock_guard lock(mu_);
  if (by_partition_.empty()) return;
  for (auto p : partitions) {
    auto it = by_partition_.find(partition_key(slot, p));
    if (it == by_partition_.end()) continue;
    for (const auto& w : it->second) wake(w);
  }
}

void FetchWaiters::notify_all() {
  std::lock_guard lock(mu_);
  for (auto& [p, v] : by_partition_)
    for (const auto& w : v) wake(w);
}

}  // namespace rokka::broker
