// The storage room's logger (STYLE §c "Logging"): spdlog's "storage" logger when the
// broker registered one, else spdlog's default logger (unit tests, benchmarks).
// (Named logger.h, not log.h: in storage/ "the log" is the CommitLog.)
#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace rokka::storage {

inline spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> fallback = spdlog::default_logger();
  auto named = spdlog::get("storage");
  return named ? *named : *fallback;
}

template <typename... Args>
void log_info(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  logger().info(fmt, std::forward<Args>(args)...);
}
template <typename... Args>
void log_warn(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  logger().warn(fmt, std::forward<Args>(args)...);
}
template <typename... Args>
void log_error(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  logger().error(fmt, std::forward<Args>(args)...);
}

}  // namespace rokka::storage
