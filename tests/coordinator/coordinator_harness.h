// A GroupCoordinator driven by hand: a ManualClock, and a FakeStrand (a FakeMetaStore whose
// writes complete when the test says, a queue standing in for the strand).
// Helpers capture the answers of parked calls so tests can check "not answered yet".
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group_coordinator.h"
#include "coordinator/state_loader.h"
#include "tests/coordinator/fake_strand.h"
#include "tests/testutil/manual_clock.h"

namespace rokka::coordinator {

// gtest prints GroupError by name.
inline void PrintTo(GroupError e, std::ostream* os) { *os << group_error_name(e); }

}  // namespace rokka::coordinator

namespace rokka::coordinator::test {

// Consumer-protocol subscription bytes (version 0): the topics, null user data.
inline std::string subscription(const std::vector<std::string>& topics) {
  std::string out;
  auto be = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  be(0, 2);
  be(topics.size(), 4);
  for (const std::string& t : topics) {
    be(t.size(), 2);
    out += t;
  }
  be(0xffffffff, 4);  // user data: null
  return out;
}

inline CoordinatorOptions test_options() {
  CoordinatorOptions o;
  o.min_session_timeout_ms = 1000;
  o.max_session_timeout_ms = 60000;
  o.initial_rebalance_delay_ms = 3000;
  o.offsets_retention_ms = 24 * 3600 * 1000LL;
  o.offsets_retention_check_interval_ms = 60000;
  o.consumer_verify_unchanged_records = true;
  return o;
}

template <typename T>
using Answer = std::shared_ptr<std::optional<T>>;  // empty until the coordinator answers

class CoordinatorHarness : public FakeStrand {
 public:
  static constexpr int32_t kSessionMs = 10000;
  static constexpr int32_t kRebalanceMs = 30000;

  explicit CoordinatorHarness(CoordinatorOptions options = test_options(), bool load = true) : options_(options) {
    start(load);
  }

  GroupCoordinator& coord() { return *coordinator_; }

  // A new coordinator on the same MetaStore, as after a broker restart (writes that were
  // not completed are lost, as in a crash).
  void restart() {
    coordinator_.reset();
    while (meta.fail_next()) {
    }
    forget_posted();  // completions for the old coordinator: never run
    start(true);
  }

  // Moves time forward by `ms`, stopping at each deadline on the way to fire it then (as
  // real time would: a timer a callback schedules is relative to that moment).
  size_t advance(int64_t ms) {
    const int64_t target = clock.now_ms() + ms;
    size_t fired = 0;
    for (auto next = coordinator_->next_deadline(); next && *next <= target; next = coordinator_->next_deadline()) {
      clock.set(std::max(clock.now_ms(), *next));
      fired += coordinator_->run_due_timers();
    }
    clock.set(target);
    return fired + coordinator_->run_due_timers();
  }

  // Lets `ms` pass while every listed member heartbeats every 3 s; writes complete.
  void keep_alive(int64_t ms, const std::string& group, int32_t generation, const std::vector<std::string>& members) {
    for (int64_t waited = 0; waited < ms; waited += 3000) {
      advance(std::min<int64_t>(3000, ms - waited));
      for (const std::string& m : members) heartbeat(group, generation, m);
      settle();
    }
  }
  // The same, with every write left pending.
  void keep_alive_without_settling(int64_t ms, const std::string& group, int32_t generation,
                                   const std::vector<std::string>& members) {
    for (int64_t waited = 0; waited < ms; waited += 3000) {
      advance(std::min<int64_t>(3000, ms - waited));
      for (const std::string& m : members) heartbeat(group, generation, m);
    }
  }

  JoinGroupArgs join_args(const std::string& group, const std::string& member_id = "",
                          std::vector<Protocol> protocols = {{"range", subscription({"t"})}}) const {
    JoinGroupArgs a;
    a.group_id = group;
    a.member_id = member_id;
    a.protocol_type = "consumer";
    a.protocols = std::move(protocols);
    a.session_timeout_ms = kSessionMs;
    a.rebalance_timeout_ms = kRebalanceMs;
    a.client_id = "client";
    a.client_host = "/127.0.0.1";
    a.api_version = 3;  // no MEMBER_ID_REQUIRED round unless a test asks for it
    return a;
  }

