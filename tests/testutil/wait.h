// Waiting for a condition another thread or process brings about: poll it with a
// deadline generous enough for a machine busy with other work, never sleep and hope.
#pragma once

#include <chrono>
#include <thread>

namespace rokka::testutil {

// Polls `done` every `every` until it holds (true) or `timeout` has passed (false).
template <typename F>
bool eventually(F done, std::chrono::milliseconds timeout = std::chrono::seconds(30),
                std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace rokka::testutil
