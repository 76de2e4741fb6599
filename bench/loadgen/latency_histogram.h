// LatencyHistogram: fixed-size log-linear histogram of nanosecond latencies.
//
// Values below 128 ns have a bucket each; above, every power of two is split into 64 equal
// sub-buckets, so a reported percentile is within 1/64 (1.6%) of the true value, over
// the whole uint64 range, in 30 KiB of counters and with no allocation per sample.
// Not thread-safe: each thread records into its own histogram, and merge() combines them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace rokka::bench {

class LatencyHistogram {
 public:
  void record(uint64_t ns) {
    ++counts_[bucket_of(ns)];
    ++count_;
    max_ = std::max(max_, ns);
    min_ = count_ == 1 ? ns : std::min(min_, ns);
  }

  void merge(const LatencyHistogram& other) {
    for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    if (other.count_ > 0) min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
    count_ += other.count_;
    max_ = std::max(max_, other.max_);
  }

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  uint64_t min() const { return min_; }

  // The smallest recorded-range value v such that at least `quantile` of the samples are <= v
  // (the upper edge of the bucket holding that rank, capped at the exact maximum).
  // REQUIRES: 0 < quantile <= 1. Returns 0 when nothing was recorded.
  uint64_t percentile(double quantile) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<uint64_t>(std::ceil(quantile * static_cast<double>(count_)));
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= std::max<uint64_t>(rank, 1)) return std::min(upper_edge(i), max_);
    }
    return max_;
  }

 private:
  static constexpr int kSubBits = 6;                     // 64 sub-buckets per power of two
  static constexpr uint64_t kLinearLimit = 2u << kSubBits;  // 128: one bucket per value below
  // The largest value, 2^64 - 1, has shift 57 and mantissa 127: bucket 57 * 64 + 127 = 3775.
  static constexpr size_t kBuckets = (65 - kSubBits) << kSubBits;

  // Buckets [0, 128) are exact. For v >= 128 with bit width w, shift = w - 7 keeps the top seven
  // bits, mantissa in [64, 128), and the bucket is shift * 64 + mantissa (so 128 -> 128).
  static size_t bucket_of(uint64_t v) {
    if (v < kLinearLimit) return static_cast<size_t>(v);
    const int shift = std::bit_width(v) - (kSubBits + 1);
    return (static_cast<size_t>(shift) << kSubBits) + static_cast<size_t>(v >> shift);
  }

  // The largest value that maps to bucket i.
  static uint64_t upper_edge(size_t i) {
    if (i < kLinearLimit) return i;
    const size_t shift = (i >> kSubBits) - 1;
    const uint64_t mantissa = (i & ((1u << kSubBits) - 1)) | (1u << kSubBits);
    return ((mantissa + 1) << shift) - 1;
  }

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = 0;
};

}  // namespace rokka::bench
