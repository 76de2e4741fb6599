// spdlog named loggers, one per room: net, protocol, storage, coordinator, broker.
// Messages are lowercase key=value with fmt placeholders.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>

namespace rokka::broker {

// Creates the loggers (stderr, one shared sink) at `level` ("info", "debug", ...).
void setup_logging(std::string_view level);

// The named logger, or spdlog's default one when setup_logging has not run (unit tests).
std::shared_ptr<spdlog::logger> logger(const char* name);

inline spdlog::logger& net_log() {
  static thread_local std::shared_ptr<spdlog::logger> l = logger("net");
  return *l;
}
inline spdlog::logger& broker_log() {
  static thread_local std::shared_ptr<spdlog::logger> l = logger("broker");
  return *l;
}

}  // namespace rokka::broker
