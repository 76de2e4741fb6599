// FetchWaiters: long-polling Fetch requests parked until data arrives.
// A Fetch that found less than min_bytes registers on its partitions and waits on
// a timer (max_wait_ms); each store's append listener (its writer thread) calls
// notify() with its slot and the partitions that grew, which wakes those waiters at once.
// Partitions are keyed by partition_key(slot, pid) (broker/records/store_set.h): a pid
// alone names different partitions in different stores.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "broker/records/store_set.h"
#include "storage/types.h"

namespace rokka::broker {

class FetchWaiters {
 public:
  struct Waiter {
    explicit Waiter(boost::asio::any_io_executor ex) : timer(ex) {}
    boost::asio::steady_timer timer;  // touched only on its executor
    std::atomic<bool> woken{false};
  };

  // Registers a waiter for `partitions` (partition_key()s); its timer lives on `ex`. Call
  // remove() after. The caller owns the waiter (FetchWaiters only refers to it): a waiting
  // Fetch whose io_context goes first takes its timer with it, not after.
  std::shared_ptr<Waiter> add(std::span<const uint64_t> partitions, boost::asio::any_io_executor ex);
  void remove(const std::shared_ptr<Waiter>& waiter, std::span<const uint64_t> partitions);

  // Wakes every waiter on any of `partitions` of the store in `slot`. Any thread.
  void notify(StoreSlot slot, std::span<const storage::PartitionId> partitions);
  // Wakes everyone (shutdown).
  void notify_all();

 private:
  static void wake(const std::weak_ptr<Waiter>& waiter);

  std::mutex mu_;
  std::unordered_map<uint64_t, std::vector<std::weak_ptr<Waiter>>> by_partition_;
};

}  // namespace rokka::broker
