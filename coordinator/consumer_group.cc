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

ConsumerHeartbeatResult failure(ConsumerGroupError e, std::string message = {}) {
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
    if (m.member_epoch != assignment_epoch_ || m.state != ConsumerMember::State::kStable) return State::kReconciling;
  return State::kStable;
}

std::set<std::string> ConsumerGroup::subscribed_topics() const {
  std::set<std::string> out;
  for (const auto& [id, m] : members_) out.insert(m.subscribed_topics.begin(), m.subscribed_topics.end());
  return out;
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

bool ConsumerGroup::remove_member(const std::string& member_id) {
  auto it = members_.find(member_id);
  if (it == members_.end()) return false;
  drop_ownership(it->second);
  members_.erase(it);
  target_.erase(member_id);
  bump_epoch();
  return true;
}

ConsumerHeartbeatResult ConsumerGroup::join(const ConsumerHeartbeat& hb,
                                            const std::function<std::string()>& new_member_id) {
  if (!hb.subscribed_topics) return failure(ConsumerGroupError::kInvalidRequest, "SubscribedTopicNames must be set in first request.");
  if (hb.rebalance_timeout_ms == -1)
    return failure(ConsumerGroupError::kInvalidRequest, "RebalanceTimeoutMs must be provided in first request.");
  if (!hb.owned || !normalized(*hb.owned).empty())
    return failure(ConsumerGroupError::kInvalidRequest, "TopicPartitions must be empty when (re-)joining.");
  const std::string id = hb.member_id.empty() ? new_member_id() : hb.member_id;
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
      return failure(ConsumerGroupError::kGroupMaxSizeReached,
                     "The consumer group has reached its maximum capacity of " + std::to_string(max_size_) + " members.");
    ConsumerMember m;
    m.member_id = id;
    m.subscribed_topics = sorted_unique(*hb.subscribed_topics);  // the one epoch move of the join
    members_.emplace(id, std::move(m));
    bump_epoch();
  }
  ConsumerHeartbeatResult r;
  r.member_id = id;
  return r;
}

ConsumerHeartbeatResult ConsumerGroup::heartbeat(const ConsumerHeartbeat& hb, const TopicPartitionCounts& topics,
                                                 const std::function<std::string()>& new_member_id) {
  if (hb.server_assignor && find_assignor(*hb.server_assignor) == nullptr)
    return failure(ConsumerGroupError::kUnsupportedAssignor, "ServerAssignor " + *hb.server_assignor + " is not supported.");
  std::string id = hb.member_id;
  if (hb.member_epoch == ConsumerHeartbeat::kJoinEpoch) {
    ConsumerHeartbeatResult joined = join(hb, new_member_id);
    if (joined.error != ConsumerGroupError::kNone) return joined;
    id = joined.member_id;
  } else {
    auto it = members_.find(id);
    if (it == members_.end())
      return failure(ConsumerGroupError::kUnknownMemberId, "Member " + id + " is not a member of group " + group_id_ + ".");
    if (hb.member_epoch == ConsumerHeartbeat::kLeaveEpoch) {
      remove_member(id);
      ConsumerHeartbeatResult r;
      r.member_id = id;
      r.member_epoch = ConsumerHeartbeat::kLeaveEpoch;
      return r;
    }
    ConsumerMember& m = it->second;
    if (hb.member_epoch != m.member_epoch) {
      // The previous epoch is a member whose last response was lost, if what it owns is
      // still within what it was given; then it is told its assignment again.
      if (hb.member_epoch != m.previous_member_epoch || !hb.owned || !subset(normalized(*hb.owned), m.assigned))
        return failure(ConsumerGroupError::kFencedMemberEpoch,
                       "The consumer group member has a smaller member epoch (" + std::to_string(hb.member_epoch) +
                           ") than the one known by the group coordinator (" + std::to_string(m.member_epoch) + ").");
      m.assignment_sent = false;
    }
  }
  ConsumerMember& m = members_.at(id);
  if (hb.rack_id) m.rack_id = hb.rack_id;
  if (hb.rebalance_timeout_ms != -1) m.rebalance_timeout_ms = hb.rebalance_timeout_ms;
  if (hb.server_assignor) m.server_assignor = hb.server_assignor;
  if (hb.subscribed_topics) {
    std::vector<std::string> subs = sorted_unique(*hb.subscribed_topics);
    if (subs != m.subscribed_topics) {
      m.subscribed_topics = std::move(subs);
      bump_epoch();
    }
  }
  maybe_assign(topics);
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

void ConsumerGroup::maybe_assign(const TopicPartitionCounts& topics) {
  TopicPartitionCounts seen;
  for (const std::string& t : subscribed_topics()) {
    auto it = topics.find(t);
    seen[t] = it == topics.end() ? 0 : it->second;
  }
  if (seen != topics_seen_) {
    if (assignment_epoch_ == group_epoch_) bump_epoch();  // a subscribed topic grew, shrank, came or went
    topics_seen_ = seen;
  }
  if (assignment_epoch_ == group_epoch_) return;
  // The assignor the members ask for most, else the group's default.
  std::map<std::string, int> asked;
  for (const auto& [mid, m] : members_)
    if (m.server_assignor) ++asked[*m.server_assignor];
  AssignorFunction assign = assignor_;
  int most = 0;
  for (const auto& [name, n] : asked)
    if (n > most) {
      most = n;
      assign = find_assignor(name);
    }
  std::vector<AssignorMember> input;
  for (const auto& [mid, m] : members_) input.push_back({mid, m.rack_id, m.subscribed_topics, target(mid)});
  target_ = assign(input, topics_seen_);
  for (auto& [mid, tps] : target_) tps = normalized(std::move(tps));
  assignment_epoch_ = group_epoch_;
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
