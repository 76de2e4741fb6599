// FetchWaiters: long-polling Fetch requests parked until data arrives.
// A Fetch that found less than min_bytes registers on its partitions and waits on
// a timer (max_wait_ms); the store's append listener (writer thread) calls
// notify() with the partitions that grew, which wakes those waiters at once.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "storage/types.h"

namespace rokka::broker {

class FetchWaiters {
 public:
  struct Waiter {
    explicit Waiter(boost::asio::any_io_executor ex) : timer(ex) {}
    boost::asio::steady_timer timer;  // touched only on its executor
    std::atomic<bool> woken{false};
  };

  // Registers a waiter for `partitions`; its timer lives on `ex`. Call remove() after.
  std::shared_ptr<Waiter> add(std::span<const storage::PartitionId> partitions, boost::asio::any_io_executor ex);
  void remove(const std::shared_ptr<Waiter>& waiter, std::span<const storage::PartitionId> partitions);

  // Wakes every waiter on any of `partitions`. Any thread.
  void notify(std::span<const storage::PartitionId> partitions);
  // Wakes everyone (shutdown).
  void notify_all();

 private:
  static void wake(const std::shared_ptr<Waiter>& w);

  std::mutex mu_;
  std::unordered_map<storage::PartitionId, std::vector<std::shared_ptr<Waiter>>> by_partition_;
};

}  // namespace rokka::broker
