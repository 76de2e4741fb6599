// controller_mutation_rate (KIP-599) as CreateTopics, CreatePartitions and DeleteTopics
// apply it: each topic's partitions created, added or deleted are charged to the
// client's token bucket (QuotaManager::record_mutation) once the topic passed its own
// checks; at the strict versions a topic meeting a bucket in debt gets
// THROTTLING_QUOTA_EXCEEDED and is left alone, older versions are only throttled. The
// response carries the time until the debt is repaid, and the channel is muted that long.
#pragma once

#include <cstdint>

#include "broker/metrics.h"
#include "broker/net/quota_manager.h"
#include "broker/net/request_context.h"
#include "broker/services.h"

namespace rokka::broker {

inline constexpr const char* kThrottlingQuotaExceededMessage = "The throttling quota has been exceeded.";

// Whether the topic's mutation of `partitions` may go ahead (and is charged).
inline bool admit_mutation(const RequestContext& ctx, int64_t partitions, bool strict) {
  const Services& svc = *ctx.services;
  return svc.quotas.record_mutation(quota_user(ctx.principal), ctx.header.client_id.value_or(""), partitions, strict);
}

// The request's throttle: set it as throttle_time_ms and on the Response.
inline int32_t mutation_throttle(const RequestContext& ctx) {
  const Services& svc = *ctx.services;
  const int32_t ms = svc.quotas.mutation_throttle_ms(quota_user(ctx.principal), ctx.header.client_id.value_or(""));
  if (ms > 0 && svc.metrics) svc.metrics->throttled(QuotaManager::Kind::kControllerMutation, ms);
  return ms;
}

}  // namespace rokka::broker
