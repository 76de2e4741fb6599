// Bridges callback APIs (Store, MetaStore, TopicRegistry) into coroutines.
// The callback may run on any thread (usually the storage writer); the awaiting
// coroutine always resumes on its own executor (STYLE.md §d.4).
#pragma once

#include <boost/asio/append.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace rokka::broker {

// `start` receives a std::function<void(T)> to call exactly once with the result.
template <typename T, typename Start>
boost::asio::awaitable<T> await_callback(Start start) {
  namespace asio = boost::asio;
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(T)>(
      [&start](auto handler) {
        auto h = std::make_shared<decltype(handler)>(std::move(handler));
        start(std::function<void(T)>([h](T value) { asio::dispatch(asio::append(std::move(*h), std::move(value))); }));
      },
      asio::use_awaitable);
}

}  // namespace rokka::broker

namespace rokka::broker {

// Starts `n` callback operations at once and resumes when every one has reported.
// `start(i, done)` must call done(result) exactly once, from any thread.
template <typename T, typename Start>
boost::asio::awaitable<std::vector<T>> await_all(size_t n, Start start) {
  if (n == 0) co_return std::vector<T>{};
  co_return co_await await_callback<std::vector<T>>([n, &start](std::function<void(std::vector<T>)> finish) {
    struct State {
      std::mutex mu;
      std::vector<std::optional<T>> results;
      size_t left;
      std::function<void(std::vector<T>)> finish;
    };
    auto state = std::make_shared<State>();
    state->results.resize(n);
    state->left = n;
    state->finish = std::move(finish);
    for (size_t i = 0; i < n; ++i) {
      start(i, std::function<void(T)>([state, i](T value) {
        bool last = false;
        {
          std::lock_guard lock(state->mu);
          state->results[i].emplace(std::move(value));
          last = --state->left == 0;
        }
        if (!last) return;
        std::vector<T> out;
        out.reserve(state->results.size());
        for (auto& r : state->results) out.push_back(std::move(*r));
        state->finish(std::move(out));
      }));
    }
  });
}

}  // namespace rokka::broker
