// LatencyHistogram: a latency distribution in fixed buckets, updated with relaxed atomic
// adds only (no lock), read by a metrics scrape at any time from any thread. A scrape
// may see a sample's bucket before its sum; Prometheus tolerates that skew.
//
// prometheus-cpp's Histogram takes a mutex per Observe(); the request path and the
// store's threads use this instead, and broker/metrics.cc exports it as a histogram.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace rokka::storage {

class LatencyHistogram {
 public:
  // Upper bounds in seconds: 50 us to 10 s, about three per decade.
  static constexpr std::array<double, 16> kBoundsSeconds = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                             0.005,   0.01,   0.025,   0.05,   0.1,   0.25,
                                                             0.5,     1.0,    2.5,     10.0};

  void observe(std::chrono::nanoseconds took) {
    const int64_t ns = took.count() < 0 ? 0 : took.count();
    size_t i = 0;
    while (i < kBoundsNs.size() && ns > kBoundsNs[i]) ++i;
    buckets_[i].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
  }

  // Samples at or below each bound (not cumulative); the last slot counts those above all.
  uint64_t bucket(size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
  uint64_t sum_ns() const { return sum_ns_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::array<int64_t, 16> kBoundsNs = {50'000,      100'000,     250'000,       500'000,
                                                        1'000'000,   2'500'000,   5'000'000,     10'000'000,
                                                        25'000'000,  50'000'000,  100'000'000,   250'000'000,
                                                        500'000'000, 1'000'000'000, 2'500'000'000, 10'000'000'000};
  std::array<std::atomic<uint64_t>, 17> buckets_{};
  std::atomic<uint64_t> sum_ns_{0};
};

// Every fdatasync of the real file system (storage/file_system.cc): the CommitLog's,
// the index files', the checkpoint's and the MetaStore journal's. Process-wide.
LatencyHistogram& fsync_latency();

}  // namespace rokka::storage
