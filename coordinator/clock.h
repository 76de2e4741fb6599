// The coordinator's clock: milliseconds, injected (a ManualClock in tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace rokka::coordinator {

using Clock = std::function<int64_t()>;

// Wall time, the services' default: commit timestamps and transaction times are kept
// across restarts.
inline int64_t system_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace rokka::coordinator
