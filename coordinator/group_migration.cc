#include "coordinator/group_migration.h"

#include <algorithm>
#include <map>

#include "coordinator/consumer_protocol.h"

namespace rokka::coordinator {

std::optional<ConsumerGroupSnapshot> consumer_group_from_classic(const Group& group) {
  ConsumerGroupSnapshot s;
  s.group_id = group.group_id();
  s.group_epoch = group.generation_id();
  s.assignment_epoch = group.generation_id();
  for (const auto& [id, member] : group.members()) {
    if (member.protocols().empty()) return std::nullopt;
    const std::string* metadata = group.protocol_name() ? member.metadata_for(*group.protocol_name()) : nullptr;
    if (metadata == nullptr) metadata = &member.protocols().front().metadata;
    std::optional<ConsumerSubscription> subscription = parse_subscription(*metadata);
    std::optional<TopicPartitionsMap> assigned = parse_assignment(member.assignment);
    if (!subscription || !assigned) return std::nullopt;
    ConsumerMember m;
    m.member_id = id;
    m.member_epoch = group.generation_id();
    m.previous_member_epoch = group.generation_id();
    m.instance_id = member.group_instance_id();
    m.rack_id = subscription->rack_id;
    m.client_id = member.client_id;
    m.client_host = member.client_host;
    m.rebalance_timeout_ms = member.rebalance_timeout_ms;
    m.subscribed_topics = std::move(subscription->topics);
    std::sort(m.subscribed_topics.begin(), m.subscribed_topics.end());
    m.subscribed_topics.erase(std::unique(m.subscribed_topics.begin(), m.subscribed_topics.end()),
                              m.subscribed_topics.end());
    m.assigned = *assigned;
    m.classic = ClassicMemberMetadata{member.session_timeout_ms, member.protocols()};
    s.target[id] = std::move(*assigned);
    s.members.push_back(std::move(m));
  }
  return s;
}

namespace {

// Kafka's choice for a classic group: among the protocols every member offers, the one
// most members prefer (each votes for its first such protocol); ties go to the order of
// the first member's list.
std::string select_protocol(const std::vector<const ConsumerMember*>& members) {
  auto offered_by_all = [&](const std::string& name) {
    return std::all_of(members.begin(), members.end(), [&](const ConsumerMember* m) {
      return std::any_of(m->classic->protocols.begin(), m->classic->protocols.end(),
                         [&](const Protocol& p) { return p.name == name; });
    });
  };
  std::map<std::string, int> votes;
  for (const ConsumerMember* m : members)
    for (const Protocol& p : m->classic->protocols)
      if (offered_by_all(p.name)) {
        ++votes[p.name];
        break;
      }
  std::string best;
  int most = 0;
  for (const Protocol& p : members.front()->classic->protocols) {
    auto it = votes.find(p.name);
    if (it != votes.end() && it->second > most) {
      most = it->second;
      best = p.name;
    }
  }
  return best;
}

}  // namespace

StoredGroup classic_group_from_consumer(const ConsumerGroup& group, const std::string& leaving_member_id,
                                        int64_t now_ms) {
  std::vector<const ConsumerMember*> staying;
  for (const auto& [id, m] : group.members())
    if (id != leaving_member_id && m.classic) staying.push_back(&m);
  StoredGroup s;
  s.group_id = group.group_id();
  s.stable = !staying.empty();
  s.generation_id = group.group_epoch();
  s.protocol_type = std::string(kConsumerProtocolType);
  s.state_timestamp_ms = now_ms;
  if (staying.empty()) return s;
  const std::string protocol = select_protocol(staying);
  s.protocol_name = protocol;
  s.leader_id = staying.front()->member_id;
  for (const ConsumerMember* m : staying) {
    std::string subscription;
    for (const Protocol& p : m->classic->protocols)
      if (p.name == protocol) subscription = p.metadata;
    s.members.push_back(StoredMember{
        .member_id = m->member_id,
        .group_instance_id = m->instance_id,
        .client_id = m->client_id,
        .client_host = m->client_host,
        .rebalance_timeout_ms = m->rebalance_timeout_ms,
        .session_timeout_ms = m->classic->session_timeout_ms,
        .subscription = subscription,
        .assignment = encode_assignment(group.target(m->member_id), subscription_version(subscription).value_or(0)),
    });
  }
  return s;
}

}  // namespace rokka::coordinator
