// FetchWaiters alone, on a real io_context: who wakes a parked Fetch, and who owns it.
#include "broker/records/fetch_waiters.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace rokka::broker {
namespace {

using namespace std::chrono_literals;

// A parked Fetch as the handler makes it: a waiter whose timer waits out max_wait_ms.
struct Parked {
  std::shared_ptr<FetchWaiters::Waiter> waiter;
  std::optional<boost::system::error_code> ended;  // set when the timer's wait completes
};

void park(FetchWaiters& waiters, boost::asio::io_context& io, const std::vector<uint64_t>& keys, Parked& parked) {
  parked.waiter = waiters.add(keys, io.get_executor());
  parked.waiter->timer.expires_after(60s);
  parked.waiter->timer.async_wait([&parked](boost::system::error_code ec) { parked.ended = ec; });
}

TEST(FetchWaitersTest, AnAppendWakesTheWaitersOnItsPartitionsOnly) {
  boost::asio::io_context io;
  FetchWaiters waiters;
  Parked on_a, on_b;
  park(waiters, io, {partition_key(0, 1)}, on_a);
  park(waiters, io, {partition_key(0, 2)}, on_b);
  const std::vector<storage::PartitionId> grown{1};
  waiters.notify(0, grown);
  io.run_for(200ms);
  ASSERT_TRUE(on_a.ended.has_value());
  EXPECT_EQ(*on_a.ended, boost::asio::error::operation_aborted);  // woken before its 60 s
  EXPECT_FALSE(on_b.ended.has_value());
  // The same partition id in another store is another partition.
  waiters.notify(1, std::vector<storage::PartitionId>{2});
  io.run_for(100ms);
  EXPECT_FALSE(on_b.ended.has_value());
  waiters.remove(on_a.waiter, std::vector<uint64_t>{partition_key(0, 1)});
  on_b.waiter->timer.cancel();
  io.run();
}

TEST(FetchWaitersTest, AWaiterBelongsToItsFetchNotToTheRegistry) {
  // A Fetch parked when the broker stops may never run remove(): its io_context is destroyed
  // with the handler. The registry must not keep its timer alive past that io_context (the
  // timer's destructor would then reach into the freed context; valgrind showed it at shutdown).
  FetchWaiters waiters;
  std::weak_ptr<FetchWaiters::Waiter> seen;
  {
    boost::asio::io_context io;
    auto w = waiters.add(std::vector<uint64_t>{partition_key(0, 7)}, io.get_executor());
    seen = w;
  }
  EXPECT_TRUE(seen.expired());
  // Waking a partition whose waiter is gone does nothing (and touches no freed timer).
  waiters.notify(0, std::vector<storage::PartitionId>{7});
  waiters.notify_all();
}

TEST(FetchWaitersTest, RemoveForgetsTheWaiterAndTheOnesThatWentWithoutIt) {
  boost::asio::io_context io;
  FetchWaiters waiters;
  Parked kept;
  park(waiters, io, {partition_key(0, 3)}, kept);
  { auto gone = waiters.add(std::vector<uint64_t>{partition_key(0, 3)}, io.get_executor()); }
  auto other = waiters.add(std::vector<uint64_t>{partition_key(0, 3)}, io.get_executor());
  waiters.remove(other, std::vector<uint64_t>{partition_key(0, 3)});
  waiters.notify(0, std::vector<storage::PartitionId>{3});  // still wakes the one left
  io.run_for(200ms);
  ASSERT_TRUE(kept.ended.has_value());
  EXPECT_EQ(*kept.ended, boost::asio::error::operation_aborted);
  EXPECT_FALSE(other->woken.load());  // removed before the notify
  waiters.remove(kept.waiter, std::vector<uint64_t>{partition_key(0, 3)});
}

}  // namespace
}  // namespace rokka::broker
