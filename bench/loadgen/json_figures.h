// The figures loadgen and wiregen both write into their JSON line: throughput over a
// run and a latency histogram's percentiles, under the same keys (bench/report.py
// reads them).
#pragma once

#include <cstdint>
#include <string>

#include "bench/loadgen/json_line.h"
#include "bench/loadgen/latency_histogram.h"
#include "bench/loadgen/run_stats.h"

namespace rokka::bench {

inline double to_ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// msgs, bytes and rates over [start_ns, the last counted message].
inline void add_throughput(JsonLine& json, const RunStats& stats, uint64_t start_ns) {
  const double elapsed_s = stats.last_ns > start_ns ? static_cast<double>(stats.last_ns - start_ns) / 1e9 : 0;
  json.add("msgs", stats.msgs)
      .add("bytes", stats.bytes)
      .add("elapsed_s", elapsed_s)
      .add("msgs_per_s", elapsed_s > 0 ? static_cast<double>(stats.msgs) / elapsed_s : 0.0)
      .add("mb_per_s", elapsed_s > 0 ? static_cast<double>(stats.bytes) / 1e6 / elapsed_s : 0.0);
}

// <prefix>_count, _p50_ms, _p99_ms, _p999_ms, _max_ms.
inline void add_latency(JsonLine& json, const std::string& prefix, const LatencyHistogram& h) {
  json.add(prefix + "_count", h.count())
      .add(prefix + "_p50_ms", to_ms(h.percentile(0.50)))
      .add(prefix + "_p99_ms", to_ms(h.percentile(0.99)))
      .add(prefix + "_p999_ms", to_ms(h.percentile(0.999)))
      .add(prefix + "_max_ms", to_ms(h.max()));
}

}  // namespace rokka::bench
