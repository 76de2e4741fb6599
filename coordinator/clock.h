// The coordinator's clock: milliseconds, injected (a ManualClock in tests).
#pragma once

#include <cstdint>
#include <functional>

namespace rokka::coordinator {

using Clock = std::function<int64_t()>;

}  // namespace rokka::coordinator
