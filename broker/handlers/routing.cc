#include "broker/handlers/routing.h"

#include <algorithm>

#include "broker/link/cluster_link.h"
#include "broker/link/group_member.h"
#include "broker/handlers/authorize.h"

namespace rokka::broker {

PartitionPlaces::PartitionPlaces(const Services& svc)
    : svc_(svc), picture_(svc.cluster == nullptr ? nullptr : svc.cluster->picture()) {}

PartitionPlace place_of(const ClusterPicture* picture, const StoreSet& stores, int32_t self, const Topic& t,
                        int32_t index) {
  if (picture == nullptr) return {self, true};
  if (index >= 0 && static_cast<size_t>(index) < t.partitions.size()) {
    const StoreSlot slot = t.partitions[static_cast<size_t>(index)].slot;
    if (slot != kRootSlot && slot < stores.size())
      if (const ClusterGroup* g = picture->group(stores.entries()[slot].name))
        return {g->leader, g->leader >= 0, g->epoch, g};
  }
  if (index < 0 || static_cast<size_t>(index) >= t.leaders.size()) return {};
  const int32_t broker = t.leaders[static_cast<size_t>(index)];
  return {broker, picture->live(broker)};
}

PartitionPlace PartitionPlaces::of(const Topic& t, int32_t index) const {
  return place_of(picture_.get(), svc_.stores, svc_.config.broker_id, t, index);
}

protocol::LeaderIdAndEpoch LeaderHints::hint(const Topic& t, int32_t index) {
  const Services& svc = *ctx_.services;
  if (!places_) places_.emplace(svc);
  const PartitionPlace place = places_->of(t, index);
  if (!place.live || place.broker == svc.config.broker_id) return {};
  if (std::find(named_.begin(), named_.end(), place.broker) == named_.end()) named_.push_back(place.broker);
  return {place.broker, place.leader_epoch};
}

std::vector<protocol::NodeEndpoint> LeaderHints::endpoints() const {
  std::vector<protocol::NodeEndpoint> out;
  if (named_.empty()) return out;
  for (auto& b : broker_addresses(ctx_))
    if (std::find(named_.begin(), named_.end(), b.id) != named_.end())
      out.push_back({b.id, std::move(b.host), b.port, std::move(b.rack)});
  return out;
}

protocol::ErrorCode check_leader(const Services& svc, const Topic& t, int32_t index, int32_t* leader_epoch) {
  if (leader_epoch != nullptr) *leader_epoch = kLeaderEpoch;
  if (svc.cluster == nullptr) return protocol::ErrorCode::kNone;
  if (svc.cluster->fenced()) return protocol::ErrorCode::kNotLeaderOrFollower;
  const StoreSlot slot =
      index >= 0 && static_cast<size_t>(index) < t.partitions.size() ? t.partitions[static_cast<size_t>(index)].slot : kRootSlot;
  if (const GroupMember* member = slot == kRootSlot ? nullptr : svc.cluster->member_of(slot)) {
    // The store leads, and in the epoch the group's state names now: a member still leading
    // an epoch the controller has replaced is not the leader any more.
    const int32_t epoch = member->leading_epoch();
    const ClusterGroup* g = svc.cluster->picture()->group(member->group());
    if (epoch < 0 || g == nullptr || g->epoch != epoch) return protocol::ErrorCode::kNotLeaderOrFollower;
    if (leader_epoch != nullptr) *leader_epoch = epoch;
    return protocol::ErrorCode::kNone;
  }
  if (index < 0 || static_cast<size_t>(index) >= t.leaders.size() ||
      t.leaders[static_cast<size_t>(index)] != svc.config.broker_id)
    return protocol::ErrorCode::kNotLeaderOrFollower;
  return protocol::ErrorCode::kNone;
}

PartitionRef resolve_led_partition(const Services& svc, bool allowed, const TopicPtr& topic, int32_t index) {
  PartitionRef ref = resolve_partition_if(svc.stores, allowed, topic, index);
  if (ref.error == protocol::ErrorCode::kNone) ref.error = check_leader(svc, *topic, index, &ref.leader_epoch);
  return ref;
}

protocol::ErrorCode check_readable(const Services& svc, const Topic& t, int32_t index, int32_t* leader_epoch,
                                   bool* follower) {
  *follower = false;
  const protocol::ErrorCode led = check_leader(svc, t, index, leader_epoch);
  if (led != protocol::ErrorCode::kNotLeaderOrFollower || svc.cluster == nullptr || svc.cluster->fenced()) return led;
  const StoreSlot slot =
      index >= 0 && static_cast<size_t>(index) < t.partitions.size() ? t.partitions[static_cast<size_t>(index)].slot : kRootSlot;
  const GroupMember* member = slot == kRootSlot ? nullptr : svc.cluster->member_of(slot);
  if (member == nullptr || member->role() != GroupRole::kFollower) return led;
  const int32_t epoch = member->epoch();
  const auto picture = svc.cluster->picture();
  const ClusterGroup* g = picture->group(member->group());
  if (epoch < 0 || g == nullptr || g->epoch != epoch ||
      std::find(g->sss.begin(), g->sss.end(), svc.config.broker_id) == g->sss.end())
    return led;
  if (leader_epoch != nullptr) *leader_epoch = epoch;
  *follower = true;
  return protocol::ErrorCode::kNone;
}

PartitionRef resolve_readable_partition(const Services& svc, bool allowed, const TopicPtr& topic, int32_t index,
                                        bool* follower) {
  *follower = false;
  PartitionRef ref = resolve_partition_if(svc.stores, allowed, topic, index);
  if (ref.error == protocol::ErrorCode::kNone) ref.error = check_readable(svc, *topic, index, &ref.leader_epoch, follower);
  return ref;
}

int32_t preferred_read_replica(std::string_view selector_class, std::string_view client_rack, int32_t self,
                               const ClusterGroup& group, const ClusterPicture& picture) {
  if (selector_class != kRackAwareReplicaSelector || client_rack.empty()) return -1;
  const auto in_rack = [&](int32_t id) {
    auto it = picture.brokers.find(id);
    return it != picture.brokers.end() && it->second.rack && *it->second.rack == client_rack;
  };
  if (in_rack(self)) return -1;
  for (int32_t id : group.sss)
    if (id != self && in_rack(id)) return id;
  return -1;
}

int32_t coordinator_broker(const Services& svc, std::string_view key) {
  if (svc.cluster == nullptr) return svc.config.broker_id;
  if (svc.cluster->fenced()) return -1;
  return svc.cluster->coordinator_of(key);
}

std::vector<BrokerAddress> broker_addresses(const RequestContext& ctx) {
  const Services& svc = *ctx.services;
  if (svc.cluster == nullptr) {
    const Listener& self = advertised_listener(ctx);
    return {{svc.config.broker_id, self.host, self.port,
             svc.config.broker_rack.empty() ? std::nullopt : std::optional(svc.config.broker_rack)}};
  }
  std::vector<BrokerAddress> out;
  for (const auto& [id, b] : svc.cluster->picture()->brokers)
    if (const cluster::Listener* l = b.listener(ctx.listener_name)) out.push_back({id, l->host, l->port, b.rack});
  return out;
}

std::optional<BrokerAddress> broker_address(const RequestContext& ctx, int32_t id) {
  for (auto& b : broker_addresses(ctx))
    if (b.id == id) return b;
  return std::nullopt;
}

int32_t controller_id(const Services& svc) {
  return svc.cluster == nullptr ? svc.config.broker_id : svc.cluster->picture()->controller;
}

bool broker_live(const Services& svc, int32_t id) {
  return svc.cluster == nullptr ? id == svc.config.broker_id : svc.cluster->picture()->live(id);
}

}  // namespace rokka::broker
