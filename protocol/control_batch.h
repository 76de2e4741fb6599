// Transaction markers: the control batch the transaction coordinator writes to every
// partition of a transaction when it ends (KIP-98; Kafka's control record format).
//
// One RecordBatch v2 with attributes transactional|control, the producer's id and epoch,
// base sequence -1 and one record: key = {version int16 0, type int16 (0 abort, 1 commit)},
// value = {version int16 0, coordinator epoch int32}. Base offset 0 (the store assigns it).
// The CRC field is left 0: protocol/ computes no CRC; the caller seals it
// (storage/crc32c.h, seal_batch_crc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/codec.h"

namespace rokka::protocol {

enum class ControlType : int16_t { kAbort = 0, kCommit = 1 };

struct TxnMarker {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  ControlType type = ControlType::kAbort;
  int32_t coordinator_epoch = 0;
  int64_t timestamp_ms = 0;
};

std::vector<std::byte> build_txn_marker(const TxnMarker& marker);

// The control type of a control batch's single record key (4 bytes: version 0, type);
// nullopt for anything else.
std::optional<ControlType> parse_control_key(Bytes key);

}  // namespace rokka::protocol
