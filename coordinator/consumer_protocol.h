// The one piece of the consumer protocol the coordinator reads: the topic list at the
// head of a member's subscription metadata (ConsumerProtocolSubscription, any version:
// int16 version, int32 topic count, int16-length strings). It decides which committed
// offsets a consumer group still uses (OffsetDelete, offset expiry). Input is a client's
// bytes: every length is checked against what is present before anything is allocated.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rokka::coordinator {

inline constexpr std::string_view kConsumerProtocolType = "consumer";

// The subscribed topics, or nullopt if the bytes are not a subscription.
std::optional<std::vector<std::string>> parse_subscription_topics(std::string_view metadata);

}  // namespace rokka::coordinator
