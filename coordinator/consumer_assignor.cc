#include "coordinator/consumer_assignor.h"

#include <algorithm>
#include <set>
#include <utility>

namespace rokka::coordinator {
namespace {

// The input in indices: members sorted by id, the subscribed topics that exist in
// name order, who subscribes to each.
struct Problem {
  std::vector<const AssignorMember*> members;  // by member id
  std::vector<std::string> topics;             // subscribed by someone, with partitions
  std::vector<int32_t> partitions;             // per topic
  std::vector<std::vector<int>> subscribers;   // per topic: member indices, ascending (= by id)
  std::vector<std::vector<bool>> subscribes;   // [member][topic]

  Problem(const std::vector<AssignorMember>& input, const TopicPartitionCounts& counts) {
    for (const AssignorMember& m : input) members.push_back(&m);
    std::sort(members.begin(), members.end(),
              [](const AssignorMember* a, const AssignorMember* b) { return a->member_id < b->member_id; });
    std::set<std::string> names;
    for (const AssignorMember* m : members)
      for (const std::string& t : m->subscribed_topics) {
        auto it = counts.find(t);
        if (it != counts.end() && it->second > 0) names.insert(t);
      }
    topics.assign(names.begin(), names.end());
    for (const std::string& t : topics) partitions.push_back(counts.at(t));
    subscribers.resize(topics.size());
    subscribes.assign(members.size(), std::vector<bool>(topics.size(), false));
    for (size_t m = 0; m < members.size(); ++m)
      for (const std::string& t : members[m]->subscribed_topics) {
        const int ti = topic_index(t);
        if (ti < 0 || subscribes[m][ti]) continue;
        subscribes[m][ti] = true;
        subscribers[ti].push_back(static_cast<int>(m));
      }
  }

  int topic_index(const std::string& name) const {
    auto it = std::lower_bound(topics.begin(), topics.end(), name);
    return it != topics.end() && *it == name ? static_cast<int>(it - topics.begin()) : -1;
  }

  // The partitions of topic `ti` that member `m` owned, still exist and it still subscribes to.
  std::vector<int32_t> kept(size_t m, int ti) const {
    std::vector<int32_t> out;
    if (!subscribes[m][ti]) return out;
    auto it = members[m]->current.find(topics[ti]);
    if (it == members[m]->current.end()) return out;
    for (int32_t p : it->second)
      if (p >= 0 && p < partitions[ti]) out.push_back(p);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // owner[topic][partition] -> member index, as the result.
  GroupAssignment result(const std::vector<std::vector<int>>& owner) const {
    GroupAssignment out;
    for (const AssignorMember* m : members) out[m->member_id];
    for (size_t ti = 0; ti < topics.size(); ++ti)
      for (int32_t p = 0; p < partitions[ti]; ++p)
        if (owner[ti][p] >= 0) out[members[owner[ti][p]]->member_id][topics[ti]].push_back(p);
    return out;
  }
};

// The uniform assignor's working state: owners, per-member counts, and per topic its
// subscribers ordered by how many partitions they hold (the least loaded first).
class UniformBuilder {
 public:
  explicit UniformBuilder(const Problem& pb) : pb_(pb), count_(pb.members.size(), 0), by_load_(pb.topics.size()) {
    owner_.resize(pb.topics.size());
    for (size_t ti = 0; ti < pb.topics.size(); ++ti) {
      owner_[ti].assign(pb.partitions[ti], -1);
      for (int m : pb.subscribers[ti]) by_load_[ti].insert({0, m});
    }
  }

