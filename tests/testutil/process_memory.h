// This process's resident memory from /proc/self/status: the current RSS and its peak
// (VmHWM), which reset_peak_rss() sets back to the current RSS (Linux clear_refs 5).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace rokka::testutil {

// A "VmXxx:" field of /proc/self/status in bytes; -1 if absent.
inline int64_t self_status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;
  }
  return -1;
}
inline int64_t rss_bytes() { return self_status_bytes("VmRSS:"); }
inline int64_t peak_rss_bytes() { return self_status_bytes("VmHWM:"); }
inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// How far the peak RSS rose above the current RSS while f() ran.
template <typename F>
int64_t peak_growth_bytes(F&& f) {
  reset_peak_rss();
  const int64_t before = rss_bytes();
  f();
  return peak_rss_bytes() - before;
}

}  // namespace rokka::testutil
