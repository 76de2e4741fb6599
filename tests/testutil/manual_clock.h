// A clock that moves only when a test says so. Pass clock.fn() where code takes a
// std::function<int64_t()> of milliseconds; tests advance time instead of sleeping.
// Moving it while another thread is mid-operation makes that operation see either time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace rokka::testutil {

class ManualClock {
 public:
  explicit ManualClock(int64_t start_ms = 1'000'000) : now_ms_(start_ms) {}

  int64_t now_ms() const { return now_ms_.load(); }
  void advance(int64_t ms) { now_ms_ += ms; }
  void set(int64_t ms) { now_ms_.store(ms); }

  // The clock as a function; it reads this object, which must outlive the function.
  std::function<int64_t()> fn() const {
    return [this] { return now_ms_.load(); };
  }

 private:
  std::atomic<int64_t> now_ms_;  // atomic: an asio test may read it on another thread
};

}  // namespace rokka::testutil