  std::vector<std::vector<int>> build() {
    // What members own and may keep, the first claim winning for a partition two report.
    for (size_t m = 0; m < pb_.members.size(); ++m)
      for (size_t ti = 0; ti < pb_.topics.size(); ++ti)
        for (int32_t p : pb_.kept(m, static_cast<int>(ti)))
          if (owner_[ti][p] < 0) give(static_cast<int>(ti), p, static_cast<int>(m));
    // The rest, each to its least loaded subscriber.
    for (size_t ti = 0; ti < pb_.topics.size(); ++ti)
      for (int32_t p = 0; p < pb_.partitions[ti]; ++p)
        if (owner_[ti][p] < 0) give(static_cast<int>(ti), p, by_load_[ti].begin()->second);
    // Balance: a member holding two more than a subscriber of one of its topics gives
    // it one, its highest partition first, so it keeps its lowest (Kafka's uniform
    // assignor, all subscribing to the same topics, keeps the first partitions of each
    // member's assignment up to its share). Each move lowers the sum of squared
    // counts, so this ends.
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t ti = pb_.topics.size(); ti-- > 0;) {
        for (int32_t p = pb_.partitions[ti]; p-- > 0;) {
          const int from = owner_[ti][p];
          const auto [load, to] = *by_load_[ti].begin();
          if (load + 2 > count_[from]) continue;
          take(static_cast<int>(ti), p, from);
          give(static_cast<int>(ti), p, to);
          moved = true;
        }
      }
    }
    return owner_;
  }

 private:
  void set_count(int m, int n) {
    for (size_t ti = 0; ti < pb_.topics.size(); ++ti) {
      if (!pb_.subscribes[m][ti]) continue;
      by_load_[ti].erase({count_[m], m});
      by_load_[ti].insert({n, m});
    }
    count_[m] = n;
  }
  void give(int ti, int32_t p, int m) {
    owner_[ti][p] = m;
    set_count(m, count_[m] + 1);
  }
  void take(int ti, int32_t p, int m) {
    owner_[ti][p] = -1;
    set_count(m, count_[m] - 1);
  }

  const Problem& pb_;
  std::vector<std::vector<int>> owner_;
  std::vector<int> count_;
  std::vector<std::set<std::pair<int, int>>> by_load_;  // per topic: (count, member)
};

// Rack alignment after the assignor balanced the partitions: a "unit" is what moves as
// one -- a partition (uniform), or a partition number of a set of co-partitioned topics
// (range) -- and a member matches a unit when its rack holds a replica of every partition
// in it. A unit on a member it does not match goes to a subscriber it matches, taking in
// exchange one of that member's units of the same kind the first can hold: a swap, so
// every member keeps its counts and the balance is the assignor's. Each swap matches
// more units than before, so this ends.
class RackAligner {
 public:
  struct Unit {
    std::vector<std::pair<int, int32_t>> partitions;  // (topic index, partition)
    int kind = 0;                                    // units of one kind may be exchanged
  };

  RackAligner(const Problem& pb, const PartitionRacks& racks, std::vector<std::vector<int>>& owner)
      : pb_(pb), owner_(owner) {
    racks_.resize(pb.topics.size());
    for (size_t ti = 0; ti < pb.topics.size(); ++ti) {
      auto it = racks.find(pb.topics[ti]);
      racks_[ti].resize(pb.partitions[ti]);
      if (it == racks.end()) continue;
      for (int32_t p = 0; p < pb.partitions[ti] && static_cast<size_t>(p) < it->second.size(); ++p)
        racks_[ti][p] = it->second[p];
    }
  }

  // Whether racks can change anything: a member with a rack, and partitions on different
  // sets of racks, some holding that member's rack.
  bool useful() const {
    std::set<std::string> member_racks;
    for (const AssignorMember* m : pb_.members)
      if (m->rack_id) member_racks.insert(*m->rack_id);
    if (member_racks.empty()) return false;
    const std::vector<std::string>* first = nullptr;
    bool differ = false, overlap = false;
    for (size_t ti = 0; ti < racks_.size(); ++ti)
      for (const std::vector<std::string>& r : racks_[ti]) {
        if (first == nullptr) first = &r;
        else if (!same_set(*first, r)) differ = true;
        for (const std::string& rack : r) overlap = overlap || member_racks.contains(rack);
      }
    return differ && overlap;
  }

