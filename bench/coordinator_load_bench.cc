// Coordinator start-up cost: read back N committed offsets (and some stored groups) from a
// MetaStore and install them; then the cost of heartbeats at 1,000 groups x 10 members.
// Prints numbers; asserts nothing. Usage: coordinator_load_bench [offsets=100000]
//
// The MetaStore is the in-memory fake from tests/testutil, so this measures the
// coordinator's own work (decode, index build), not the storage engine's scan.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>

#include "coordinator/group_coordinator.h"
#include "coordinator/meta_records.h"
#include "coordinator/state_loader.h"
#include "tests/testutil/fake_meta_store.h"
#include "tests/testutil/manual_clock.h"

namespace {

using rokka::coordinator::CommittedOffset;
using rokka::coordinator::CoordinatorOptions;
using rokka::coordinator::GroupCoordinator;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void fill(rokka::testutil::FakeMetaStore& meta, int offsets) {
  const int per_group = 1000;
  for (int i = 0; i < offsets; ++i) {
    const std::string group = "group-" + std::to_string(i / per_group);
    const CommittedOffset c{int64_t{i} * 7, 5, "", 1'700'000'000'000, -1};
    meta.put(rokka::coordinator::encode_offset_key(group, {"topic-" + std::to_string(i % 50), i % per_group}),
             rokka::coordinator::encode_offset_value(c));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int offsets = argc > 1 ? std::atoi(argv[1]) : 100000;
  rokka::testutil::FakeMetaStore meta;
  fill(meta, offsets);
  rokka::testutil::ManualClock clock;
  std::deque<std::function<void()>> posted;
  GroupCoordinator coordinator(CoordinatorOptions(), meta, clock.fn(),
                               [&](std::function<void()> fn) { posted.push_back(std::move(fn)); });

  auto t0 = Clock::now();
  const size_t scanned = meta.scan(rokka::coordinator::kOffsetKeyPrefix).size();
  const double scan_ms = ms_since(t0);
  t0 = Clock::now();
  rokka::coordinator::LoadedState state = rokka::coordinator::load_coordinator_state(meta);
  const double read_ms = ms_since(t0);
  t0 = Clock::now();
  coordinator.install(std::move(state));
  const double install_ms = ms_since(t0);
  std::printf("load: offsets=%zu groups=%zu read_ms=%.1f (the fake MetaStore's scan copy alone: %.1f for %zu) "
              "install_ms=%.1f total_ms=%.1f\n",
              coordinator.offsets().size(), coordinator.group_count(), read_ms, scan_ms, scanned, install_ms,
              read_ms + install_ms);

  // 1,000 groups x 10 members (JoinGroup v3: no member-id round), then heartbeats.
  std::vector<std::pair<std::string, std::string>> members;
  CoordinatorOptions options;
  for (int g = 0; g < 1000; ++g) {
    for (int m = 0; m < 10; ++m) {
      rokka::coordinator::JoinGroupArgs a;
      a.group_id = "live-" + std::to_string(g);
      a.protocol_type = "consumer";
      a.protocols = {{"range", "x"}};
      a.session_timeout_ms = 10000;
      a.rebalance_timeout_ms = 10000;
      a.api_version = 3;
      coordinator.join_group(a, [&members, gid = a.group_id](rokka::coordinator::JoinGroupResult r) {
        members.emplace_back(gid, r.member_id);
      });
    }
  }
  clock.advance(options.initial_rebalance_delay_ms);
  coordinator.run_due_timers();
  clock.advance(options.initial_rebalance_delay_ms);
  coordinator.run_due_timers();
  for (const auto& [group, member] : members) {  // the first member to join leads
    rokka::coordinator::SyncGroupArgs s;
    s.group_id = group;
    s.generation_id = 1;
    s.member_id = member;
    coordinator.sync_group(s, [](rokka::coordinator::SyncGroupResult) {});
  }
  meta.complete_all();
  while (!posted.empty()) {
    posted.front()();
    posted.pop_front();
  }
  t0 = Clock::now();
  const int rounds = 20;
  for (int r = 0; r < rounds; ++r) {
    clock.advance(3000);
    coordinator.run_due_timers();
    for (const auto& [group, member] : members) coordinator.heartbeat({group, 1, member, std::nullopt});
  }
  const double hb_ms = ms_since(t0);
  const double count = static_cast<double>(members.size()) * rounds;
  std::printf("heartbeats: members=%zu count=%.0f ms=%.1f per_second=%.0f timers=%zu fired_total=%llu\n",
              members.size(), count, hb_ms, count / (hb_ms / 1000.0), coordinator.timers().size(),
              static_cast<unsigned long long>(coordinator.timers().fired_total()));
  return 0;
}
