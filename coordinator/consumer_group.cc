#include "coordinator/consumer_group.h"

#include <algorithm>

namespace rokka::coordinator {
namespace {

bool contains(const TopicPartitionsMap& m, const std::string& topic, int32_t p) {
  auto it = m.find(topic);
  return it != m.end() && std::binary_search(it->second.begin(), it->second.end(), p);
}

// a ∩ b (keep) or a − b (!keep).
TopicPartitionsMap filter(const TopicPartitionsMap& a, const TopicPartitionsMap& b, bool keep) {
  TopicPartitionsMap out;
  for (const auto& [topic, ps] : a)
    for (int32_t p : ps)
      if (contains(b, topic, p) == keep) out[topic].push_back(p);
  return out;
}

bool intersects(const TopicPartitionsMap& a, const TopicPartitionsMap& b) { return !filter(a, b, true).empty(); }
bool subset(const TopicPartitionsMap& a, const TopicPartitionsMap& b) { return filter(a, b, false).empty(); }

void add(TopicPartitionsMap& to, const TopicPartitionsMap& more) {
  for (const auto& [topic, ps] : more) {
    auto& list = to[topic];
    list.insert(list.end(), ps.begin(), ps.end());
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
}

// Sorted, unique, without empty topics: the form members and targets are compared in.
TopicPartitionsMap normalized(TopicPartitionsMap m) {
  for (auto it = m.begin(); it != m.end();) {
    std::sort(it->second.begin(), it->second.end());
    it->second.erase(std::unique(it->second.begin(), it->second.end()), it->second.end());
    it = it->second.empty() ? m.erase(it) : std::next(it);
  }
  return m;
}

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

ConsumerHeartbeatResult failure(GroupError e, std::string message = {}) {
  ConsumerHeartbeatResult r;
  r.error = e;
  r.message = std::move(message);
  return r;
}

}  // namespace

ConsumerGroup::ConsumerGroup(std::string group_id, AssignorFunction assignor, int32_t max_size)
    : group_id_(std::move(group_id)), assignor_(assignor), max_size_(max_size) {}

const TopicPartitionsMap& ConsumerGroup::target(const std::string& member_id) const {
  static const TopicPartitionsMap kNone;
  auto it = target_.find(member_id);
  return it == target_.end() ? kNone : it->second;
}

ConsumerGroup::State ConsumerGroup::state() const {
  if (members_.empty()) return State::kEmpty;
  for (const auto& [id, m] : members_)
    if (!m.left_static() && (m.member_epoch != assignment_epoch_ || m.state != ConsumerMember::State::kStable))
      return State::kReconciling;
  return State::kStable;
}

std::vector<std::string> ConsumerGroup::member_topics(const ConsumerMember& m) const {
  std::vector<std::string> out = m.subscribed_topics;
  if (m.subscribed_regex) {
    auto it = regex_topics_.find(*m.subscribed_regex);
    if (it != regex_topics_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  }
  return sorted_unique(std::move(out));
}

std::set<std::string> ConsumerGroup::subscribed_topics() const {
  std::set<std::string> out;
  for (const auto& [id, m] : members_) {
    const std::vector<std::string> topics = member_topics(m);
    out.insert(topics.begin(), topics.end());
  }
  return out;
}

std::set<std::string> ConsumerGroup::regexes() const {
  std::set<std::string> out;
  for (const auto& [id, m] : members_)
    if (m.subscribed_regex) out.insert(*m.subscribed_regex);
  return out;
}

void ConsumerGroup::set_regex_topics(const std::string& regex, std::vector<std::string> topics) {
  topics = sorted_unique(std::move(topics));
  auto it = regex_topics_.find(regex);
  if (it != regex_topics_.end() && it->second == topics) return;
  const bool in_use = regexes().contains(regex);
  regex_topics_[regex] = std::move(topics);
  ++revision_;
  if (in_use && assignment_epoch_ == group_epoch_) bump_epoch();
}

const ConsumerMember* ConsumerGroup::static_member(const std::string& instance_id) const {
  for (const auto& [id, m] : members_)
    if (m.instance_id == instance_id) return &m;
  return nullptr;
}

std::string ConsumerGroup::assignor_name() const {
  std::map<std::string, int> asked;
  for (const auto& [mid, m] : members_)
    if (m.server_assignor) ++asked[*m.server_assignor];
  std::string name = assignor_ == &assign_range ? "range" : "uniform";
  int most = 0;
  for (const auto& [n, count] : asked)
    if (count > most && find_assignor(n) != nullptr) {
      most = count;
      name = n;
    }
  return name;
}

void ConsumerGroup::own(const std::string& member_id, const TopicPartitionsMap& partitions) {
  for (const auto& [topic, ps] : partitions)
    for (int32_t p : ps) owner_[{topic, p}] = member_id;
}

void ConsumerGroup::drop_ownership(const ConsumerMember& m) {
  for (const TopicPartitionsMap* held : {&m.assigned, &m.revoking})
    for (const auto& [topic, ps] : *held)
      for (int32_t p : ps) {
        auto it = owner_.find({topic, p});
        if (it != owner_.end() && it->second == m.member_id) owner_.erase(it);
      }
}

bool ConsumerGroup::remove_member(const std::string& member_id) { return remove_members({member_id}) == 1; }

size_t ConsumerGroup::remove_members(const std::vector<std::string>& member_ids) {
  size_t removed = 0;
  for (const std::string& member_id : member_ids) {
    auto it = members_.find(member_id);
    if (it == members_.end()) continue;
    drop_ownership(it->second);
    members_.erase(it);
    target_.erase(member_id);
    ++removed;
  }
  if (removed == 0) return 0;
  bump_epoch();
  const std::set<std::string> in_use = regexes();
  std::erase_if(regex_topics_, [&](const auto& entry) { return !in_use.contains(entry.first); });
  return removed;
}

ConsumerHeartbeatResult ConsumerGroup::validate(const ConsumerHeartbeat& hb, int16_t api_version) {
  auto invalid = [](const char* message) { return failure(GroupError::kInvalidRequest, message); };
  if (hb.instance_id && hb.instance_id->empty()) return invalid("InstanceId can't be empty.");
  if (hb.rack_id && hb.rack_id->empty()) return invalid("RackId can't be empty.");
  if (hb.member_epoch < ConsumerHeartbeat::kStaticLeaveEpoch) return invalid("MemberEpoch is invalid.");
  if ((api_version >= 1 || hb.member_epoch != ConsumerHeartbeat::kJoinEpoch) && hb.member_id.empty())
    return invalid("MemberId can't be empty.");
  if (hb.member_epoch == ConsumerHeartbeat::kJoinEpoch) {
    if (hb.rebalance_timeout_ms == -1) return invalid("RebalanceTimeoutMs must be provided in first request.");
    if (!hb.owned || !normalized(*hb.owned).empty()) return invalid("TopicPartitions must be empty when (re-)joining.");
    if (!hb.subscribed_topics && !hb.subscribed_regex)
      return invalid("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
  }
  if (hb.member_epoch == ConsumerHeartbeat::kStaticLeaveEpoch && !hb.instance_id)
    return invalid("InstanceId can't be null.");
  return {};
}

ConsumerHeartbeatResult ConsumerGroup::replace_static_member(const ConsumerHeartbeat& hb, const std::string& old_id) {
  const std::string id = hb.member_id;
  ConsumerMember m = members_.at(old_id);
  drop_ownership(m);
  m.member_id = id;
  m.member_epoch = 0;
  m.previous_member_epoch = -1;
  m.assignment_sent = false;
  own(id, m.assigned);
  own(id, m.revoking);
  auto t = target_.find(old_id);
  if (t != target_.end()) {
    target_[id] = std::move(t->second);
    target_.erase(old_id);
  }
  members_.erase(old_id);
  members_.emplace(id, std::move(m));
  ++revision_;
  ConsumerHeartbeatResult r;
  r.member_id = id;
  return r;
}

ConsumerHeartbeatResult ConsumerGroup::join(const ConsumerHeartbeat& hb,
                                            const std::function<std::string()>& new_member_id) {
  ConsumerHeartbeat named = hb;
  if (named.member_id.empty()) named.member_id = new_member_id();
  const std::string& id = named.member_id;
  if (hb.instance_id) {
    if (const ConsumerMember* held = static_member(*hb.instance_id)) {
      // Only a consumer-protocol member must have left first (epoch -2); one using the
      // classic protocol is replaced at once, as a classic restart would (Kafka's
      // getOrMaybeSubscribeStaticConsumerGroupMember): a rolling switch of static
      // members to the consumer protocol.
      if (!held->left_static() && !held->uses_classic())
        return failure(GroupError::kUnreleasedInstanceId, "Static member " + held->member_id + " with instance id " +
                                                              *hb.instance_id + " has not left the group yet.");
      return replace_static_member(named, held->member_id);
    }
  }
  if (auto it = members_.find(id); it != members_.end()) {
    // A member that lost its state joins again: it starts over from nothing owned.
    drop_ownership(it->second);
    it->second.assigned.clear();
    it->second.revoking.clear();
    it->second.member_epoch = 0;
    it->second.state = ConsumerMember::State::kStable;
    it->second.assignment_sent = false;
  } else {
    if (static_cast<int32_t>(members_.size()) >= max_size_)
      return failure(GroupError::kGroupMaxSizeReached,
                     "The consumer group has reached its maximum capacity of " + std::to_string(max_size_) + " members.");
    ConsumerMember m;
    m.member_id = id;
    m.instance_id = hb.instance_id;
    if (hb.subscribed_topics) m.subscribed_topics = sorted_unique(*hb.subscribed_topics);
    if (hb.subscribed_regex && !hb.subscribed_regex->empty()) m.subscribed_regex = hb.subscribed_regex;
    members_.emplace(id, std::move(m));
    bump_epoch();  // the one epoch move of the join
  }
  ConsumerHeartbeatResult r;
  r.member_id = id;
  return r;
}

ConsumerHeartbeatResult ConsumerGroup::heartbeat(const ConsumerHeartbeat& hb, const TopicPartitionCounts& topics,
                                                 const std::function<std::string()>& new_member_id) {
  return heartbeat(
      hb,
      [&topics](const std::string& topic) {
        auto it = topics.find(topic);
        return it == topics.end() ? 0 : it->second;
      },
      new_member_id);
}

ConsumerHeartbeatResult ConsumerGroup::heartbeat(const ConsumerHeartbeat& hb, const PartitionCountFn& partitions,
                                                 const std::function<std::string()>& new_member_id) {
  // The revision moves if the member changed in what the record keeps of it (not whether
  // it was told its assignment); the group-wide changes move it where they happen.
  std::optional<ConsumerMember> before;
  if (auto it = members_.find(hb.member_id); it != members_.end()) before = it->second;
  ConsumerHeartbeatResult r = heartbeat_member(hb, partitions, new_member_id);
  auto after = members_.find(r.member_id.empty() ? hb.member_id : r.member_id);
  if (after == members_.end()) {
    if (before) ++revision_;
  } else if (!before || before->member_id != after->first) {
    ++revision_;
  } else {
    before->assignment_sent = after->second.assignment_sent;
    if (!(*before == after->second)) ++revision_;
  }
  return r;
}

ConsumerHeartbeatResult ConsumerGroup::heartbeat_member(const ConsumerHeartbeat& hb, const PartitionCountFn& partitions,
                                                        const std::function<std::string()>& new_member_id) {
  if (ConsumerHeartbeatResult invalid = validate(hb, 0); invalid.error != GroupError::kNone) return invalid;
  if (hb.server_assignor && find_assignor(*hb.server_assignor) == nullptr)
    return failure(GroupError::kUnsupportedAssignor, "ServerAssignor " + *hb.server_assignor + " is not supported.");
  std::string id = hb.member_id;
  if (hb.member_epoch == ConsumerHeartbeat::kJoinEpoch) {
    ConsumerHeartbeatResult joined = join(hb, new_member_id);
    if (joined.error != GroupError::kNone) return joined;
    id = joined.member_id;
  } else {
    if (hb.instance_id) {
      const ConsumerMember* held = static_member(*hb.instance_id);
      if (held == nullptr)
        return failure(GroupError::kUnknownMemberId, "Instance id " + *hb.instance_id + " is unknown.");
      if (held->member_id != id)
        return failure(GroupError::kFencedInstanceId, "Static member " + id + " with instance id " +
                                                          *hb.instance_id + " was fenced by member " +
                                                          held->member_id + ".");
    }
    auto it = members_.find(id);
    if (it == members_.end())
      return failure(GroupError::kUnknownMemberId, "Member " + id + " is not a member of group " + group_id_ + ".");
    ConsumerHeartbeatResult r;
    r.member_id = id;
    if (hb.member_epoch == ConsumerHeartbeat::kLeaveEpoch) {
      remove_member(id);
      r.member_epoch = ConsumerHeartbeat::kLeaveEpoch;
      return r;
    }
    if (hb.member_epoch == ConsumerHeartbeat::kStaticLeaveEpoch) {
      // It comes back under a new member id: its partitions wait for it, the epoch stays.
      it->second.member_epoch = ConsumerHeartbeat::kStaticLeaveEpoch;
      r.member_epoch = ConsumerHeartbeat::kStaticLeaveEpoch;
      return r;
    }
    ConsumerMember& m = it->second;
    if (hb.member_epoch != m.member_epoch) {
      // The previous epoch is a member whose last response was lost, if what it owns is
      // still within what it was given; then it is told its assignment again.
      if (hb.member_epoch != m.previous_member_epoch || !hb.owned || !subset(normalized(*hb.owned), m.assigned))
        return failure(GroupError::kFencedMemberEpoch,
                       "The consumer group member has a smaller member epoch (" + std::to_string(hb.member_epoch) +
                           ") than the one known by the group coordinator (" + std::to_string(m.member_epoch) + ").");
      m.assignment_sent = false;
    }
  }
  ConsumerMember& m = members_.at(id);
  m.classic.reset();  // it speaks the consumer protocol now
  if (hb.rack_id) m.rack_id = hb.rack_id;
  if (!hb.client_id.empty()) m.client_id = hb.client_id;
  if (!hb.client_host.empty()) m.client_host = hb.client_host;
  if (hb.rebalance_timeout_ms != -1) m.rebalance_timeout_ms = hb.rebalance_timeout_ms;
  if (hb.server_assignor) m.server_assignor = hb.server_assignor;
  bool resubscribed = false;
  if (hb.subscribed_topics) {
    std::vector<std::string> subs = sorted_unique(*hb.subscribed_topics);
    if (subs != m.subscribed_topics) {
      m.subscribed_topics = std::move(subs);
      resubscribed = true;
    }
  }
  if (hb.subscribed_regex) {
    std::optional<std::string> regex;
    if (!hb.subscribed_regex->empty()) regex = hb.subscribed_regex;
    if (regex != m.subscribed_regex) {
      m.subscribed_regex = std::move(regex);
      resubscribed = true;
      const std::set<std::string> in_use = regexes();
      std::erase_if(regex_topics_, [&](const auto& entry) { return !in_use.contains(entry.first); });
    }
  }
  if (resubscribed) bump_epoch();
  maybe_assign(partitions);
  reconcile(m, hb.owned ? std::optional<TopicPartitionsMap>(normalized(*hb.owned)) : std::nullopt);

  ConsumerHeartbeatResult r;
  r.member_id = id;
  r.member_epoch = m.member_epoch;
  if (!m.assignment_sent) {
    r.assignment = m.assigned;
    m.assignment_sent = true;
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Classic members

ConsumerHeartbeatResult ConsumerGroup::classic_join(const ClassicJoin& j, const PartitionCountFn& partitions) {
  ++revision_;  // a JoinGroup is rare: its member's record is written again
  const std::string& id = j.member_id;
  if (j.instance_id) {
    const ConsumerMember* held = static_member(*j.instance_id);
    if (held != nullptr && held->member_id != id) {
      // A static member that restarted comes without its member id and takes its place;
      // one naming another member id is a zombie.
      if (j.member_id_was_given)
        return failure(GroupError::kFencedInstanceId, "Static member " + id + " with instance id " + *j.instance_id +
                                                          " was fenced by member " + held->member_id + ".");
      ConsumerHeartbeat named;
      named.member_id = id;
      replace_static_member(named, held->member_id);
    }
  }
  bool bump = false;
  auto it = members_.find(id);
  if (it == members_.end()) {
    if (static_cast<int32_t>(members_.size()) >= max_size_)
      return failure(GroupError::kGroupMaxSizeReached,
                     "The consumer group has reached its maximum capacity of " + std::to_string(max_size_) + " members.");
    ConsumerMember fresh;
    fresh.member_id = id;
    it = members_.emplace(id, std::move(fresh)).first;
    bump = true;
  }
  ConsumerMember& m = it->second;
  if (j.instance_id) m.instance_id = j.instance_id;
  if (j.subscription.rack_id) m.rack_id = j.subscription.rack_id;
  if (j.rebalance_timeout_ms >= 0) m.rebalance_timeout_ms = j.rebalance_timeout_ms;
  m.server_assignor.reset();
  m.client_id = j.client_id;
  m.client_host = j.client_host;
  m.classic = j.metadata;
  std::vector<std::string> topics = sorted_unique(j.subscription.topics);
  if (topics != m.subscribed_topics) {
    m.subscribed_topics = std::move(topics);
    bump = true;
  }
  if (bump) bump_epoch();
  maybe_assign(partitions);
  reconcile(m, normalized(j.subscription.owned));
  ConsumerHeartbeatResult r;
  r.member_id = id;
  r.member_epoch = m.member_epoch;
  r.assignment = m.assigned;
  m.assignment_sent = true;
  return r;
}

GroupError ConsumerGroup::classic_member(const std::string& member_id, const std::optional<std::string>& instance_id,
                                         const ConsumerMember** out) const {
  const ConsumerMember* m = nullptr;
  if (instance_id) {
    m = static_member(*instance_id);
    if (m == nullptr) return GroupError::kUnknownMemberId;
    if (m->member_id != member_id) return GroupError::kFencedInstanceId;
  } else {
    auto it = members_.find(member_id);
    if (it == members_.end()) return GroupError::kUnknownMemberId;
    m = &it->second;
  }
  if (!m->uses_classic()) return GroupError::kUnknownMemberId;
  *out = m;
  return GroupError::kNone;
}

bool ConsumerGroup::classic_must_rejoin(const ConsumerMember& m) const {
  if (m.member_epoch < group_epoch_ || m.state == ConsumerMember::State::kUnrevokedPartitions) return true;
  if (m.state != ConsumerMember::State::kUnreleasedPartitions) return false;
  // Rejoin once every partition it waits for is free.
  for (const auto& [topic, ps] : target(m.member_id))
    for (int32_t p : ps) {
      auto owner = owner_.find({topic, p});
      if (!contains(m.assigned, topic, p) && owner != owner_.end() && owner->second != m.member_id) return false;
    }
  return true;
}

bool ConsumerGroup::supports_classic_protocols(std::string_view protocol_type,
                                               const std::vector<Protocol>& protocols) const {
  if (protocol_type != kConsumerProtocolType || protocols.empty()) return false;
  for (const Protocol& offered : protocols) {
    bool everyone = true;
    for (const auto& [id, m] : members_) {
      if (!m.classic) continue;
      everyone = std::any_of(m.classic->protocols.begin(), m.classic->protocols.end(),
                             [&](const Protocol& p) { return p.name == offered.name; });
      if (!everyone) break;
    }
    if (everyone) return true;
  }
  return false;
}

bool ConsumerGroup::all_classic_except(const std::string& member_id) const {
  auto it = members_.find(member_id);
  if (it == members_.end() || it->second.uses_classic()) return false;
  return std::all_of(members_.begin(), members_.end(),
                     [&](const auto& entry) { return entry.first == member_id || entry.second.uses_classic(); });
}

ConsumerGroupSnapshot ConsumerGroup::snapshot() const {
  ConsumerGroupSnapshot s;
  s.group_id = group_id_;
  s.group_epoch = group_epoch_;
  s.assignment_epoch = assignment_epoch_;
  for (const auto& [id, m] : members_) s.members.push_back(m);
  s.target = target_;
  s.topics_seen = topics_seen_;
  s.regex_topics = regex_topics_;
  return s;
}

void ConsumerGroup::restore(ConsumerGroupSnapshot s) {
  ++revision_;
  group_epoch_ = s.group_epoch;
  assignment_epoch_ = s.assignment_epoch;
  members_.clear();
  owner_.clear();
  for (ConsumerMember& m : s.members) {
    m.assignment_sent = false;
    own(m.member_id, m.assigned);
    own(m.member_id, m.revoking);
    const std::string id = m.member_id;
    members_.emplace(id, std::move(m));
  }
  target_ = std::move(s.target);
  topics_seen_ = std::move(s.topics_seen);
  regex_topics_ = std::move(s.regex_topics);
}

void ConsumerGroup::maybe_assign(const PartitionCountFn& partitions) {
  TopicPartitionCounts seen;
  for (const std::string& t : subscribed_topics()) seen[t] = std::max(0, partitions(t));
  if (seen != topics_seen_) {
    if (assignment_epoch_ == group_epoch_) bump_epoch();  // a subscribed topic grew, shrank, came or went
    topics_seen_ = seen;
    ++revision_;
  }
  if (assignment_epoch_ == group_epoch_) return;
  AssignorFunction assign = find_assignor(assignor_name());
  if (assign == nullptr) assign = assignor_;
  std::vector<AssignorMember> input;
  bool racks_wanted = false;
  for (const auto& [mid, m] : members_) {
    input.push_back({mid, m.rack_id, member_topics(m), target(mid)});
    racks_wanted = racks_wanted || m.rack_id.has_value();
  }
  PartitionRacks racks;
  if (racks_wanted && partition_racks_) {
    for (const auto& [topic, count] : topics_seen_)
      if (count > 0) racks[topic] = partition_racks_(topic);
  }
  target_ = assign(input, topics_seen_, racks);
  for (auto& [mid, tps] : target_) tps = normalized(std::move(tps));
  assignment_epoch_ = group_epoch_;
  ++revision_;
}

void ConsumerGroup::reconcile(ConsumerMember& m, const std::optional<TopicPartitionsMap>& owned) {
  const TopicPartitionsMap& tgt = target(m.member_id);
  if (m.state == ConsumerMember::State::kUnrevokedPartitions) {
    if (!owned || intersects(*owned, m.revoking)) return;  // still giving them up
    for (const auto& [topic, ps] : m.revoking)
      for (int32_t p : ps) owner_.erase({topic, p});
    m.revoking.clear();
    m.state = ConsumerMember::State::kStable;
  }
  if (m.member_epoch == assignment_epoch_ && m.state == ConsumerMember::State::kStable) return;
  // Revocations first: the member keeps its epoch until it has let them go.
  TopicPartitionsMap revoke = filter(m.assigned, tgt, false);
  if (!revoke.empty()) {
    m.assigned = filter(m.assigned, tgt, true);
    m.revoking = std::move(revoke);
    m.state = ConsumerMember::State::kUnrevokedPartitions;
    m.assignment_sent = false;
    return;
  }
  // Then the new epoch, and the target partitions nobody else holds any more.
  TopicPartitionsMap free;
  for (const auto& [topic, ps] : tgt)
    for (int32_t p : ps) {
      auto it = owner_.find({topic, p});
      if (!contains(m.assigned, topic, p) && (it == owner_.end() || it->second == m.member_id)) free[topic].push_back(p);
    }
  if (!free.empty()) {
    add(m.assigned, free);
    own(m.member_id, free);
    m.assignment_sent = false;
  }
  if (m.member_epoch != assignment_epoch_) {
    m.previous_member_epoch = m.member_epoch;
    m.member_epoch = assignment_epoch_;
    m.assignment_sent = false;
  }
  m.state = m.assigned == tgt ? ConsumerMember::State::kStable : ConsumerMember::State::kUnreleasedPartitions;
}

}  // namespace rokka::coordinator
