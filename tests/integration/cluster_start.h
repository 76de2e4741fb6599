// The start every cluster-mode test shares: a fresh etcd member in dir/etcd, then brokers
// 1..n (build/rokka, data in dir/b<id>, settings from `overrides`, which may read `etcd`),
// each started, and a wait until every broker lists all n in Metadata. Callers skip first
// when etcd is not installed, and check HasFatalFailure() after.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "protocol/messages/metadata.h"
#include "tests/cluster/etcd_process.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/wait.h"
#include "tests/testutil/wire_client.h"

namespace rokka::testutil {

inline void start_cluster(const std::filesystem::path& dir, int n,
                          const std::function<RokkaProcess::Overrides(int)>& overrides,
                          std::unique_ptr<EtcdProcess>& etcd, std::vector<std::unique_ptr<RokkaProcess>>& brokers) {
  using namespace std::chrono_literals;
  etcd = std::make_unique<EtcdProcess>(dir / "etcd", "e0");
  etcd->start_new();
  for (int id = 1; id <= n; ++id) {
    std::filesystem::create_directories(dir / ("b" + std::to_string(id)));
    brokers.push_back(std::make_unique<RokkaProcess>(dir / ("b" + std::to_string(id)), overrides(id)));
  }
  for (auto& b : brokers) b->start(60s);
  auto listed = [](RokkaProcess& b) {
    WireClient c(b.port());
    protocol::MetadataRequest req;
    req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{};
    auto md = c.call<protocol::MetadataResponse>(req, 12);
    return md ? static_cast<int>(md->brokers.size()) : 0;
  };
  for (auto& b : brokers)
    ASSERT_TRUE(eventually([&] { return listed(*b) == n; }, 30s)) << b->log_tail();
}

}  // namespace rokka::testutil
