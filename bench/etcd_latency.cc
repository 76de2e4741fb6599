// etcd_latency: what the cluster room's etcd client (JSON gateway, cluster/etcd_client.h)
// costs per call against a running etcd: N sequential puts, N compare-guarded txns (the shape
// of every controller write) and N linearizable ranges, one at a time, with p50/p90/p99/max.
// docs/cluster.md has the command and the numbers. Prints, asserts nothing.
//
//   etcd_latency [--endpoints http://127.0.0.1:2379] [-n 2000]
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cluster/etcd_client.h"

namespace {

using namespace rokka::cluster;
using Clock = std::chrono::steady_clock;

void report(const char* name, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double v : ms) sum += v;
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))]; };
  std::printf("%-28s n=%zu mean=%.3f p50=%.3f p90=%.3f p99=%.3f max=%.3f ms\n", name, ms.size(), sum / ms.size(),
              at(0.50), at(0.90), at(0.99), ms.back());
}

boost::asio::awaitable<int> run(std::shared_ptr<EtcdClient> client, int n) {
  std::vector<double> put_ms, txn_ms, range_ms;
  auto timed = [](auto start, std::vector<double>& into) {
    into.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  };
  const std::string value(100, 'v');
  for (int i = 0; i < n; ++i) {
    PutRequest req{.key = "/bench/put", .value = value};  // named: see etcd_client.h on GCC 12
    const auto t = Clock::now();
    auto r = co_await client->put(std::move(req));
    if (!r.ok()) { std::fprintf(stderr, "put: %s\n", r.status().to_string().c_str()); co_return 1; }
    timed(t, put_ms);
  }
  PutRequest seed_req{.key = "/bench/epoch", .value = "1"};
  auto seed = co_await client->put(std::move(seed_req));
  if (!seed.ok()) co_return 1;
  const int64_t epoch_rev = seed->header.revision;
  for (int i = 0; i < n; ++i) {
    Txn txn{{Compare::modified_at("/bench/epoch", epoch_rev)}, {PutRequest{"/bench/txn", value}}, {}};
    const auto t = Clock::now();
    auto r = co_await client->txn(std::move(txn));
    if (!r.ok() || !r->succeeded) { std::fprintf(stderr, "txn failed\n"); co_return 1; }
    timed(t, txn_ms);
  }
  for (int i = 0; i < n; ++i) {
    RangeRequest req{.key = "/bench/put"};
    const auto t = Clock::now();
    auto r = co_await client->range(std::move(req));
    if (!r.ok()) co_return 1;
    timed(t, range_ms);
  }
  report("json-gw put", put_ms);
  report("json-gw txn(compare+put)", txn_ms);
  report("json-gw range (linear.)", range_ms);
  co_return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string endpoints = "http://127.0.0.1:2379";
  int n = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--endpoints") == 0) endpoints = argv[i + 1];
    else if (std::strcmp(argv[i], "-n") == 0) n = std::max(1, std::atoi(argv[i + 1]));
  }
  auto eps = parse_endpoints(endpoints);
  if (!eps.ok()) {
    std::fprintf(stderr, "%s\n", eps.status().to_string().c_str());
    return 2;
  }
  boost::asio::io_context io(1);
  EtcdClientOptions options;
  options.endpoints = *eps;
  auto client = EtcdClient::create(io.get_executor(), options);
  auto done = boost::asio::co_spawn(io, run(client, n), boost::asio::use_future);
  io.run();
  return done.get();
}
