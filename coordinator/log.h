// The coordinator room's logger ("coordinator"), set up by the broker; unit tests fall
// back to spdlog's default logger.
#pragma once

#include <spdlog/spdlog.h>

namespace rokka::coordinator {

spdlog::logger& log();

}  // namespace rokka::coordinator
