// ConfirmWaiters and confirm_position (cluster/confirm_waiters.h).
#include "cluster/confirm_waiters.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <thread>

namespace rokka::cluster {
namespace {

using Kind = ConfirmOutcome::Kind;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Record {
  std::vector<std::pair<int, ConfirmOutcome>> answers;
  ConfirmWaiters::Callback make(int tag) {
    return [this, tag](ConfirmOutcome o) { answers.emplace_back(tag, std::move(o)); };
  }
};

TEST(ConfirmWaiters, ConfirmPositionIsTheMinimumOverTheInSyncSet) {
  const std::vector<MemberAck> acks = {{2, 500}, {3, 300}, {4, 100}};
  const std::vector<int32_t> sss123 = {1, 2, 3};
  const std::vector<int32_t> sss12 = {1, 2};
  const std::vector<int32_t> only_leader = {1};
  const std::vector<int32_t> sss125 = {1, 2, 5};
  EXPECT_EQ(confirm_position(1, 1000, sss123, acks, 0), 300);  // member 3 is the slowest
  EXPECT_EQ(confirm_position(1, 200, sss123, acks, 0), 200);   // the leader's own durable end counts
  EXPECT_EQ(confirm_position(1, 1000, sss12, acks, 0), 500);   // 4 is behind but not in sync: ignored
  EXPECT_EQ(confirm_position(1, 1000, only_leader, acks, 0), 1000);
  EXPECT_EQ(confirm_position(1, 1000, std::span<const int32_t>(), acks, 0), 1000);
  EXPECT_EQ(confirm_position(1, 1000, sss125, acks, 40), 40);  // 5 never acked: the floor
  EXPECT_EQ(confirm_position(1, 1000, sss123, acks, 700), 700);  // never below the floor
}

TEST(ConfirmWaiters, ResolvedInPositionOrderWhenCReachesThem) {
  ConfirmWaiters w;
  Record r;
  const auto far = Clock::now() + 1h;
  w.add(300, far, r.make(3));
  w.add(100, far, r.make(1));
  w.add(200, far, r.make(2));
  w.add(200, far, r.make(22));
  EXPECT_EQ(w.size(), 4u);
  w.confirm(99, 3);
  EXPECT_TRUE(r.answers.empty());
  w.confirm(200, 3);
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_EQ(r.answers[0].first, 1);
  EXPECT_TRUE(r.answers[0].second.ok());
  EXPECT_TRUE(r.answers[1].first == 2 || r.answers[1].first == 22);
  EXPECT_TRUE(r.answers[2].first == 2 || r.answers[2].first == 22);
  EXPECT_EQ(w.size(), 1u);
  w.confirm(150, 3);  // C never moves back
  EXPECT_EQ(w.confirmed(), 200);
  w.add(180, far, r.make(4));  // already confirmed: answered at once
  ASSERT_EQ(r.answers.size(), 4u);
  EXPECT_EQ(r.answers[3].first, 4);
  EXPECT_TRUE(r.answers[3].second.ok());
  w.confirm(1000, 3);
  ASSERT_EQ(r.answers.size(), 5u);
  EXPECT_EQ(r.answers[4].first, 3);
  EXPECT_EQ(w.size(), 0u);
}

// A waiter is told the size of the in-sync set C was computed over when it covered it (Produce
// checks min.insync.replicas against it): a shrink that moves C answers with the smaller set.
TEST(ConfirmWaiters, AnAnswerCarriesTheInSyncSetThatConfirmedIt) {
  ConfirmWaiters w;
  Record r;
  const auto far = Clock::now() + 1h;
  w.reopen(0, 3);
  w.add(100, far, r.make(1));
  w.add(200, far, r.make(2));
  w.confirm(100, 3);
  ASSERT_EQ(r.answers.size(), 1u);
  EXPECT_EQ(r.answers[0].second.in_sync, 3u);
  w.confirm(100, 2);  // the set shrank, C did not move: nobody answered
  EXPECT_EQ(r.answers.size(), 1u);
  w.add(50, far, r.make(3));  // already covered: answered with the set as it is now
  ASSERT_EQ(r.answers.size(), 2u);
  EXPECT_TRUE(r.answers[1].second.ok());
  EXPECT_EQ(r.answers[1].second.in_sync, 2u);
  w.confirm(250, 1);
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_EQ(r.answers[2].first, 2);
  EXPECT_TRUE(r.answers[2].second.ok());
  EXPECT_EQ(r.answers[2].second.in_sync, 1u);
}

TEST(ConfirmWaiters, DeadlinesFailOnlyTheExpired) {
  ConfirmWaiters w;
  Record r;
  const auto t0 = Clock::now();
  w.add(100, t0 + 10s, r.make(1));
  w.add(200, t0 + 20s, r.make(2));
  w.add(300, t0 + 30s, r.make(3));
  EXPECT_EQ(w.expire(t0 + 5s), t0 + 10s);
  EXPECT_TRUE(r.answers.empty());
  EXPECT_EQ(w.expire(t0 + 20s), t0 + 30s);
  ASSERT_EQ(r.answers.size(), 2u);
  for (auto& [tag, o] : r.answers) EXPECT_EQ(o.kind, Kind::kTimedOut) << tag;
  w.confirm(300, 3);
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_TRUE(r.answers[2].second.ok());
  EXPECT_EQ(w.expire(t0 + 1h), Clock::time_point::max());
  // A deadline already passed at add(): answered at once.
  w.add(400, t0, r.make(4));
  ASSERT_EQ(r.answers.size(), 4u);
  EXPECT_EQ(r.answers[3].second.kind, Kind::kTimedOut);
}

TEST(ConfirmWaiters, DemotionAndShutdownFailEveryWaiterWithTheReason) {
  ConfirmWaiters w;
  Record r;
  const auto far = Clock::now() + 1h;
  w.add(100, far, r.make(1));
  w.add(200, far, r.make(2));
  w.fail_all(Kind::kNotEnoughReplicas, "sss shrank to 1");
  ASSERT_EQ(r.answers.size(), 2u);
  EXPECT_EQ(r.answers[0].second.kind, Kind::kNotEnoughReplicas);
  EXPECT_EQ(r.answers[0].second.reason, "sss shrank to 1");
  w.add(300, far, r.make(3));  // fail_all does not close
  EXPECT_EQ(w.size(), 1u);
  w.close(Kind::kNotLeader, "demoted at epoch 8");
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_EQ(r.answers[2].second.kind, Kind::kNotLeader);
  w.add(50, far, r.make(4));  // closed: refused at once, even below C
  ASSERT_EQ(r.answers.size(), 4u);
  EXPECT_EQ(r.answers[3].second.kind, Kind::kNotLeader);
  EXPECT_EQ(r.answers[3].second.reason, "demoted at epoch 8");
  w.reopen(500, 3);
  EXPECT_EQ(w.confirmed(), 500);
  w.add(600, far, r.make(5));
  EXPECT_EQ(w.size(), 1u);
  w.close(Kind::kShutdown, "stopping");
  ASSERT_EQ(r.answers.size(), 5u);
  EXPECT_EQ(r.answers[4].second.kind, Kind::kShutdown);
}

TEST(ConfirmWaiters, CancelRemovesWithoutAnswering) {
  ConfirmWaiters w;
  Record r;
  const uint64_t id = w.add(100, Clock::now() + 1h, r.make(1));
  EXPECT_TRUE(w.cancel(id));
  EXPECT_FALSE(w.cancel(id));
  w.confirm(100, 3);
  EXPECT_TRUE(r.answers.empty());
}

// The coroutine form on an io_context, C moved from another thread; and its own deadline.
TEST(ConfirmWaiters, CoroutineWaitAnswersOnItsExecutor) {
  boost::asio::io_context io;
  ConfirmWaiters w;
  auto ok = boost::asio::co_spawn(io, w.wait(500, Clock::now() + 60s), boost::asio::use_future);
  std::shared_future<ConfirmOutcome> late =
      boost::asio::co_spawn(io, w.wait(10'000, Clock::now() + 200ms), boost::asio::use_future).share();
  std::thread io_thread([&] { io.run(); });
  std::thread other([&w, late] {
    // Once the short waiter timed out, the long one is the only one registered: confirm it.
    late.wait();
    while (w.size() < 1) std::this_thread::sleep_for(1ms);
    w.confirm(600, 3);
  });
  ASSERT_EQ(ok.wait_for(60s), std::future_status::ready);
  EXPECT_TRUE(ok.get().ok());
  ASSERT_EQ(late.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(late.get().kind, Kind::kTimedOut);
  other.join();
  io_thread.join();
  EXPECT_EQ(w.size(), 0u);
}

}  // namespace
}  // namespace rokka::cluster
