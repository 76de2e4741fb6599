#include "coordinator/log.h"

namespace rokka::coordinator {

spdlog::logger& log() {
  if (auto named = spdlog::get("coordinator")) return *named;
  return *spdlog::default_logger_raw();
}

}  // namespace rokka::coordinator
