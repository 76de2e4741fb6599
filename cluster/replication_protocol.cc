#include "cluster/replication_protocol.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "storage/crc32c.h"

namespace rokka::cluster::repl {
namespace {

// ---- little-endian writing ----
class Writer {
 public:
  explicit Writer(FrameType type) : type_(type) { out_.resize(kHeaderBytes); }
  void u8(uint8_t v) { out_.push_back(std::byte{v}); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void i32(int32_t v) { le(static_cast<uint32_t>(v), 4); }
  void i64(int64_t v) { le(static_cast<uint64_t>(v), 8); }
  void str(const std::string& s) {  // u16 length + bytes (callers keep it within its bound)
    u16(static_cast<uint16_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out_.insert(out_.end(), p, p + s.size());
  }
  void epochs(const std::vector<EpochStart>& list) {
    u32(static_cast<uint32_t>(list.size()));
    for (const auto& e : list) {
      i32(e.epoch);
      i64(e.start);
    }
  }
  std::vector<std::byte> finish() {
    const std::span<const std::byte> payload(out_.data() + kHeaderBytes, out_.size() - kHeaderBytes);
    write_header(out_.data(), type_, payload.size(), storage::crc32c(payload));
    return std::move(out_);
  }

  static void write_header(std::byte* at, FrameType type, size_t payload_bytes, uint32_t payload_crc) {
    put(at, static_cast<uint32_t>(payload_bytes), 4);
    at[4] = std::byte{kProtocolVersion};
    at[5] = std::byte{static_cast<uint8_t>(type)};
    put(at + 6, 0, 2);
    put(at + 8, payload_crc, 4);
    put(at + 12, storage::crc32c(at, 12), 4);
  }
  static void put(std::byte* at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) at[i] = std::byte{static_cast<uint8_t>(v >> (8 * i))};
  }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(std::byte{static_cast<uint8_t>(v >> (8 * i))});
  }
  FrameType type_;
  std::vector<std::byte> out_;
};

// ---- bounded reading ----
class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  bool ok() const { return ok_; }
  size_t left() const { return in_.size() - pos_; }
  uint64_t le(int n) {
    if (!ok_ || left() < static_cast<size_t>(n)) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(std::to_integer<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  uint8_t u8() { return static_cast<uint8_t>(le(1)); }
  uint16_t u16() { return static_cast<uint16_t>(le(2)); }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  int64_t i64() { return static_cast<int64_t>(le(8)); }
  std::span<const std::byte> bytes(size_t n) {
    if (!ok_ || left() < n) {
      ok_ = false;
      return {};
    }
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::string str(size_t max) {
    const size_t n = u16();
    if (n > max) ok_ = false;
    auto b = bytes(ok_ ? n : 0);
    return ok_ ? std::string(reinterpret_cast<const char*>(b.data()), b.size()) : std::string();
  }

 private:
  std::span<const std::byte> in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

Status malformed(const char* frame, std::string what) {
  return Status::malformed(std::string("replication ") + frame + ": " + std::move(what));
}

// An epoch list: the count bounded, then checked against the bytes left before allocating.
Result<std::vector<EpochStart>> read_epochs(Reader& r, const char* frame) {
  const uint32_t count = r.u32();
  if (!r.ok()) return malformed(frame, "truncated epoch count");
  if (count > kMaxEpochs) return malformed(frame, "epoch count " + std::to_string(count) + " over the limit");
  if (r.left() < static_cast<size_t>(count) * 12) return malformed(frame, "epoch list longer than the frame");
  std::vector<EpochStart> list;
  list.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    EpochStart e{r.i32(), r.i64()};
    if (e.epoch < 0 || e.start < 0) return malformed(frame, "negative epoch or start");
    if (!list.empty() && (e.epoch <= list.back().epoch || e.start < list.back().start)) {
      return malformed(frame, "epochs not in increasing order");
    }
    list.push_back(e);
  }
  return list;
}

Status finish(const Reader& r, const char* frame) {
  if (!r.ok()) return malformed(frame, "truncated");
  if (r.left() != 0) return malformed(frame, std::to_string(r.left()) + " trailing bytes");
  return {};
}

bool valid_type(uint8_t t) { return t >= 1 && t <= 6; }

}  // namespace

const char* frame_type_name(FrameType type) {
  switch (type) {
    case FrameType::kHello: return "HELLO";
    case FrameType::kWelcome: return "WELCOME";
    case FrameType::kReject: return "REJECT";
    case FrameType::kData: return "DATA";
    case FrameType::kAck: return "ACK";
    case FrameType::kSnapshot: return "SNAPSHOT";
  }
  return "?";
}

const char* reject_reason_name(RejectReason reason) {
  switch (reason) {
    case RejectReason::kNotLeader: return "not_leader";
    case RejectReason::kStaleEpoch: return "stale_epoch";
    case RejectReason::kWrongGroup: return "wrong_group";
    case RejectReason::kSegmentBytesMismatch: return "segment_bytes_mismatch";
    case RejectReason::kTooFarBehind: return "too_far_behind";
    case RejectReason::kInvalid: return "invalid";
    case RejectReason::kEntryBoundTooSmall: return "entry_bound_too_small";
  }
  return "?";
}

Result<FrameHeader> decode_header(std::span<const std::byte> header, size_t max_data_bytes) {
  if (header.size() < kHeaderBytes) return Status::malformed("replication frame: short header");
  Reader r(header.first(kHeaderBytes));
  const uint32_t payload_bytes = r.u32();
  const uint8_t version = r.u8();
  const uint8_t type = r.u8();
  const uint16_t flags = r.u16();
  const uint32_t payload_crc = r.u32();
  const uint32_t header_crc = r.u32();
  if (header_crc != storage::crc32c(header.data(), 12)) return Status::malformed("replication frame: header CRC mismatch");
  if (version != kProtocolVersion) {
    return Status::malformed("replication frame: unsupported version " + std::to_string(version));
  }
  if (!valid_type(type)) return Status::malformed("replication frame: unknown type " + std::to_string(type));
  if (flags != 0) return Status::malformed("replication frame: unknown flags " + std::to_string(flags));
  const auto t = static_cast<FrameType>(type);
  const size_t limit = t == FrameType::kData       ? std::min(max_data_bytes, kMaxDataBytesCeiling) + kDataFixedBytes
                       : t == FrameType::kSnapshot ? kSnapshotChunkBytes + kSnapshotFixedBytes
                                                   : kMaxControlPayloadBytes;
  if (payload_bytes > limit) {
    return Status::malformed(std::string("replication ") + frame_type_name(t) + ": payload of " +
                             std::to_string(payload_bytes) + " bytes over the limit of " + std::to_string(limit));
  }
  return FrameHeader{t, payload_bytes, payload_crc};
}

Status check_payload(const FrameHeader& header, std::span<const std::byte> payload) {
  if (payload.size() != header.payload_bytes) return Status::malformed("replication frame: payload size mismatch");
  if (storage::crc32c(payload) != header.payload_crc) {
    return Status::malformed(std::string("replication ") + frame_type_name(header.type) + ": payload CRC mismatch");
  }
  return {};
}

std::vector<std::byte> encode(const Hello& h) {
  Writer w(FrameType::kHello);
  w.str(h.cluster_id.substr(0, kMaxNameBytes));
  w.str(h.group.substr(0, kMaxNameBytes));
  w.i32(h.follower_id);
  w.i64(h.broker_epoch);
  w.i64(h.segment_bytes);
  w.i64(h.max_entry_bytes);
  w.i64(h.log_begin);
  w.i64(h.log_end);
  w.epochs(h.epochs);
  return w.finish();
}

std::vector<std::byte> encode(const Welcome& m) {
  Writer w(FrameType::kWelcome);
  w.i32(m.leader_id);
  w.i32(m.epoch);
  w.i64(m.truncate_to);
  w.i64(m.leader_log_begin);
  w.i64(m.leader_log_end);
  w.epochs(m.epochs);
  return w.finish();
}

std::vector<std::byte> encode(const Reject& m) {
  Writer w(FrameType::kReject);
  w.u8(static_cast<uint8_t>(m.reason));
  w.i32(m.leader_epoch);
  w.str(m.message.substr(0, kMaxMessageBytes));
  return w.finish();
}

std::vector<std::byte> encode(const Ack& m) {
  Writer w(FrameType::kAck);
  w.i64(m.written_end);
  w.i64(m.durable_end);
  return w.finish();
}

std::array<std::byte, kHeaderBytes + kDataFixedBytes> encode_data_prefix(const DataHeader& h,
                                                                         std::span<const std::byte> bytes) {
  std::array<std::byte, kHeaderBytes + kDataFixedBytes> out{};
  std::byte* f = out.data() + kHeaderBytes;
  Writer::put(f, static_cast<uint32_t>(h.epoch), 4);
  Writer::put(f + 4, static_cast<uint64_t>(h.from_pos), 8);
  Writer::put(f + 12, static_cast<uint64_t>(h.confirm_pos), 8);
  Writer::put(f + 20, static_cast<uint64_t>(h.leader_end), 8);
  Writer::put(f + 28, static_cast<uint32_t>(bytes.size()), 4);
  uint32_t crc = storage::crc32c(f, kDataFixedBytes);
  crc = storage::crc32c_extend(crc, bytes.data(), bytes.size());
  Writer::write_header(out.data(), FrameType::kData, kDataFixedBytes + bytes.size(), crc);
  return out;
}

std::vector<std::byte> encode_data(const DataHeader& header, std::span<const std::byte> bytes) {
  const auto prefix = encode_data_prefix(header, bytes);
  std::vector<std::byte> out(prefix.size() + bytes.size());
  std::memcpy(out.data(), prefix.data(), prefix.size());
  if (!bytes.empty()) std::memcpy(out.data() + prefix.size(), bytes.data(), bytes.size());
  return out;
}

std::vector<std::byte> encode_snapshot_piece(const SnapshotHeader& h, std::span<const std::byte> bytes) {
  Writer w(FrameType::kSnapshot);
  w.i32(h.epoch);
  w.i64(h.total_bytes);
  w.i64(h.offset);
  w.u32(static_cast<uint32_t>(bytes.size()));
  std::vector<std::byte> out = w.finish();  // header sealed over the fixed fields: reseal below
  out.insert(out.end(), bytes.begin(), bytes.end());
  const std::span<const std::byte> payload(out.data() + kHeaderBytes, out.size() - kHeaderBytes);
  Writer::write_header(out.data(), FrameType::kSnapshot, payload.size(), storage::crc32c(payload));
  return out;
}

Result<Hello> decode_hello(std::span<const std::byte> payload) {
  Reader r(payload);
  Hello h;
  h.cluster_id = r.str(kMaxNameBytes);
  h.group = r.str(kMaxNameBytes);
  h.follower_id = r.i32();
  h.broker_epoch = r.i64();
  h.segment_bytes = r.i64();
  h.max_entry_bytes = r.i64();
  h.log_begin = r.i64();
  h.log_end = r.i64();
  if (!r.ok()) return malformed("HELLO", "truncated or a name over the limit");
  if (h.log_begin < 0 || h.log_end < h.log_begin) return malformed("HELLO", "log_begin/log_end out of order");
  if (h.segment_bytes <= 0) return malformed("HELLO", "segment_bytes not positive");
  if (h.max_entry_bytes < 0) return malformed("HELLO", "negative max_entry_bytes");
  auto epochs = read_epochs(r, "HELLO");
  if (!epochs.ok()) return epochs.status();
  h.epochs = std::move(epochs.value());
  if (auto s = finish(r, "HELLO"); !s.ok()) return s;
  return h;
}

Result<Welcome> decode_welcome(std::span<const std::byte> payload) {
  Reader r(payload);
  Welcome m;
  m.leader_id = r.i32();
  m.epoch = r.i32();
  m.truncate_to = r.i64();
  m.leader_log_begin = r.i64();
  m.leader_log_end = r.i64();
  if (!r.ok()) return malformed("WELCOME", "truncated");
  if (m.epoch < 0 || m.truncate_to < 0 || m.leader_log_begin < 0 || m.leader_log_end < m.leader_log_begin) {
    return malformed("WELCOME", "negative or out-of-order positions");
  }
  auto epochs = read_epochs(r, "WELCOME");
  if (!epochs.ok()) return epochs.status();
  m.epochs = std::move(epochs.value());
  if (auto s = finish(r, "WELCOME"); !s.ok()) return s;
  return m;
}

Result<Reject> decode_reject(std::span<const std::byte> payload) {
  Reader r(payload);
  Reject m;
  const uint8_t reason = r.u8();
  m.leader_epoch = r.i32();
  m.message = r.str(kMaxMessageBytes);
  if (auto s = finish(r, "REJECT"); !s.ok()) return s;
  if (reason < 1 || reason > 7) return malformed("REJECT", "unknown reason " + std::to_string(reason));
  m.reason = static_cast<RejectReason>(reason);
  return m;
}

Result<Data> decode_data(std::span<const std::byte> payload, size_t max_data_bytes) {
  Reader r(payload);
  Data d;
  d.header.epoch = r.i32();
  d.header.from_pos = r.i64();
  d.header.confirm_pos = r.i64();
  d.header.leader_end = r.i64();
  const uint32_t n = r.u32();
  if (!r.ok()) return malformed("DATA", "truncated");
  if (n > std::min(max_data_bytes, kMaxDataBytesCeiling)) return malformed("DATA", "byte count " + std::to_string(n) + " over the limit");
  if (n != r.left()) return malformed("DATA", "byte count does not match the frame");
  d.bytes = r.bytes(n);
  if (d.header.epoch < 0 || d.header.from_pos < 0 || d.header.confirm_pos < 0 || d.header.leader_end < 0 ||
      d.header.from_pos > std::numeric_limits<int64_t>::max() - static_cast<int64_t>(n)) {
    return malformed("DATA", "negative or overflowing positions");
  }
  if (auto s = finish(r, "DATA"); !s.ok()) return s;
  return d;
}

Result<Ack> decode_ack(std::span<const std::byte> payload) {
  Reader r(payload);
  Ack m;
  m.written_end = r.i64();
  m.durable_end = r.i64();
  if (auto s = finish(r, "ACK"); !s.ok()) return s;
  if (m.written_end < 0 || m.durable_end < 0) return malformed("ACK", "negative positions");
  return m;
}

Result<SnapshotPiece> decode_snapshot_piece(std::span<const std::byte> payload) {
  Reader r(payload);
  SnapshotPiece p;
  p.header.epoch = r.i32();
  p.header.total_bytes = r.i64();
  p.header.offset = r.i64();
  const uint32_t n = r.u32();
  if (!r.ok()) return malformed("SNAPSHOT", "truncated");
  if (n == 0 || n > kSnapshotChunkBytes) return malformed("SNAPSHOT", "byte count " + std::to_string(n) + " out of bounds");
  if (n != r.left()) return malformed("SNAPSHOT", "byte count does not match the frame");
  p.bytes = r.bytes(n);
  const auto& h = p.header;
  if (h.epoch < 0 || h.total_bytes < 1 || h.total_bytes > kMaxSnapshotBytes || h.offset < 0 ||
      h.offset > h.total_bytes - static_cast<int64_t>(n)) {
    return malformed("SNAPSHOT", "total " + std::to_string(h.total_bytes) + " or offset " + std::to_string(h.offset) +
                                     " out of bounds");
  }
  if (auto s = finish(r, "SNAPSHOT"); !s.ok()) return s;
  return p;
}

Result<Frame> decode_frame(std::span<const std::byte> frame, size_t max_data_bytes) {
  auto header = decode_header(frame, max_data_bytes);
  if (!header.ok()) return header.status();
  const auto payload = frame.subspan(kHeaderBytes);
  if (auto s = check_payload(*header, payload); !s.ok()) return s;
  auto wrap = [](auto result) -> Result<Frame> {
    if (!result.ok()) return result.status();
    return Frame(std::move(result.value()));
  };
  switch (header->type) {
    case FrameType::kHello: return wrap(decode_hello(payload));
    case FrameType::kWelcome: return wrap(decode_welcome(payload));
    case FrameType::kReject: return wrap(decode_reject(payload));
    case FrameType::kData: return wrap(decode_data(payload, max_data_bytes));
    case FrameType::kAck: return wrap(decode_ack(payload));
    case FrameType::kSnapshot: return wrap(decode_snapshot_piece(payload));
  }
  return Status::malformed("replication frame: unknown type");
}

}  // namespace rokka::cluster::repl
