// The cluster room's logger: spdlog's "cluster" logger when the broker registered one
// (broker/logging.cc), else spdlog's default logger (tests).
#pragma once

#include <spdlog/spdlog.h>

namespace rokka::cluster {

inline spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> fallback = spdlog::default_logger();
  auto named = spdlog::get("cluster");
  return named ? *named : *fallback;
}

}  // namespace rokka::cluster
