// The cost of a steady ConsumerGroupHeartbeat (KIP-848) in a group of N members over P
// partitions: nothing changes, so nothing is written; before 2026-12-06 the group's whole
// "k/" record was re-encoded on every heartbeat to find that out. Prints numbers for each
// size given, and the cost of one encode of that group's record for comparison; asserts
// nothing. The MetaStore is the in-memory fake (writes complete at once).
//
// Usage: consumer_heartbeat_bench [members:partitions ...]   (default 10:100 100:1000 1000:10000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "coordinator/group_coordinator.h"
#include "coordinator/meta_records.h"
#include "tests/testutil/fake_meta_store.h"
#include "tests/testutil/manual_clock.h"

namespace {

using rokka::coordinator::ConsumerGroupHeartbeatArgs;
using rokka::coordinator::ConsumerGroupHeartbeatResult;
using rokka::coordinator::CoordinatorOptions;
using rokka::coordinator::GroupCoordinator;
using rokka::coordinator::TopicPartitionsMap;
using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

struct Member {
  std::string id;
  int32_t epoch = 0;
  TopicPartitionsMap owned;
};

void run(int members, int partitions) {
  rokka::testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  rokka::testutil::ManualClock clock;
  std::deque<std::function<void()>> posted;
  GroupCoordinator coordinator(CoordinatorOptions(), meta, clock.fn(),
                               [&](std::function<void()> fn) { posted.push_back(std::move(fn)); });
  rokka::coordinator::TopicCatalog catalog;
  catalog.partition_count = [partitions](const std::string& t) { return t == "t" ? partitions : 0; };
  catalog.match = [](const std::string&) { return std::vector<std::string>{}; };
  coordinator.set_topic_catalog(std::move(catalog));
  coordinator.install({});
  auto pump = [&] {
    while (!posted.empty()) {
      auto fn = std::move(posted.front());
      posted.pop_front();
      fn();
    }
  };
  auto beat = [&](Member& m, bool join, bool report_owned) {
    ConsumerGroupHeartbeatArgs a;
    a.group_id = "g";
    a.api_version = 1;
    a.heartbeat.member_id = m.id;
    a.heartbeat.member_epoch = m.epoch;
    if (join) {
      a.heartbeat.rebalance_timeout_ms = 30000;
      a.heartbeat.subscribed_topics = std::vector<std::string>{"t"};
    }
    if (join || report_owned) a.heartbeat.owned = m.owned;
    coordinator.consumer_group_heartbeat(std::move(a), [&m](ConsumerGroupHeartbeatResult r) {
      if (r.error != rokka::coordinator::GroupError::kNone) return;
      m.epoch = r.member_epoch;
      if (r.assignment) m.owned = *r.assignment;
    });
    pump();
  };
  std::vector<Member> group(members);
  for (int i = 0; i < members; ++i) {
    group[i].id = "member-" + std::to_string(i);
    beat(group[i], true, true);
  }
  for (int round = 0; round < 4; ++round)
    for (Member& m : group) beat(m, false, true);
  const auto* g = coordinator.find_consumer_group("g");
  if (g == nullptr || g->state() != rokka::coordinator::ConsumerGroup::State::kStable) {
    std::printf("members=%d partitions=%d: the group did not settle\n", members, partitions);
    return;
  }
  const size_t writes_before = meta.writes();
  const int rounds = std::max(3, 20000 / members);
  auto t0 = Clock::now();
  for (int r = 0; r < rounds; ++r) {
    clock.advance(1000);
    for (Member& m : group) beat(m, false, false);  // nothing changed: owned not sent (null)
  }
  const double steady_us = us_since(t0) / (static_cast<double>(rounds) * members);
  const size_t writes = meta.writes() - writes_before;
  t0 = Clock::now();
  const int encodes = std::max(3, 2000 / members);
  size_t bytes = 0;
  for (int i = 0; i < encodes; ++i) bytes = rokka::coordinator::encode_consumer_group_value(g->snapshot()).size();
  const double encode_us = us_since(t0) / encodes;
  std::printf("members=%d partitions=%d: steady heartbeat %.1f us (%d rounds, %zu writes); one record encode "
              "%.1f us (%zu bytes); per member per %d ms heartbeat interval, encoding every heartbeat costs "
              "%.1f ms of CPU per second for the group\n",
              members, partitions, steady_us, rounds, writes, encode_us, bytes,
              CoordinatorOptions().consumer_heartbeat_interval_ms,
              encode_us * members / (CoordinatorOptions().consumer_heartbeat_interval_ms / 1000.0) / 1000.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<int, int>> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto colon = arg.find(':');
    if (colon == std::string::npos) return std::fprintf(stderr, "usage: %s [members:partitions ...]\n", argv[0]), 2;
    sizes.emplace_back(std::atoi(arg.substr(0, colon).c_str()), std::atoi(arg.substr(colon + 1).c_str()));
  }
  if (sizes.empty()) sizes = {{10, 100}, {100, 1000}, {1000, 10000}};
  for (const auto& [m, p] : sizes) run(m, p);
  return 0;
}
