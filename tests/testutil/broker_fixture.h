// An in-process broker on a free loopback port, over a MemoryStore (fast unit
// tests of the server and handlers). Integration tests run the real build/rokka.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "broker/broker.h"
#include "tests/testutil/memory_store.h"

namespace rokka::testutil {

class InProcessBroker {
 public:
  using Overrides = std::vector<std::pair<std::string, std::string>>;
  InProcessBroker() : InProcessBroker(Overrides{}) {}
  // `prepare` sees the store before the broker opens it (e.g. MemoryStore::hold_scans).
  explicit InProcessBroker(Overrides overrides, const std::function<void(MemoryStore&)>& prepare = {}) {
    overrides.insert(overrides.begin(), {"listeners", "PLAINTEXT://127.0.0.1:0"});
    auto config = broker::load_config("", overrides);
    if (!config.ok()) throw std::runtime_error(config.status().to_string());
    config_ = std::move(config).value();
    auto store = std::make_unique<MemoryStore>();
    store_ = store.get();
    if (prepare) prepare(*store);
    auto b = broker::Broker::open(config_, std::move(store));
    if (!b.ok()) throw std::runtime_error(b.status().to_string());
    broker_ = std::move(b).value();
    if (auto s = broker_->start(); !s.ok()) throw std::runtime_error(s.to_string());
    port_ = broker_->ports().at(0);
  }
  ~InProcessBroker() { (void)broker_->stop(); }

  uint16_t port() const { return port_; }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
  broker::Broker& broker() { return *broker_; }
  MemoryStore& store() { return *store_; }

 private:
  broker::BrokerConfig config_;
  MemoryStore* store_ = nullptr;
  std::unique_ptr<broker::Broker> broker_;
  uint16_t port_ = 0;
};

}  // namespace rokka::testutil
