// The checks a produced batch passes before it is stored (Kafka's rules for
// Produce v3+): exactly one RecordBatch v2 within the topic's max.message.bytes,
// offsets consistent with its record count, no control batch, a compression codec
// the request version allows. The CRC-32C is verified by Store::append (on the
// caller's thread), which answers kCorruption -> CORRUPT_MESSAGE.
#pragma once

#include <span>
#include <string>

#include "protocol/codec.h"
#include "protocol/error_code.h"

namespace rokka::broker {

struct BatchCheck {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::string message;
  std::span<const std::byte> batch;  // the batch, when valid
};

BatchCheck check_produce_batch(const protocol::Records& records, int16_t produce_version, int32_t max_message_bytes);

// Writes PartitionLeaderEpoch into a batch that lives in the request frame the
// handler owns. The field is outside the CRC, as Kafka does when it appends.
void stamp_leader_epoch(std::span<const std::byte> batch, int32_t epoch);

}  // namespace rokka::broker
