// The replication stream's wire format (SCALE-OUT §3.5, docs/cluster.md "The replication stream"):
// a follower connects to its group leader's replication listener and the two exchange frames.
//
//   F->L  HELLO    who the follower is, what its log holds (ends, epochs), the entries it can take
//   L->F  WELCOME  the leader's epoch and epochs, where the follower must cut its log (truncate_to)
//         REJECT   why not (not leader, stale epoch, wrong group, ...)
//   L->F  SNAPSHOT a piece of a re-bootstrap snapshot (a follower below the leader's log_begin)
//   L->F  DATA     whole log entries at from_pos (empty: a heartbeat), the confirm position C
//   F->L  ACK      the follower's written and durable ends
//
// Every frame is a 16-byte header and a payload, all integers little-endian:
//   u32 payload_bytes | u8 version | u8 type | u16 flags (0) | u32 payload_crc | u32 header_crc
// header_crc is CRC-32C of the 12 bytes before it; payload_crc is CRC-32C of the payload. Frames
// come from the network: every length and count is bounded before anything is allocated, and a
// frame that does not decode is a kMalformed status (the session closes), never undefined
// behaviour.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cluster/replicated_log.h"
#include "storage/status.h"

namespace rokka::cluster::repl {

using storage::Result;
using storage::Status;

// Version 2 added SNAPSHOT (re-bootstrap below the leader's log_begin); a frame of another
// version is refused, so both ends of a stream run the same version.
inline constexpr uint8_t kProtocolVersion = 2;
inline constexpr size_t kHeaderBytes = 16;
// DATA frames are cut at about this many log bytes of whole entries; one entry larger than that
// goes alone in its frame. How large a DATA may be is an option both sides are given (the
// store's largest entry: ReplicationServerOptions / ReplicationClientOptions::max_entry_bytes),
// and data_bound() turns it into the decoders' bound: never below kDataFrameBytes, never above
// kMaxDataBytesCeiling. It is checked on the frame header, before the payload is allocated.
inline constexpr size_t kDataFrameBytes = size_t{1} << 20;
inline constexpr size_t kMaxDataBytesCeiling = size_t{1} << 30;
inline constexpr size_t kDataFixedBytes = 4 + 8 + 8 + 8 + 4;  // epoch, from, confirm, leader_end, byte count
// The DATA bound for a log whose entries are at most max_entry_bytes.
constexpr size_t data_bound(int64_t max_entry_bytes) {
  if (max_entry_bytes <= static_cast<int64_t>(kDataFrameBytes)) return kDataFrameBytes;
  if (max_entry_bytes >= static_cast<int64_t>(kMaxDataBytesCeiling)) return kMaxDataBytesCeiling;
  return static_cast<size_t>(max_entry_bytes);
}
// Every frame but DATA is small: its payload is bounded by this.
inline constexpr size_t kMaxControlPayloadBytes = 64 * 1024;
inline constexpr size_t kMaxEpochs = 4096;     // epochs listed in HELLO / WELCOME
inline constexpr size_t kMaxNameBytes = 255;   // cluster id, group name
inline constexpr size_t kMaxMessageBytes = 1024;  // REJECT's text

// A re-bootstrap snapshot (storage::replication::encode_snapshot's bytes) travels in SNAPSHOT
// frames of at most kSnapshotChunkBytes each, at most kMaxSnapshotBytes in all (the follower
// writes it as one meta journal record, whose bound this is): the total is in every frame and
// checked before the follower allocates it.
inline constexpr size_t kSnapshotChunkBytes = size_t{1} << 20;
inline constexpr int64_t kMaxSnapshotBytes = int64_t{64} << 20;
inline constexpr size_t kSnapshotFixedBytes = 4 + 8 + 8 + 4;  // epoch, total, offset, byte count

enum class FrameType : uint8_t { kHello = 1, kWelcome = 2, kReject = 3, kData = 4, kAck = 5, kSnapshot = 6 };
const char* frame_type_name(FrameType type);

enum class RejectReason : uint8_t {
  kNotLeader = 1,
  kStaleEpoch = 2,          // the follower has seen a newer epoch than the leader's
  kWrongGroup = 3,          // cluster id or group differ
  kSegmentBytesMismatch = 4,
  kTooFarBehind = 5,        // the follower would need entries the leader no longer has (re-bootstrap)
  kInvalid = 6,             // the HELLO's fields do not hold together
  kEntryBoundTooSmall = 7,  // the follower's DATA bound would refuse some of the leader's entries
};
const char* reject_reason_name(RejectReason reason);

struct Hello {
  std::string cluster_id;
  std::string group;
  int32_t follower_id = 0;
  int64_t broker_epoch = 0;
  int64_t segment_bytes = 0;
  int64_t max_entry_bytes = 0;  // the follower's option: its DATA bound is data_bound() of it
  int64_t log_begin = 0;
  int64_t log_end = 0;
  std::vector<EpochStart> epochs;  // strictly increasing epochs, non-decreasing starts
  bool operator==(const Hello&) const = default;
};

struct Welcome {
  int32_t leader_id = 0;
  int32_t epoch = 0;  // the leader's epoch: every DATA of this session carries it
  std::vector<EpochStart> epochs;
  int64_t truncate_to = 0;  // the follower cuts its log here, then receives DATA from here
  int64_t leader_log_begin = 0;
  int64_t leader_log_end = 0;
  bool operator==(const Welcome&) const = default;
};

struct Reject {
  RejectReason reason = RejectReason::kInvalid;
  int32_t leader_epoch = -1;  // the epoch the refusing broker knows, -1 when none
  std::string message;
  bool operator==(const Reject&) const = default;
};

// DATA's fixed fields; the log bytes follow them in the payload.
struct DataHeader {
  int32_t epoch = 0;        // the session's (leader's) epoch
  int64_t from_pos = 0;     // log position of the first byte
  int64_t confirm_pos = 0;  // C on the leader when sent
  int64_t leader_end = 0;   // the leader's log end when sent
  bool operator==(const DataHeader&) const = default;
};

struct Data {
  DataHeader header;
  std::span<const std::byte> bytes;  // whole entries; a view into the decoded payload
};

// SNAPSHOT's fixed fields; `bytes` [offset, offset + size) of the snapshot follow them. The
// pieces come in order, from offset 0 to total_bytes, right after a WELCOME whose truncate_to is
// above the follower's log end (the snapshot's begin); DATA follows from there.
struct SnapshotHeader {
  int32_t epoch = 0;        // the session's (leader's) epoch
  int64_t total_bytes = 0;  // the whole snapshot: 1 .. kMaxSnapshotBytes
  int64_t offset = 0;       // of this piece's first byte
  bool operator==(const SnapshotHeader&) const = default;
};

struct SnapshotPiece {
  SnapshotHeader header;
  std::span<const std::byte> bytes;  // 1 .. kSnapshotChunkBytes, within total_bytes; a view into the payload
};

struct Ack {
  int64_t written_end = 0;
  int64_t durable_end = 0;
  bool operator==(const Ack&) const = default;
};

struct FrameHeader {
  FrameType type = FrameType::kData;
  uint32_t payload_bytes = 0;
  uint32_t payload_crc = 0;
};

// The header of a frame: CRC, version, a known type, and a payload size within that type's bound
// (for DATA: max_data_bytes of log bytes and the fixed fields).
Result<FrameHeader> decode_header(std::span<const std::byte> header, size_t max_data_bytes = kDataFrameBytes);
// The payload's CRC (call before decoding the payload).
Status check_payload(const FrameHeader& header, std::span<const std::byte> payload);

// Whole frames (header + payload).
std::vector<std::byte> encode(const Hello& hello);
std::vector<std::byte> encode(const Welcome& welcome);
std::vector<std::byte> encode(const Reject& reject);
std::vector<std::byte> encode(const Ack& ack);
std::vector<std::byte> encode_data(const DataHeader& header, std::span<const std::byte> bytes);
std::vector<std::byte> encode_snapshot_piece(const SnapshotHeader& header, std::span<const std::byte> bytes);
// DATA without copying the log bytes: the frame header and fixed fields, to be sent followed by
// `bytes` (scatter-gather). bytes.size() <= kMaxDataBytesCeiling.
std::array<std::byte, kHeaderBytes + kDataFixedBytes> encode_data_prefix(const DataHeader& header,
                                                                         std::span<const std::byte> bytes);

// Payload decoders (the header already checked). Each refuses trailing bytes.
Result<Hello> decode_hello(std::span<const std::byte> payload);
Result<Welcome> decode_welcome(std::span<const std::byte> payload);
Result<Reject> decode_reject(std::span<const std::byte> payload);
Result<Data> decode_data(std::span<const std::byte> payload, size_t max_data_bytes = kDataFrameBytes);
Result<Ack> decode_ack(std::span<const std::byte> payload);
Result<SnapshotPiece> decode_snapshot_piece(std::span<const std::byte> payload);

using Frame = std::variant<Hello, Welcome, Reject, Data, Ack, SnapshotPiece>;
// A whole frame from one buffer (tests, and anything holding a frame at once). A Data's bytes
// point into `frame`.
Result<Frame> decode_frame(std::span<const std::byte> frame, size_t max_data_bytes = kDataFrameBytes);

}  // namespace rokka::cluster::repl