  void align(std::vector<Unit> units) {
    units_ = std::move(units);
    const size_t n = pb_.members.size();
    mismatched_.assign(n, {});
    matched_.assign(n, {});
    holds_rack_.assign(n, {});
    for (size_t m = 0; m < n; ++m)
      if (pb_.members[m]->rack_id) by_rack_[*pb_.members[m]->rack_id].push_back(static_cast<int>(m));
    for (size_t u = 0; u < units_.size(); ++u)
      if (const int m = owner_of(u); m >= 0) hold(u, m, true);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t u = 0; u < units_.size(); ++u) {
        const int x = owner_of(u);
        if (x < 0 || matches(x, u)) continue;
        changed = place(u, x) || changed;
      }
    }
  }

 private:
  static bool same_set(std::vector<std::string> a, std::vector<std::string> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
  }
  int owner_of(size_t u) const {
    const auto [ti, p] = units_[u].partitions.front();
    return owner_[ti][p];
  }
  bool subscribes(int m, size_t u) const {
    for (const auto& [ti, p] : units_[u].partitions)
      if (!pb_.subscribes[m][ti]) return false;
    return true;
  }
  bool matches(int m, size_t u) const {
    const std::optional<std::string>& rack = pb_.members[m]->rack_id;
    if (!rack) return false;
    for (const auto& [ti, p] : units_[u].partitions) {
      const std::vector<std::string>& r = racks_[ti][p];
      if (std::find(r.begin(), r.end(), *rack) == r.end()) return false;
    }
    return true;
  }
  // The racks of a unit's first partition: a member matching the unit is on one of them.
  const std::vector<std::string>& unit_racks(size_t u) const {
    const auto [ti, p] = units_[u].partitions.front();
    return racks_[ti][p];
  }
  // Member m holds unit u (`in`) or gives it up.
  void hold(size_t u, int m, bool in) {
    (matches(m, u) ? matched_ : mismatched_)[m].erase(u);
    if (in) (matches(m, u) ? matched_ : mismatched_)[m].insert(u);
    for (const std::string& rack : unit_racks(u)) holds_rack_[m][rack] += in ? 1 : -1;
  }
  void give(size_t u, int from, int to) {
    for (const auto& [ti, p] : units_[u].partitions) owner_[ti][p] = to;
    hold(u, from, false);
    hold(u, to, true);
  }
  bool exchangeable(size_t u, size_t v, int x) const { return units_[v].kind == units_[u].kind && subscribes(x, v); }
  // Unit u, on x which it does not match, to a subscriber on its rack. True if it moved.
  bool place(size_t u, int x) {
    const std::optional<std::string>& x_rack = pb_.members[x]->rack_id;
    for (const std::string& rack : unit_racks(u)) {
      auto candidates = by_rack_.find(rack);
      if (candidates == by_rack_.end()) continue;
      for (const int y : candidates->second) {
        if (y == x || !subscribes(y, u) || !matches(y, u)) continue;
        // In exchange, a unit of y's that x can hold and that y loses nothing by (it does
        // not match y), else one x matches: either way more units match than before.
        for (size_t v : mismatched_[y]) {
          if (!exchangeable(u, v, x)) continue;
          give(v, y, x);
          give(u, x, y);
          return true;
        }
        if (!x_rack) continue;
        auto on_x_rack = holds_rack_[y].find(*x_rack);
        if (on_x_rack == holds_rack_[y].end() || on_x_rack->second <= 0) continue;
        for (size_t v : matched_[y]) {
          if (!exchangeable(u, v, x) || !matches(x, v)) continue;
          give(v, y, x);
          give(u, x, y);
          return true;
        }
      }
    }
    return false;
  }

  const Problem& pb_;
  std::vector<std::vector<int>>& owner_;
  std::vector<std::vector<std::vector<std::string>>> racks_;  // [topic][partition]
  std::vector<Unit> units_;
  std::map<std::string, std::vector<int>> by_rack_;        // rack -> its members, by id
  std::vector<std::set<size_t>> matched_, mismatched_;    // per member: the units it holds, on its rack or not
  std::vector<std::map<std::string, int>> holds_rack_;    // per member: how many of its units each rack holds
};

}  // namespace

