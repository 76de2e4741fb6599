// CountHistogram: a distribution of counts or sizes (records, bytes) in 16 fixed
// buckets whose bounds double from `first_bound`, updated with relaxed atomic adds only
// (no lock), read by a metrics scrape at any time from any thread -- LatencyHistogram
// (storage/latency_histogram.h) for quantities instead of durations. A scrape may see a
// sample's bucket before its sum; Prometheus tolerates that skew.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rokka::storage {

class CountHistogram {
 public:
  static constexpr size_t kBounds = 16;

  // Bounds first_bound, 2 * first_bound, ..., 2^15 * first_bound (first_bound >= 1).
  explicit CountHistogram(uint64_t first_bound) : first_bound_(first_bound < 1 ? 1 : first_bound) {}

  void observe(uint64_t value) {
    size_t i = 0;
    while (i < kBounds && value > bound(i)) ++i;
    buckets_[i].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
  }

  uint64_t bound(size_t i) const { return first_bound_ << i; }  // i < kBounds
  // Samples at or below bound(i) and above the one before (not cumulative); slot
  // kBounds counts those above all bounds.
  uint64_t bucket(size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
  uint64_t sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  const uint64_t first_bound_;
  std::array<std::atomic<uint64_t>, kBounds + 1> buckets_{};
  std::atomic<uint64_t> sum_{0};
};

}  // namespace rokka::storage
