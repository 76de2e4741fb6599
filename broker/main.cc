// rokka [CONFIG_FILE] [--override key=value]...
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "broker/broker.h"
#include "broker/config/config.h"
#include "broker/net/http_server.h"
#include "broker/logging.h"
#include "broker/metrics.h"
#include "storage/fault_probe.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "rokka: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rokka::broker;
  auto cl = parse_command_line(argc, argv);
  if (!cl.ok()) return fail(cl.status().message());
  if (cl->help) {
    std::cout << config_help();
    return 0;
  }
  if (cl->version) {
    std::cout << "rokka 0.1.0\n";
    return 0;
  }
  std::string properties;
  if (cl->config_file) {
    std::ifstream in(*cl->config_file);
    if (!in) return fail("cannot read config file " + *cl->config_file);
    std::stringstream ss;
    ss << in.rdbuf();
    properties = ss.str();
  }
  auto config = load_config(properties, cl->overrides);
  if (!config.ok()) return fail(config.status().message());

  setup_logging(config->log_level);
  for (const auto& key : config->unknown_keys) broker_log().warn("unknown config key ignored: key={}", key);
  broker_log().info("starting rokka 0.1.0: config_file={}", cl->config_file.value_or("(embedded defaults)"));
  for (const auto& line : [&] {
         std::vector<std::string> lines;
         std::istringstream in(describe_config(*config));
         for (std::string l; std::getline(in, l);) lines.push_back(l);
         return lines;
       }()) {
    broker_log().info("config: {}", line);
  }

  // Crash tests only (tests/crash/): kill the process at a chosen file-system call.
  std::unique_ptr<rokka::storage::FaultProbeFileSystem> probe;
  auto store_options = Broker::store_options(*config);
  if (const char* spec = std::getenv("ROKKA_FAULT_PROBE"); spec && *spec) {
    auto parsed = rokka::storage::FaultProbeFileSystem::parse(spec, rokka::storage::FileSystem::real());
    if (!parsed.ok()) return fail(parsed.status().message());
    probe = std::move(*parsed);
    store_options.fs = probe.get();
    broker_log().warn("fault probe armed: ROKKA_FAULT_PROBE={}", spec);
  }
  // The HTTP endpoints answer from before recovery (/readyz says why not ready).
  Metrics metrics(config->metrics_max_topic_series, config->log_dirs);
  std::unique_ptr<HttpServer> http;
  if (!config->http_listeners.empty()) {
    http = std::make_unique<HttpServer>(config->http_listeners, metrics);
    if (auto s = http->start(); !s.ok()) {
      broker_log().error("cannot start the http endpoints: error={}", s.to_string());
      return 1;
    }
  }
  const auto open_start = std::chrono::steady_clock::now();
  auto store = rokka::storage::Store::open(store_options);
  if (!store.ok()) {
    broker_log().error("cannot open the store: error={}", store.status().to_string());
    return 1;
  }
  metrics.set_recovered(std::chrono::steady_clock::now() - open_start);
  auto broker = Broker::open(*config, std::move(*store), &metrics);
  if (!broker.ok()) {
    broker_log().error("cannot open the broker: error={}", broker.status().to_string());
    return 1;
  }
  if (auto s = (*broker)->start(); !s.ok()) {
    broker_log().error("cannot start: error={}", s.to_string());
    return 1;
  }

  boost::asio::io_context signals_ctx;
  boost::asio::signal_set signals(signals_ctx, SIGINT, SIGTERM);
  signals.async_wait([](const boost::system::error_code&, int sig) {
    broker_log().info("signal received: signal={}", sig);
  });
  signals_ctx.run();

  if (http) http->stop();  // no scrape runs while the broker stops
  const auto s = (*broker)->stop();
  return s.ok() ? 0 : 1;
}
