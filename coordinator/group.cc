#include "coordinator/group.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "coordinator/consumer_protocol.h"
#include "coordinator/log.h"

namespace rokka::coordinator {

namespace {

constexpr std::string_view kStateNames[] = {"Empty", "PreparingRebalance", "CompletingRebalance", "Stable",
                                            "Dead"};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

constexpr uint8_t state_bit(GroupState s) { return static_cast<uint8_t>(1u << static_cast<unsigned>(s)); }

// The states each state may be entered from (Kafka's validPreviousStates), by GroupState.
constexpr uint8_t kValidPrevious[] = {
    /* Empty */ state_bit(GroupState::kPreparingRebalance),
    /* PreparingRebalance */
    static_cast<uint8_t>(state_bit(GroupState::kEmpty) | state_bit(GroupState::kStable) |
                         state_bit(GroupState::kCompletingRebalance)),
    /* CompletingRebalance */ state_bit(GroupState::kPreparingRebalance),
    /* Stable */ state_bit(GroupState::kCompletingRebalance),
    /* Dead */ 0xff,
};
static_assert(std::size(kValidPrevious) == std::size(kStateNames));

}  // namespace

std::string_view group_state_name(GroupState state) { return kStateNames[static_cast<size_t>(state)]; }

std::optional<GroupState> parse_group_state(std::string_view name) {
  for (size_t i = 0; i < std::size(kStateNames); ++i) {
    if (iequals(name, kStateNames[i])) return static_cast<GroupState>(i);
  }
  return std::nullopt;
}

const std::string* Member::metadata_for(std::string_view protocol) const {
  for (const Protocol& p : protocols_) {
    if (p.name == protocol) return &p.metadata;
  }
  return nullptr;
}

Group::Group(std::string group_id, GroupState initial, int64_t now_ms, uint64_t incarnation)
    : group_id_(std::move(group_id)), incarnation_(incarnation), state_(initial), state_timestamp_ms_(now_ms) {}

bool Group::can_transition_to(GroupState next) const {
  return (kValidPrevious[static_cast<size_t>(next)] & state_bit(state_)) != 0;
}

void Group::transition_to(GroupState next, int64_t now_ms) {
  if (!can_transition_to(next)) {
    log().critical("invalid group transition: group={} from={} to={}", group_id_, group_state_name(state_),
                   group_state_name(next));
    std::abort();
  }
  state_ = next;
  state_timestamp_ms_ = now_ms;
}

Member* Group::find(std::string_view member_id) {
  auto it = members_.find(std::string(member_id));
  return it == members_.end() ? nullptr : &it->second;
}

const Member* Group::find(std::string_view member_id) const {
  auto it = members_.find(std::string(member_id));
  return it == members_.end() ? nullptr : &it->second;
}

std::optional<std::string> Group::static_member_id(std::string_view group_instance_id) const {
  auto it = static_members_.find(std::string(group_instance_id));
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

bool Group::supports_protocols(std::string_view protocol_type, const std::vector<Protocol>& protocols) const {
  if (members_.empty()) return !protocol_type.empty() && !protocols.empty();
  if (protocol_type_ != protocol_type) return false;
  return std::any_of(protocols.begin(), protocols.end(), [&](const Protocol& p) { return is_candidate(p.name); });
}

void Group::add_votes(const Member& member, int delta) {
  for (const Protocol& p : member.protocols_) {
    int& votes = protocol_votes_[p.name];
    votes += delta;
    if (votes == 0) protocol_votes_.erase(p.name);
  }
}

Member& Group::add(Member member, JoinCallback join) {
  if (members_.empty()) protocol_type_ = member.protocol_type;
  if (!leader_id_) leader_id_ = member.member_id_;
  if (member.group_instance_id_) static_members_[*member.group_instance_id_] = member.member_id_;
  pending_members_.erase(member.member_id_);
  add_votes(member, +1);
  const std::string id = member.member_id_;
  Member& m = members_.emplace(id, std::move(member)).first->second;
  m.is_new_ = static_cast<bool>(join);
  park_join(m, std::move(join));
  return m;
}

void Group::park_join(Member& member, JoinCallback join) {
  member.awaiting_join_ = std::move(join);
  if (!member.awaiting_join_) return;
  ++num_awaiting_join_;
  ++member.join_ticket_;
}

Member& Group::restore(Member member) { return add(std::move(member), nullptr); }

void Group::remove(const std::string& member_id) {
  if (auto it = members_.find(member_id); it != members_.end()) {
    const Member& m = it->second;
    add_votes(m, -1);
    if (m.awaiting_join_) --num_awaiting_join_;
    if (m.group_instance_id_) static_members_.erase(*m.group_instance_id_);
    members_.erase(it);
  }
  if (is_leader(member_id)) {
    leader_id_ = members_.empty() ? std::nullopt : std::optional<std::string>(members_.begin()->first);
  }
  pending_members_.erase(member_id);
  pending_sync_members_.erase(member_id);
}

JoinCallback Group::update_member(Member& member, std::vector<Protocol> protocols, int32_t rebalance_timeout_ms,
                                  int32_t session_timeout_ms, JoinCallback join) {
  add_votes(member, -1);
  member.protocols_ = std::move(protocols);
  add_votes(member, +1);
  member.rebalance_timeout_ms = rebalance_timeout_ms;
  member.session_timeout_ms = session_timeout_ms;
  JoinCallback previous = take_join_callback(member);
  park_join(member, std::move(join));
  return previous;
}

JoinCallback Group::take_join_callback(Member& member) {
  if (member.awaiting_join_) --num_awaiting_join_;
  return std::exchange(member.awaiting_join_, nullptr);
}

SyncCallback Group::park_sync(Member& member, SyncCallback sync) {
  return std::exchange(member.awaiting_sync_, std::move(sync));
}

SyncCallback Group::take_sync_callback(Member& member) { return std::exchange(member.awaiting_sync_, nullptr); }

void Group::fail_parked_requests(Member& member, GroupError error, std::string join_member_id) {
  if (JoinCallback join = take_join_callback(member)) join(join_error(std::move(join_member_id), error));
  if (SyncCallback sync = take_sync_callback(member)) sync(sync_error(error));
}

void Group::fail_all_parked_requests(GroupError error) {
  for (auto& [id, m] : members_) fail_parked_requests(m, error, id);
}

Member& Group::replace_static_member(const std::string& group_instance_id, const std::string& old_member_id,
                                     const std::string& new_member_id) {
  auto node = members_.extract(old_member_id);
  Member& m = node.mapped();
  // Whoever still waits under the old id is a duplicate instance now: fence it.
  fail_parked_requests(m, GroupError::kFencedInstanceId, old_member_id);
  m.member_id_ = new_member_id;
  node.key() = new_member_id;
  Member& placed = members_.insert(std::move(node)).position->second;
  if (is_leader(old_member_id)) leader_id_ = new_member_id;
  if (pending_sync_members_.erase(old_member_id) != 0) pending_sync_members_.insert(new_member_id);
  static_members_[group_instance_id] = new_member_id;
  return placed;
}

void Group::assign(const std::map<std::string, std::string>& assignments) {
  for (auto& [id, m] : members_) {
    auto it = assignments.find(id);
    m.assignment = it == assignments.end() ? std::string() : it->second;
  }
}

bool Group::maybe_elect_new_joined_leader() {
  if (!leader_id_) return false;
  const Member* leader = find(*leader_id_);
  if (leader != nullptr && leader->is_awaiting_join()) return true;
  for (const auto& [id, m] : members_) {
    if (m.is_awaiting_join()) {
      log().info("group leader did not rejoin, electing another: group={} old_leader={} new_leader={}", group_id_,
                 *leader_id_, id);
      leader_id_ = id;
      return true;
    }
  }
  return false;
}

bool Group::is_candidate(const std::string& protocol) const {
  auto it = protocol_votes_.find(protocol);
  return it != protocol_votes_.end() && static_cast<size_t>(it->second) == members_.size();
}

std::string Group::select_protocol() const {
  // Candidates: protocols every member supports. Each member votes for the first
  // candidate in its own preference list; the most votes win, ties go to the one the
  // leader lists first (the leader supports every candidate).
  std::unordered_map<std::string, int> votes;
  for (const auto& [id, m] : members_) {
    auto first = std::find_if(m.protocols_.begin(), m.protocols_.end(),
                              [&](const Protocol& p) { return is_candidate(p.name); });
    if (first != m.protocols_.end()) ++votes[first->name];
  }
  const Member* leader = leader_id_ ? find(*leader_id_) : nullptr;
  if (leader == nullptr) leader = &members_.begin()->second;
  std::string best;
  int best_votes = -1;
  for (const Protocol& p : leader->protocols_) {
    if (!is_candidate(p.name)) continue;
    const int v = votes[p.name];
    if (v > best_votes) {
      best = p.name;
      best_votes = v;
    }
  }
  return best;
}

void Group::start_rebalance(int64_t now_ms) {
  transition_to(GroupState::kPreparingRebalance, now_ms);
  pending_sync_members_.clear();
}

void Group::init_next_generation(int64_t now_ms) {
  ++generation_id_;
  if (!members_.empty()) {
    protocol_name_ = select_protocol();
    transition_to(GroupState::kCompletingRebalance, now_ms);
  } else {
    protocol_name_.reset();
    transition_to(GroupState::kEmpty, now_ms);
  }
  pending_sync_members_.clear();
  for (auto& [id, m] : members_) {
    m.is_new_ = false;
    pending_sync_members_.insert(id);
  }
  compute_subscribed_topics();
}

int32_t Group::rebalance_timeout_ms() const {
  int32_t longest = 0;
  for (const auto& [id, m] : members_) longest = std::max(longest, m.rebalance_timeout_ms);
  return longest;
}

std::vector<JoinGroupMember> Group::current_member_metadata() const {
  std::vector<JoinGroupMember> out;
  out.reserve(members_.size());
  for (const auto& [id, m] : members_) {
    const std::string* metadata = protocol_name_ ? m.metadata_for(*protocol_name_) : nullptr;
    out.push_back(JoinGroupMember{id, m.group_instance_id_, metadata ? *metadata : std::string()});
  }
  return out;
}

void Group::restore_generation(int32_t generation_id, std::optional<std::string> protocol_type,
                               std::optional<std::string> protocol_name, std::optional<std::string> leader_id,
                               int64_t state_timestamp_ms) {
  generation_id_ = generation_id;
  protocol_type_ = std::move(protocol_type);
  protocol_name_ = std::move(protocol_name);
  if (leader_id && has(*leader_id)) leader_id_ = std::move(leader_id);
  state_timestamp_ms_ = state_timestamp_ms;
  compute_subscribed_topics();
}

void Group::add_pending_member(const std::string& member_id, TimerQueue::Id expiry) {
  pending_members_[member_id] = expiry;
}

std::optional<TimerQueue::Id> Group::remove_pending_member(const std::string& member_id) {
  auto it = pending_members_.find(member_id);
  if (it == pending_members_.end()) return std::nullopt;
  const TimerQueue::Id expiry = it->second;
  pending_members_.erase(it);
  return expiry;
}

void Group::compute_subscribed_topics() {
  subscribed_topics_.reset();
  if (!is_consumer_group() || !protocol_name_) return;
  std::set<std::string> topics;
  for (const auto& [id, m] : members_) {
    const std::string* metadata = m.metadata_for(*protocol_name_);
    if (metadata == nullptr) return;
    auto parsed = parse_subscription_topics(*metadata);
    if (!parsed) return;
    topics.insert(parsed->begin(), parsed->end());
  }
  subscribed_topics_ = std::move(topics);
}

}  // namespace rokka::coordinator
