// KIP-848's online migration between the two kinds of group, as pure conversions (Kafka's
// ConsumerGroup.fromClassicGroup and ClassicGroup.fromConsumerGroup):
//
//  - upgrade: a classic group of the consumer protocol type with members becomes a
//    consumer group when a consumer-protocol member joins. Group epoch and every member's
//    epoch are the classic generation; each member keeps its last assignment (also its
//    target), its subscribed topics and rack from its subscription, and its JoinGroup
//    metadata, so it goes on as a classic member of the consumer group.
//  - downgrade: a consumer group whose last consumer-protocol member leaves, with classic
//    members left, becomes a Stable classic group at the group epoch; each member's
//    assignment is its target, encoded at its subscription's version. The caller then
//    starts a rebalance.
//
// GroupCoordinator decides when (group.consumer.migration.policy, the size limits) and
// moves the group between Membership and ConsumerMembership.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "coordinator/consumer_group.h"
#include "coordinator/group.h"
#include "coordinator/meta_records.h"

namespace rokka::coordinator {

// nullopt if a member's subscription or assignment is not the consumer protocol's.
std::optional<ConsumerGroupSnapshot> consumer_group_from_classic(const Group& group);

// The classic group of the members that use the classic protocol, but `leaving_member_id`
// (may be empty): for when the others leave -- the last consumer-protocol member by
// heartbeat or timeout, those a LeaveGroup names -- or none does (a static member's classic
// restart replaced the last consumer-protocol member).
StoredGroup classic_group_from_consumer(const ConsumerGroup& group, const std::string& leaving_member_id,
                                        int64_t now_ms);

}  // namespace rokka::coordinator
