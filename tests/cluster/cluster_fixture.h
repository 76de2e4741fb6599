// Shared pieces of the cluster tests: an io_context on its own thread (the cluster room's
// executor, as the broker will give it one), a way to run a coroutine on it and wait for the
// result, condition waits with generous deadlines, and a fixture that starts its own etcd.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "cluster/cluster_view.h"
#include "cluster/etcd_client.h"
#include "tests/cluster/etcd_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::testutil {

using namespace std::chrono_literals;

class IoThread {
 public:
  IoThread() : work_(boost::asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~IoThread() { stop(); }

  boost::asio::any_io_executor executor() { return io_.get_executor(); }

  // Runs `aw` on the io thread and returns its result.
  template <typename T>
  T run(boost::asio::awaitable<T> aw, std::chrono::seconds timeout = 60s) {
    // Through an optional: co_spawn's future wants a default-constructible result.
    auto wrapped = [](boost::asio::awaitable<T> a) -> boost::asio::awaitable<std::optional<T>> {
      co_return std::optional<T>(co_await std::move(a));
    };
    auto fut = boost::asio::co_spawn(io_, wrapped(std::move(aw)), boost::asio::use_future);
    if (fut.wait_for(timeout) != std::future_status::ready) throw std::runtime_error("coroutine did not finish");
    return std::move(*fut.get());
  }
  void run(boost::asio::awaitable<void> aw, std::chrono::seconds timeout = 60s) {
    auto fut = boost::asio::co_spawn(io_, std::move(aw), boost::asio::use_future);
    if (fut.wait_for(timeout) != std::future_status::ready) throw std::runtime_error("coroutine did not finish");
    fut.get();
  }
  // Runs `fn` on the io thread (for state only that thread may touch) and returns its result.
  template <typename Fn>
  auto call(Fn fn) -> decltype(fn()) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto fut = task.get_future();
    boost::asio::post(io_, [&task] { task(); });
    return fut.get();
  }

  // Lets the loop run out of work (everything stopped first), then joins.
  void stop() {
    if (!thread_.joinable()) return;
    work_.reset();
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!io_.stopped() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
    io_.stop();
    thread_.join();
  }

 private:
  boost::asio::io_context io_{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

// Polls `pred` every 10 ms until it holds or `timeout` passes; returns the last answer.
inline bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

inline cluster::EtcdClientOptions client_options(const std::string& endpoints) {
  cluster::EtcdClientOptions o;
  auto eps = cluster::parse_endpoints(endpoints);
  if (!eps.ok()) throw std::runtime_error(eps.status().to_string());
  o.endpoints = *eps;
  o.request_timeout = 3s;  // the machine is shared: generous
  return o;
}

// Everything under `keys`' prefix, read through `client` (linearizably) and built into the
// snapshot a broker's ClusterView would hold; throws if etcd does not answer.
inline std::shared_ptr<const cluster::ClusterSnapshot> read_snapshot(IoThread& io, cluster::EtcdClient& client,
                                                                    const cluster::Keys& keys) {
  const std::string prefix = keys.prefix();
  auto r = io.run(client.range({.key = prefix, .range_end = cluster::prefix_range_end(prefix)}));
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  cluster::KeyMap m;
  for (auto& kv : r->kvs) m.emplace(kv.key, kv);
  return cluster::build_snapshot(keys, std::move(m), r->header.revision);
}

// A fixture with its own single-member etcd (skipped, with the reason, without etcd).
class EtcdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!etcd_installed()) GTEST_SKIP() << kEtcdMissing;
    etcd_ = std::make_unique<EtcdProcess>(dir_ / "etcd", "default");
    etcd_->start_new();
    client_ = cluster::EtcdClient::create(io_.executor(), client_options(etcd_->client_url()));
  }
  void TearDown() override {
    if (!client_) return;
    before_stop();
    io_.call([this] { client_->shutdown(); });
    io_.stop();
  }
  // Stops what a test started on the io thread (runs there before the client shuts down).
  virtual void before_stop() {}

  TempDir dir_;
  IoThread io_;
  std::unique_ptr<EtcdProcess> etcd_;
  std::shared_ptr<cluster::EtcdClient> client_;
};

}  // namespace rokka::testutil
