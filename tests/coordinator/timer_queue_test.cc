#include "coordinator/timer_queue.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace rokka::coordinator {
namespace {

TEST(TimerQueueTest, FiresDueTimersInDeadlineOrderThenSchedulingOrder) {
  TimerQueue q;
  std::vector<int> fired;
  q.schedule(30, [&] { fired.push_back(3); });
  q.schedule(10, [&] { fired.push_back(1); });
  q.schedule(20, [&] { fired.push_back(2); });
  q.schedule(10, [&] { fired.push_back(11); });
  EXPECT_EQ(q.next_deadline(), 10);
  EXPECT_EQ(q.run_due(9), 0u);
  EXPECT_EQ(q.run_due(20), 3u);
  EXPECT_EQ(fired, (std::vector<int>{1, 11, 2}));
  EXPECT_EQ(q.next_deadline(), 30);
}

TEST(TimerQueueTest, RescheduleMovesATimerEitherWay) {
  TimerQueue q;
  int fired = 0;
  TimerQueue::Id a = q.schedule(10, [&] { fired = 1; });
  q.schedule(20, [&] { fired = 2; });
  q.reschedule(a, 30);
  EXPECT_EQ(q.next_deadline(), 20);
  q.run_due(25);
  EXPECT_EQ(fired, 2);
  q.reschedule(a, 5);
  EXPECT_EQ(q.next_deadline(), 5);
  q.run_due(5);
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(q.size(), 0u);
}

TEST(TimerQueueTest, CancelledAndSpentIdsDoNothing) {
  TimerQueue q;
  bool fired = false;
  TimerQueue::Id a = q.schedule(10, [&] { fired = true; });
  TimerQueue::Id copy = a;
  q.cancel(a);
  EXPECT_EQ(a, TimerQueue::kNone);
  EXPECT_FALSE(q.pending(copy));
  TimerQueue::Id b = q.schedule(10, [] {});  // reuses the slot, with a new generation
  EXPECT_NE(b, copy);
  q.cancel(copy);  // the stale id must not cancel the new timer
  EXPECT_TRUE(q.pending(b));
  q.run_due(10);
  EXPECT_FALSE(fired);
  EXPECT_FALSE(q.pending(b));
}

TEST(TimerQueueTest, CallbacksMayScheduleAndCancel) {
  TimerQueue q;
  std::vector<int> fired;
  TimerQueue::Id victim = q.schedule(15, [&] { fired.push_back(99); });
  q.schedule(10, [&] {
    fired.push_back(1);
    q.cancel(victim);
    q.schedule(12, [&] { fired.push_back(2); });  // already due: runs in the same pass
    q.schedule(50, [&] { fired.push_back(3); });
  });
  EXPECT_EQ(q.run_due(20), 2u);
  EXPECT_EQ(fired, (std::vector<int>{1, 2}));
  EXPECT_EQ(q.next_deadline(), 50);
}

TEST(TimerQueueTest, RandomOperationsFireEachTimerOnceInDeadlineOrder) {
  TimerQueue q;
  std::mt19937 rng(7);
  std::vector<TimerQueue::Id> ids;
  std::vector<int64_t> deadline;  // current deadline of timer i; -1 once cancelled
  std::vector<int> fire_count;
  std::vector<size_t> fired;
  int64_t now = 0;
  auto check_pass = [&] {
    int64_t last = INT64_MIN;
    for (size_t i : fired) {
      EXPECT_LE(deadline[i], now);
      EXPECT_GE(deadline[i], last);
      last = deadline[i];
    }
    fired.clear();
  };
  for (int step = 0; step < 5000; ++step) {
    const int op = static_cast<int>(rng() % 4);
    if (op <= 1 || ids.empty()) {
      const size_t i = ids.size();
      deadline.push_back(now + static_cast<int64_t>(rng() % 1000));
      fire_count.push_back(0);
      ids.push_back(q.schedule(deadline[i], [&, i] {
        fired.push_back(i);
        ++fire_count[i];
      }));
    } else {
      const size_t i = rng() % ids.size();
      if (!q.pending(ids[i])) continue;
      if (op == 2) {
        deadline[i] = now + static_cast<int64_t>(rng() % 1000);
        q.reschedule(ids[i], deadline[i]);
      } else {
        q.cancel(ids[i]);
        deadline[i] = -1;
      }
    }
    if (step % 100 == 0) {
      now += 50;
      q.run_due(now);
      check_pass();
    }
  }
  now = INT64_MAX;
  q.run_due(now);
  check_pass();
  EXPECT_EQ(q.size(), 0u);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(fire_count[i], deadline[i] < 0 ? 0 : 1) << i;
}

}  // namespace
}  // namespace rokka::coordinator
