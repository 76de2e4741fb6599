// RunStats: what one producer or consumer thread counted. Each thread owns one; the run merges
// them when the threads are done.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/loadgen/latency_histogram.h"

namespace rokka::bench {

struct RunStats {
  uint64_t msgs = 0;   // delivered (producer) or consumed (consumer) messages
  uint64_t bytes = 0;  // their value bytes
  uint64_t errors = 0;
  std::string first_error;
  uint64_t first_ns = 0;  // monotonic time of the first and last counted message (0: none)
  uint64_t last_ns = 0;
  LatencyHistogram latency;  // producer: send -> delivery report; consumer: send -> consume

  void add_error(std::string_view what, uint64_t n = 1) {
    if (errors == 0) first_error = what;
    errors += n;
  }

  void count_message(uint64_t value_bytes, uint64_t now_ns) {
    ++msgs;
    bytes += value_bytes;
    if (first_ns == 0) first_ns = now_ns;
    last_ns = now_ns;
  }

  void merge(const RunStats& other) {
    if (other.errors > 0) add_error(other.first_error, other.errors);
    msgs += other.msgs;
    bytes += other.bytes;
    if (other.first_ns != 0) first_ns = first_ns == 0 ? other.first_ns : std::min(first_ns, other.first_ns);
    last_ns = std::max(last_ns, other.last_ns);
    latency.merge(other.latency);
  }
};

}  // namespace rokka::bench
