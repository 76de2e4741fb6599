// The consumer protocol embedded in the classic group protocol, as far as the coordinator
// reads or writes it: a member's subscription (JoinGroup's protocol metadata,
// ConsumerProtocolSubscription v0-3: topics, user data, owned partitions, generation id,
// rack id) and an assignment (SyncGroup's, ConsumerProtocolAssignment v0-3: partitions by
// topic, user data). The coordinator reads subscriptions to know which topics a classic
// group still uses (OffsetDelete, offset expiry) and, for a group that hosts classic
// members in a consumer group (KIP-848's migration), their topics, owned partitions and
// rack; it writes the assignments the broker's assignor gave them. Wire: int16 version,
// then that version's fields, classic (non-flexible) encoding; a version above 3 reads as
// 3 and may carry trailing bytes, as Kafka's readers allow. Input is a client's bytes:
// every count and length is checked against what is present before anything is allocated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/consumer_assignor.h"

namespace rokka::coordinator {

inline constexpr std::string_view kConsumerProtocolType = "consumer";

struct ConsumerSubscription {
  int16_t version = 0;
  std::vector<std::string> topics;
  TopicPartitionsMap owned;  // v1+
  int32_t generation_id = -1;  // v2+
  std::optional<std::string> rack_id;  // v3+
};

// The subscription, or nullopt if the bytes are not one.
std::optional<ConsumerSubscription> parse_subscription(std::string_view metadata);
// Only the topics (any version), or nullopt if the bytes are not a subscription.
std::optional<std::vector<std::string>> parse_subscription_topics(std::string_view metadata);
// The version a subscription says it has, or nullopt.
std::optional<int16_t> subscription_version(std::string_view metadata);

// An assignment's partitions; "" (a member that was never given one) is no partitions.
std::optional<TopicPartitionsMap> parse_assignment(std::string_view bytes);
// `partitions` as an assignment of `version` (0-3; the body is the same), null user data.
std::string encode_assignment(const TopicPartitionsMap& partitions, int16_t version);

}  // namespace rokka::coordinator
