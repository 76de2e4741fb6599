// The pre-0.11 message format (magic 0 and 1) that Produce v0-v2 carries, and its
// conversion to one RecordBatch v2, which is all the broker stores (as Kafka 3.x
// does when its log format is v2).
//
// A message set is a sequence of entries: Offset int64, MessageSize int32, then the
// message: Crc uint32 (CRC-32/IEEE of Magic..end), Magic int8, Attributes int8
// (bits 0-2 codec, bit 3 LogAppendTime for magic 1), Timestamp int64 (magic 1 only),
// Key bytes (int32 length, -1 = null), Value bytes (int32 length, -1 = null). A
// compressed message is a wrapper whose value is a whole message set, compressed;
// wrappers nest only once.
//
// Hostile input: every length is checked against the bytes left before it is used,
// decompressed output is bounded by `max_output`, and the record count by the bytes.
#pragma once

#include <cstddef>
#include <vector>

#include "protocol/codec.h"
#include "protocol/record_batch.h"

namespace rokka::protocol {

// Converts a Produce v0-v2 partition's records into one uncompressed v2 batch in
// `out`: records keep their keys, values and order (offset deltas 0..n-1); magic 0
// messages get no timestamp (-1), magic 1 ones keep theirs. Producer id, epoch and
// sequence are -1 (these versions have no idempotence). The CRC-32C field is left 0:
// the caller fills it. kOk, or the BatchCheck Kafka's answer derives from:
// CORRUPT_MESSAGE for broken framing or a legacy CRC mismatch, INVALID_RECORD for an
// empty set or a v2 batch (magic 2 needs Produce v3+).
BatchCheck upconvert_message_set(Bytes records, size_t max_output, std::vector<std::byte>& out);

}  // namespace rokka::protocol
