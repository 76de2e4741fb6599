#include "coordinator/state_loader.h"

#include "coordinator/log.h"

namespace rokka::coordinator {

LoadedState load_coordinator_state(const storage::MetaStore& meta) {
  LoadedState state;
  for (const auto& [key, value] : meta.scan(kGroupKeyPrefix)) {
    auto group_id = decode_group_key(key);
    auto group = group_id ? decode_group_value(*group_id, value) : std::nullopt;
    if (!group) {
      ++state.skipped_records;
      log().warn("skipping undecodable group record: key_bytes={} value_bytes={}", key.size(), value.size());
      continue;
    }
    state.groups.push_back(std::move(*group));
  }
  for (const auto& [key, value] : meta.scan(kConsumerGroupKeyPrefix)) {
    auto group_id = decode_consumer_group_key(key);
    auto group = group_id ? decode_consumer_group_value(*group_id, value) : std::nullopt;
    if (!group) {
      ++state.skipped_records;
      log().warn("skipping undecodable consumer group record: key_bytes={} value_bytes={}", key.size(), value.size());
      continue;
    }
    state.consumer_groups.push_back(std::move(*group));
  }
  auto offsets = meta.scan(kOffsetKeyPrefix);
  state.offsets.reserve(offsets.size());
  for (const auto& [key, value] : offsets) {
    auto offset_key = decode_offset_key(key);
    auto offset = offset_key ? decode_offset_value(value) : std::nullopt;
    if (!offset) {
      ++state.skipped_records;
      log().warn("skipping undecodable offset record: key_bytes={} value_bytes={}", key.size(), value.size());
      continue;
    }
    state.offsets.emplace_back(std::move(*offset_key), std::move(*offset));
  }
  return state;
}

}  // namespace rokka::coordinator
