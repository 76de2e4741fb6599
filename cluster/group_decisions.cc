#include "cluster/group_decisions.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_view.h"
#include "cluster/controller.h"

namespace rokka::cluster {
namespace {

using storage::Status;

bool contains(const std::vector<int32_t>& ids, int32_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

// The live member of `spec` whose hint is the most advanced (last epoch, then log end), the
// first in spec order on a tie; kNoLeader if none published a hint.
int32_t most_advanced(const GroupSpec& spec, const LiveMembers& live) {
  int32_t best = kNoLeader;
  GroupHint best_hint;
  for (const int32_t m : spec.members) {
    auto it = live.find(m);
    if (it == live.end() || !it->second.hint) continue;
    const GroupHint& h = *it->second.hint;
    if (best == kNoLeader || std::pair(h.last_epoch, h.log_end) > std::pair(best_hint.last_epoch, best_hint.log_end)) {
      best = m;
      best_hint = h;
    }
  }
  return best;
}

// `state` led by `leader` (a live member) with `sss`, at a new epoch.
Result<GroupState> led_by(const GroupState& state, int32_t leader, std::vector<int32_t> sss, const LiveMembers& live,
                          std::optional<int32_t> counter) {
  auto epoch = next_epoch(counter, state.epoch, live);
  if (!epoch.ok()) return epoch.status();
  GroupState next = state;
  next.leader = leader;
  next.leader_broker_epoch = leader == kNoLeader ? 0 : live.at(leader).broker_epoch;
  next.epoch = *epoch;
  if (sss != state.sss) {
    next.sss = std::move(sss);
    ++next.sss_version;
  }
  return next;
}

PutRequest put(std::string key, std::string value) { return PutRequest{std::move(key), std::move(value)}; }

Compare seen_at(std::string key, int64_t mod_revision) {
  return mod_revision == 0 ? Compare::absent(std::move(key)) : Compare::modified_at(std::move(key), mod_revision);
}

}  // namespace

LiveMembers live_members(const ClusterSnapshot& snap, std::string_view group) {
  LiveMembers live;
  for (const auto& [id, b] : snap.brokers) {
    LiveMember m{b.epoch, std::nullopt};
    if (auto it = b.registration.groups.find(group); it != b.registration.groups.end()) m.hint = it->second;
    live.emplace(id, std::move(m));
  }
  return live;
}

bool leader_alive(const GroupState& state, const LiveMembers& live) {
  if (state.leader == kNoLeader) return false;
  auto it = live.find(state.leader);
  return it != live.end() && it->second.broker_epoch == state.leader_broker_epoch;
}

Result<int32_t> next_epoch(std::optional<int32_t> counter, int32_t current, const LiveMembers& live) {
  int32_t top = std::max(counter.value_or(0), current);
  for (const auto& [id, m] : live) {
    if (m.hint) top = std::max(top, m.hint->last_epoch);
  }
  if (top == std::numeric_limits<int32_t>::max()) return Status::out_of_range("group epochs exhausted");
  return top + 1;
}

Result<GroupState> bootstrap(const GroupSpec& spec, const LiveMembers& live, std::optional<int32_t> counter) {
  const int32_t leader = most_advanced(spec, live);
  if (leader == kNoLeader) return Status::not_found("no live member has published the group");
  auto epoch = next_epoch(counter, 0, live);
  if (!epoch.ok()) return epoch.status();
  return GroupState{leader, live.at(leader).broker_epoch, *epoch, {leader}, 0};
}

Result<std::optional<GroupState>> elect(const GroupSpec& spec, const GroupState& state, const LiveMembers& live,
                                        bool unclean_allowed, std::optional<int32_t> counter) {
  if (leader_alive(state, live)) return std::optional<GroupState>();
  const int32_t failed = state.leader;
  auto in_sss_and_live = [&](int32_t m) { return contains(state.sss, m) && live.contains(m); };
  int32_t leader = kNoLeader;
  for (const int32_t m : spec.members) {
    if (m != failed && in_sss_and_live(m)) {
      leader = m;
      break;
    }
  }
  if (leader == kNoLeader && failed != kNoLeader && contains(spec.members, failed) && in_sss_and_live(failed)) {
    leader = failed;  // its new incarnation, the only SSS member alive
  }
  std::vector<int32_t> sss;
  if (leader != kNoLeader) {
    for (const int32_t m : state.sss) {
      if (live.contains(m) && (m != failed || m == leader)) sss.push_back(m);
    }
  } else if (unclean_allowed && (leader = most_advanced(spec, live)) != kNoLeader) {
    sss = {leader};
  } else if (failed == kNoLeader) {
    return std::optional<GroupState>();  // offline already, and still nobody can lead
  } else {
    sss = state.sss;  // offline: the SSS kept
  }
  auto next = led_by(state, leader, std::move(sss), live, counter);
  if (!next.ok()) return next.status();
  return std::optional<GroupState>(std::move(*next));
}

Result<AskedElection> preferred_election(const GroupSpec& spec, const GroupState& state, const LiveMembers& live,
                                         std::optional<int32_t> counter) {
  using Kind = AskedElection::Kind;
  if (spec.members.empty()) return AskedElection{Kind::kNotAvailable, {}, "the group's spec names no member"};
  const int32_t preferred = spec.members.front();
  const std::string name = "broker " + std::to_string(preferred);
  const bool alive = leader_alive(state, live);
  if (alive && state.leader == preferred) return AskedElection{Kind::kNotNeeded, {}, name + " leads already"};
  if (!contains(state.sss, preferred))
    return AskedElection{Kind::kNotAvailable, {}, name + ", the preferred leader, is not in the in-sync set"};
  if (!live.contains(preferred))
    return AskedElection{Kind::kNotAvailable, {}, name + ", the preferred leader, is not registered"};
  if (alive) {
    auto next = led_by(state, preferred, state.sss, live, counter);
    if (!next.ok()) return next.status();
    return AskedElection{Kind::kElect, std::move(*next), {}};
  }
  auto next = elect(spec, state, live, false, counter);
  if (!next.ok()) return next.status();
  if (!*next || (*next)->leader != preferred)
    return AskedElection{Kind::kNotAvailable, {}, name + ", the preferred leader, restarted since it led the group"};
  return AskedElection{Kind::kElect, std::move(**next), {}};
}

Result<AskedElection> unclean_election(const GroupSpec& spec, const GroupState& state, const LiveMembers& live,
                                       bool unclean_allowed, std::optional<int32_t> counter) {
  using Kind = AskedElection::Kind;
  if (leader_alive(state, live))
    return AskedElection{Kind::kNotNeeded, {}, "broker " + std::to_string(state.leader) + " leads"};
  auto next = elect(spec, state, live, unclean_allowed, counter);
  if (!next.ok()) return next.status();
  if (!*next || (*next)->leader == kNoLeader)
    return AskedElection{Kind::kNotAvailable, {},
                         unclean_allowed ? "no member of the group is registered"
                                         : "no member of the in-sync set is registered (unclean.leader.election.enable "
                                           "is false)"};
  return AskedElection{Kind::kElect, std::move(**next), {}};
}

Result<GroupState> shrink(const GroupState& state, int32_t member) {
  if (state.leader == kNoLeader) return Status::invalid_argument("sss shrink: the group has no leader");
  if (member == state.leader) return Status::invalid_argument("sss shrink: the leader stays in the sss");
  if (!contains(state.sss, member)) return Status::invalid_argument("sss shrink: not in the sss");
  GroupState next = state;
  next.sss.erase(std::find(next.sss.begin(), next.sss.end(), member));
  ++next.sss_version;
  return next;
}

Result<GroupState> expand(const GroupState& state, int32_t member) {
  if (state.leader == kNoLeader) return Status::invalid_argument("sss expand: the group has no leader");
  if (member < 0 || contains(state.sss, member)) return Status::invalid_argument("sss expand: already in the sss");
  if (state.sss.size() >= kMaxGroupMembers) return Status::invalid_argument("sss expand: the sss is full");
  GroupState next = state;
  next.sss.push_back(member);
  ++next.sss_version;
  return next;
}

Txn election_txn(const Keys& keys, int64_t controller_epoch, std::string_view group, const GroupState& next,
                 SeenRevisions seen) {
  Txn txn;
  txn.compare = {seen_at(keys.group_state(group), seen.state), seen_at(keys.epoch_counter(), seen.counter)};
  txn.success = {put(keys.group_state(group), encode_group_state(next)),
                 put(keys.epoch_counter(), encode_epoch_counter(next.epoch))};
  return controller_guard(keys, controller_epoch, std::move(txn));
}

Result<Txn> sss_change_txn(const Keys& keys, std::string_view group, const GroupState& next, int64_t seen_state) {
  if (next.leader == kNoLeader || next.leader_broker_epoch <= 0) {
    return Status::invalid_argument("sss change: the state names no leader with a broker epoch");
  }
  Txn txn;
  txn.compare = {Compare::created_at(keys.broker(next.leader), next.leader_broker_epoch),
                 seen_at(keys.group_state(group), seen_state)};
  txn.success = {put(keys.group_state(group), encode_group_state(next))};
  return txn;
}

Txn create_spec_txn(const Keys& keys, std::string_view group, const GroupSpec& spec) {
  Txn txn;
  txn.compare = {Compare::absent(keys.group_spec(group))};
  txn.success = {put(keys.group_spec(group), encode_group_spec(spec))};
  txn.failure = {RangeRequest{.key = keys.group_spec(group)}};
  return txn;
}

}  // namespace rokka::cluster
