// Signal: wakes a coroutine waiting on the same executor (a steady_timer used as an event).
// notify() before wait() is remembered: the next wait() returns at once.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

namespace rokka::cluster {

class Signal {
 public:
  explicit Signal(boost::asio::any_io_executor ex) : timer_(std::move(ex)) {}

  void notify() {
    set_ = true;
    timer_.cancel();
  }
  // Returns when notified or at `until`, whichever comes first.
  boost::asio::awaitable<void> wait(std::chrono::steady_clock::time_point until =
                                        std::chrono::steady_clock::time_point::max()) {
    if (!set_) {
      timer_.expires_at(until);
      co_await timer_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    set_ = false;
  }

 private:
  boost::asio::steady_timer timer_;
  bool set_ = false;
};

}  // namespace rokka::cluster
