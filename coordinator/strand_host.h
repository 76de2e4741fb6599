// StrandHost: what GroupService and TransactionService share -- a coordinator core run
// on an asio strand. It owns the strand's one system timer, aimed at the core's earliest
// deadline; the start-up load on a helper thread; stop(); and run(), the awaitable that
// hops onto the strand and resumes the caller on the caller's own executor.
//
// Contract
//  - Core provides: run_due_timers(); next_deadline() -> std::optional<int64_t> (ms on
//    the clock given); install(State) for what start()'s loader returns; shutdown().
//  - Threading: everything touching the core runs on the strand; post(), run(), start()
//    and stop() may be called from any thread.
//  - Timer: re-aimed only when a deadline earlier than the armed one appears (a heartbeat
//    only moves deadlines later); the armed timer then fires early once, finds nothing
//    due and re-aims. Due timers also fire before and after each operation.
//  - Lifetime: the core outlives the host (declare the host after the core); stop(),
//    then drain the io_context, before destroying either. The destructor joins the loader.
#pragma once

#include <algorithm>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

namespace rokka::coordinator {

namespace asio = boost::asio;

template <typename Core>
class StrandHost {
 public:
  using Strand = asio::strand<asio::any_io_executor>;

  StrandHost(Strand strand, std::function<int64_t()> clock_ms, Core& core)
      : strand_(std::move(strand)), clock_(std::move(clock_ms)), core_(core), timer_(strand_) {}
  ~StrandHost() {
    if (loader_.joinable()) loader_.join();
  }
  StrandHost(const StrandHost&) = delete;
  StrandHost& operator=(const StrandHost&) = delete;

  const Strand& strand() const { return strand_; }
  bool stopped() const { return stopped_; }  // strand only

  // Runs `load()` on a helper thread, then installs its result on the strand. The
  // executor is kept busy meanwhile, so a drained io_context does not return early.
  template <typename Load>
  void start(Load load) {
    loading_.emplace(strand_.get_inner_executor());
    loader_ = std::thread([this, load = std::move(load)]() mutable {
      auto state = load();
      asio::post(strand_, [this, state = std::move(state)]() mutable {
        if (!stopped_) core_.install(std::move(state));
        loading_.reset();
        rearm();
      });
    });
  }

  // Shuts the core down on the strand (it answers what it parked) and cancels the timer.
  // Returns at once; joins the loader unless called from it.
  void stop() {
    asio::post(strand_, [this] {
      stopped_ = true;
      core_.shutdown();
      timer_.cancel();
      armed_deadline_.reset();
    });
    if (loader_.joinable() && loader_.get_id() != std::this_thread::get_id()) loader_.join();
  }

  // Runs `fn` on the strand, then fires due timers and re-aims the timer.
  void post(std::function<void()> fn) {
    asio::post(strand_, [this, fn = std::move(fn)] {
      fn();
      rearm();
    });
  }

  // Runs `op(core, done)` on the strand; the awaiting coroutine resumes on its own
  // executor with the value passed to `done` (which `op` calls exactly once, now or later).
  template <typename R, typename Op>
  asio::awaitable<R> run(Op op) {
    return asio::async_initiate<decltype(asio::use_awaitable), void(R)>(
        [this](auto handler, Op op) {
          // The core's callbacks are copyable std::functions; the handler is move-only.
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          asio::post(strand_, [this, shared, op = std::move(op)]() mutable {
            rearm();  // timers due by now fire before the operation sees the state
            op(core_, std::function<void(R)>([shared](R result) {
                 auto caller = asio::get_associated_executor(*shared);
                 asio::post(caller, [shared, result = std::move(result)]() mutable {
                   std::move (*shared)(std::move(result));
                 });
               }));
            rearm();
          });
        },
        asio::use_awaitable, std::move(op));
  }

  // Strand only: fires due timers, then makes sure the system timer wakes us in time.
  void rearm() {
    if (stopped_) return;
    core_.run_due_timers();
    const std::optional<int64_t> next = core_.next_deadline();
    if (!next || (armed_deadline_ && *armed_deadline_ <= *next)) return;
    armed_deadline_ = next;
    timer_.expires_after(std::chrono::milliseconds(std::max<int64_t>(0, *next - clock_())));
    timer_.async_wait(asio::bind_executor(strand_, [this, deadline = *next](const boost::system::error_code& ec) {
      if (ec || armed_deadline_ != deadline) return;  // cancelled, or re-aimed earlier since
      armed_deadline_.reset();
      rearm();
    }));
  }

 private:
  Strand strand_;
  std::function<int64_t()> clock_;
  Core& core_;
  asio::steady_timer timer_;
  std::optional<int64_t> armed_deadline_;
  bool stopped_ = false;  // strand only
  std::optional<asio::executor_work_guard<asio::any_io_executor>> loading_;
  std::thread loader_;
};

}  // namespace rokka::coordinator
