// spdlog named loggers, one per room: net, protocol, storage, coordinator, broker.
// Messages are lowercase key=value with fmt placeholders.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>

#include "protocol/error_code.h"

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

// A Kafka error code in a log line reads as its name and number: "NOT_COORDINATOR (16)".
template <>
struct fmt::formatter<rokka::protocol::ErrorCode> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(rokka::protocol::ErrorCode e, Context& ctx) const {
    return fmt::format_to(ctx.out(), "{} ({})", rokka::protocol::error_name(e), rokka::protocol::to_int(e));
  }
};
