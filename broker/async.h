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