GroupAssignment assign_uniform(const std::vector<AssignorMember>& members, const TopicPartitionCounts& topics,
                               const PartitionRacks& racks) {
  const Problem pb(members, topics);
  std::vector<std::vector<int>> owner = UniformBuilder(pb).build();
  if (!racks.empty()) {
    RackAligner aligner(pb, racks, owner);
    if (aligner.useful()) {
      // Every partition is a unit of its own; any two may be exchanged (each member keeps
      // its count, and a member only ever takes a partition of a topic it subscribes to).
      std::vector<RackAligner::Unit> units;
      for (size_t ti = 0; ti < pb.topics.size(); ++ti)
        for (int32_t p = 0; p < pb.partitions[ti]; ++p) units.push_back({{{static_cast<int>(ti), p}}, 0});
      aligner.align(std::move(units));
    }
  }
  return pb.result(owner);
}

GroupAssignment assign_range(const std::vector<AssignorMember>& members, const TopicPartitionCounts& topics,
                             const PartitionRacks& racks) {
  const Problem pb(members, topics);
  std::vector<std::vector<int>> owner(pb.topics.size());
  for (size_t ti = 0; ti < pb.topics.size(); ++ti) {
    const int32_t n = pb.partitions[ti];
    const std::vector<int>& subs = pb.subscribers[ti];
    owner[ti].assign(n, -1);
    if (subs.empty()) continue;
    const int32_t m = static_cast<int32_t>(subs.size());
    std::vector<int32_t> quota(subs.size()), held(subs.size(), 0);
    for (int32_t i = 0; i < m; ++i) quota[i] = n / m + (i < n % m ? 1 : 0);
    // Each keeps what it owned, lowest partitions first, up to its count.
    for (size_t i = 0; i < subs.size(); ++i)
      for (int32_t p : pb.kept(subs[i], static_cast<int>(ti)))
        if (held[i] < quota[i] && owner[ti][p] < 0) {
          owner[ti][p] = subs[i];
          ++held[i];
        }
    // The rest in partition order, filling members in id order.
    size_t i = 0;
    for (int32_t p = 0; p < n; ++p) {
      if (owner[ti][p] >= 0) continue;
      while (held[i] >= quota[i]) ++i;  // the quotas sum to n: someone has room
      owner[ti][p] = subs[i];
      ++held[i];
    }
  }
  if (!racks.empty()) {
    RackAligner aligner(pb, racks, owner);
    if (aligner.useful()) {
      // Topics with the same partition count and the same subscribers are co-partitioned:
      // partition number p of all of them is one unit. Units are exchanged only within
      // their topic (or co-partitioned set), so each member keeps its count of each.
      std::map<std::pair<int32_t, std::vector<int>>, std::vector<int>> sets;  // (count, subscribers) -> topics
      for (size_t ti = 0; ti < pb.topics.size(); ++ti)
        sets[{pb.partitions[ti], pb.subscribers[ti]}].push_back(static_cast<int>(ti));
      std::vector<RackAligner::Unit> units;
      int kind = 0;
      for (const auto& [key, set] : sets) {
        for (int32_t p = 0; p < key.first; ++p) {
          RackAligner::Unit unit;
          unit.kind = kind;
          for (int ti : set) unit.partitions.push_back({ti, p});
          units.push_back(std::move(unit));
        }
        ++kind;
      }
      aligner.align(std::move(units));
    }
  }
  return pb.result(owner);
}

AssignorFunction find_assignor(std::string_view name) {
  if (name == "uniform") return &assign_uniform;
  if (name == "range") return &assign_range;
  return nullptr;
}

}  // namespace rokka::coordinator
