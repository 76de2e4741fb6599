// The group coordinator's settings: the Kafka keys it reads, with Kafka's defaults.
#pragma once

#include <cstdint>

namespace rokka::coordinator {

struct CoordinatorOptions {
  int32_t min_session_timeout_ms = 6000;        // group.min.session.timeout.ms
  int32_t max_session_timeout_ms = 1800000;     // group.max.session.timeout.ms
  int32_t initial_rebalance_delay_ms = 3000;    // group.initial.rebalance.delay.ms
  int32_t max_group_size = INT32_MAX;           // group.max.size
  int64_t offsets_retention_ms = 7 * 24 * 3600 * 1000LL;    // offsets.retention.minutes * 60000
  int64_t offsets_retention_check_interval_ms = 600000;     // offsets.retention.check.interval.ms
  int32_t offset_metadata_max_bytes = 4096;     // offset.metadata.max.bytes
  // A member whose first JoinGroup is parked is dropped after this long: it cannot heartbeat
  // yet, so a client that gave up on its request would otherwise hold the rebalance forever.
  int32_t new_member_join_timeout_ms = 300000;
};

}  // namespace rokka::coordinator