  Answer<JoinGroupResult> join(JoinGroupArgs args) {
    auto answer = std::make_shared<std::optional<JoinGroupResult>>();
    coordinator_->join_group(std::move(args), [answer](JoinGroupResult r) { *answer = std::move(r); });
    return answer;
  }
  Answer<SyncGroupResult> sync(const std::string& group, int32_t generation, const std::string& member_id,
                               std::vector<SyncGroupAssignment> assignments = {},
                               std::optional<std::string> instance_id = std::nullopt) {
    SyncGroupArgs a;
    a.group_id = group;
    a.generation_id = generation;
    a.member_id = member_id;
    a.group_instance_id = std::move(instance_id);
    a.assignments = std::move(assignments);
    auto answer = std::make_shared<std::optional<SyncGroupResult>>();
    coordinator_->sync_group(std::move(a), [answer](SyncGroupResult r) { *answer = std::move(r); });
    return answer;
  }
  GroupError heartbeat(const std::string& group, int32_t generation, const std::string& member_id,
                       std::optional<std::string> instance_id = std::nullopt) {
    return coordinator_->heartbeat({group, generation, member_id, std::move(instance_id)});
  }
  LeaveGroupResult leave(const std::string& group, std::vector<MemberIdentity> members) {
    return coordinator_->leave_group({group, std::move(members)});
  }
  Answer<OffsetCommitResult> commit(const std::string& group, int32_t generation, const std::string& member_id,
                                    const std::string& topic, int32_t partition, int64_t offset,
                                    std::optional<std::string> metadata = "meta") {
    OffsetCommitArgs a;
    a.group_id = group;
    a.generation_id = generation;
    a.member_id = member_id;
    a.topics.push_back({topic, {PartitionCommit{partition, offset, 7, std::move(metadata)}}});
    auto answer = std::make_shared<std::optional<OffsetCommitResult>>();
    coordinator_->commit_offsets(std::move(a), [answer](OffsetCommitResult r) { *answer = std::move(r); });
    return answer;
  }
  // The committed offset of one partition (-1 if none), failing the test on any error.
  PartitionOffset fetch(const std::string& group, const std::string& topic, int32_t partition,
                        bool require_stable = false) {
    OffsetFetchArgs a;
    a.group_id = group;
    a.topics = std::vector<TopicPartitions>{{topic, {partition}}};
    a.require_stable = require_stable;
    OffsetFetchResult r = coordinator_->fetch_offsets(a);
    if (r.error != GroupError::kNone || r.topics.size() != 1 || r.topics[0].partitions.size() != 1) {
      PartitionOffset broken;
      broken.error = r.error == GroupError::kNone ? GroupError::kCoordinatorNotAvailable : r.error;
      return broken;
    }
    return r.topics[0].partitions[0];
  }

  // A group of `n` dynamic members that has completed its first rebalance: every member
  // joined (the initial delay ran out), the leader sent an assignment naming each member,
  // and every member synced. Member i's assignment is "assignment-<member id>".
  struct StableGroup {
    std::vector<std::string> members;
    std::string leader;
    int32_t generation = -1;
  };
  StableGroup form_group(const std::string& group, size_t n, const std::vector<std::string>& topics = {"t"}) {
    std::vector<Answer<JoinGroupResult>> joins;
    for (size_t i = 0; i < n; ++i) {
      joins.push_back(join(join_args(group, "", {{"range", subscription(topics)}})));
    }
    advance(options_.initial_rebalance_delay_ms * 2L + 1);  // one extension for late joiners, then done
    StableGroup g;
    for (auto& j : joins) {
      g.members.push_back((*j)->member_id);
      g.generation = (*j)->generation_id;
      g.leader = (*j)->leader;
    }
    std::vector<SyncGroupAssignment> assignments;
    for (const std::string& m : g.members) assignments.push_back({m, "assignment-" + m});
    std::vector<Answer<SyncGroupResult>> syncs;
    for (const std::string& m : g.members) syncs.push_back(sync(group, g.generation, m, m == g.leader ? assignments : std::vector<SyncGroupAssignment>{}));
    settle();
    return g;
  }

  testutil::ManualClock clock;
  // The topics consumer groups (KIP-848) see: name -> partition count.
  std::map<std::string, int32_t> topics;

 private:
  void start(bool load) {
    coordinator_ = std::make_unique<GroupCoordinator>(options_, meta, clock.fn(), post());
    TopicCatalog catalog;
    catalog.partition_count = [this](const std::string& t) {
      auto it = topics.find(t);
      return it == topics.end() ? 0 : it->second;
    };
    catalog.match = [this](const std::string& prefix_star) {  // tests use "prefix.*" only
      std::vector<std::string> out;
      const std::string prefix = prefix_star.substr(0, prefix_star.size() - 2);
      for (const auto& [t, n] : topics)
        if (t.starts_with(prefix)) out.push_back(t);
      return out;
    };
    coordinator_->set_topic_catalog(std::move(catalog));
    if (load) coordinator_->install(load_coordinator_state(meta));
  }

  CoordinatorOptions options_;
  std::unique_ptr<GroupCoordinator> coordinator_;
};

}  // namespace rokka::coordinator::test
