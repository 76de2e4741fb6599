// The group coordinator's settings: the Kafka keys it reads, with Kafka's defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

  // The consumer group protocol (KIP-848).
  int32_t consumer_heartbeat_interval_ms = 5000;   // group.consumer.heartbeat.interval.ms
  int32_t consumer_session_timeout_ms = 45000;     // group.consumer.session.timeout.ms
  int32_t consumer_max_size = INT32_MAX;           // group.consumer.max.size
  std::vector<std::string> consumer_assignors{"uniform", "range"};  // group.consumer.assignors; the first is the default
  // How often a regex subscription is matched against the topics again (Kafka: at most
  // every 10 s, on a heartbeat); a new regex is matched at once.
  int32_t consumer_regex_refresh_ms = 10000;
  // group.consumer.migration.policy: whether a classic group with members becomes a
  // consumer group when a consumer-protocol member joins (upgrade), and a consumer group
  // whose last consumer-protocol member leaves becomes classic again (downgrade).
  bool consumer_migration_upgrade = true;
  bool consumer_migration_downgrade = true;
  // Tests: each time a consumer group's record is not re-encoded because its revision did
  // not move, encode it anyway and abort if it differs from the one last written.
  bool consumer_verify_unchanged_records = false;
};

}  // namespace rokka::coordinator
