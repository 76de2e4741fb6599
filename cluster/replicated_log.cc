#include "cluster/replicated_log.h"

#include <algorithm>

namespace rokka::cluster {
namespace {

// Where epoch list[i] ends: the next epoch's start, or the log's end for the last one.
int64_t epoch_end(std::span<const EpochStart> list, size_t i, int64_t log_end) {
  return i + 1 < list.size() ? list[i + 1].start : log_end;
}

}  // namespace

int64_t truncation_point(std::span<const EpochStart> leader_epochs, int64_t leader_end,
                         std::span<const EpochStart> follower_epochs, int64_t follower_begin, int64_t follower_end) {
  // From the follower's newest epoch down: the first one the leader has with the same start.
  for (size_t fi = follower_epochs.size(); fi-- > 0;) {
    const EpochStart& f = follower_epochs[fi];
    auto it = std::lower_bound(leader_epochs.begin(), leader_epochs.end(), f.epoch,
                               [](const EpochStart& e, int32_t epoch) { return e.epoch < epoch; });
    if (it == leader_epochs.end() || it->epoch != f.epoch || it->start != f.start) continue;
    const size_t li = static_cast<size_t>(it - leader_epochs.begin());
    const int64_t agreed = std::min(epoch_end(leader_epochs, li, leader_end), epoch_end(follower_epochs, fi, follower_end));
    return std::clamp(agreed, follower_begin, std::max(follower_begin, follower_end));
  }
  return follower_begin;
}

}  // namespace rokka::cluster
