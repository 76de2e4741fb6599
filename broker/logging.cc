#include "broker/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace rokka::broker {

void setup_logging(std::string_view level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  const auto lvl = spdlog::level::from_str(std::string(level));
  for (const char* name : {"net", "protocol", "storage", "coordinator", "broker", "cluster"}) {
    if (spdlog::get(name)) continue;
    auto l = std::make_shared<spdlog::logger>(name, sink);
    l->set_level(lvl);
    l->flush_on(spdlog::level::warn);
    l->set_pattern("%Y-%m-%d %H:%M:%S.%e %L %n: %v");
    spdlog::register_logger(l);
  }
  spdlog::set_level(lvl);
}

std::shared_ptr<spdlog::logger> logger(const char* name) {
  auto l = spdlog::get(name);
  return l ? l : spdlog::default_logger();
}

}  // namespace rokka::broker
