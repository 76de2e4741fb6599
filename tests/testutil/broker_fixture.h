// An in-process broker on a free loopback port over a real store in a temp dir:
// fast tests of the server and handlers without a child process. Integration
// tests run the real build/rokka binary.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "broker/broker.h"
#include "storage/store.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::testutil {

// Kafka's authorizer on, allowing what no ACL covers: a test then denies with an ACL.
inline const std::vector<std::pair<std::string, std::string>> kAuthorizerAllowingUncovered = {
    {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
    {"allow.everyone.if.no.acl.found", "true"}};

class InProcessBroker {
 public:
  using Overrides = std::vector<std::pair<std::string, std::string>>;
  InProcessBroker() : InProcessBroker(Overrides{}) {}
  // Wraps the opened store before the broker gets it (test doubles that delay or fail calls).
  using StoreWrapper = std::function<std::unique_ptr<storage::Store>(std::unique_ptr<storage::Store>)>;
  InProcessBroker(Overrides overrides, const StoreWrapper& wrap) { init(std::move(overrides), wrap, nullptr); }
  // `fs` (optional, outliving the broker): the store's file system, e.g. a
  // FaultyFileSystem for storage-fault tests.
  explicit InProcessBroker(Overrides overrides, storage::FileSystem* fs = nullptr) {
    init(std::move(overrides), {}, fs);
  }
  ~InProcessBroker() { (void)broker_->stop(); }

  uint16_t port() const { return port_; }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
  broker::Broker& broker() { return *broker_; }
  const std::filesystem::path& data_dir() const { return dir_.path(); }  // log.dirs

 private:
  void init(Overrides overrides, const StoreWrapper& wrap, storage::FileSystem* fs) {
    overrides.insert(overrides.begin(), {"listeners", "PLAINTEXT://127.0.0.1:0"});
    overrides.insert(overrides.begin(), {"log.dirs", dir_.path().string()});
    overrides.insert(overrides.begin(), {"log.segment.bytes", std::to_string(64 << 20)});
    auto config = broker::load_config("", overrides);
    if (!config.ok()) throw std::runtime_error(config.status().to_string());
    config_ = std::move(config).value();
    auto options = broker::Broker::store_options(config_);
    options.fs = fs;
    auto store = storage::Store::open(options);
    if (!store.ok()) throw std::runtime_error(store.status().to_string());
    auto b = broker::Broker::open(config_, wrap ? wrap(std::move(*store)) : std::move(*store));
    if (!b.ok()) throw std::runtime_error(b.status().to_string());
    broker_ = std::move(b).value();
    if (auto s = broker_->start(); !s.ok()) throw std::runtime_error(s.to_string());
    port_ = broker_->ports().at(0);
  }

  TempDir dir_;
  broker::BrokerConfig config_;
  std::unique_ptr<broker::Broker> broker_;
  uint16_t port_ = 0;
};

}  // namespace rokka::testutil
