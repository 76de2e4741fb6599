#include "storage/replication.h"

#include <algorithm>
#include <string>

#include "storage/meta_journal.h"

namespace rokka::storage::replication {
namespace {

bool all_zero(std::span<const std::byte> b) {
  return std::all_of(b.begin(), b.end(), [](std::byte x) { return x == std::byte{0}; });
}

std::string at(int64_t pos) { return " at log position " + std::to_string(pos); }

}  // namespace

Result<std::vector<Piece>> split(int64_t from, std::span<const std::byte> bytes, int64_t segment_bytes) {
  namespace fb = format::batch;
  std::vector<Piece> out;
  if (from < 0 || segment_bytes <= format::kBlankHeaderSize) return Status::invalid_argument("bad position");
  int64_t pos = from;
  size_t off = 0;
  while (off < bytes.size()) {
    const auto left = static_cast<int64_t>(bytes.size() - off);
    const std::byte* p = bytes.data() + off;
    const int64_t rem = segment_bytes - pos % segment_bytes;  // up to this store's segment end
    Piece piece;
    piece.pos = LogPosition{pos};
    int64_t len = 0;
    if (rem < format::kBlankHeaderSize) {  // a tail too short for a blank: zeros
      if (left < rem) return Status::corruption("torn segment tail" + at(pos));
      if (!all_zero({p, static_cast<size_t>(rem)})) return Status::corruption("segment tail not zero" + at(pos));
      piece.tail = true;
      len = rem;
    } else {
      if (left < format::kBlankHeaderSize) return Status::corruption("torn entry" + at(pos));
      const uint32_t magic = format::get_le32(p);
      if (magic == format::kBlankMagic) {
        if (format::get_le32(p + 4) != static_cast<uint32_t>(rem) || rem == segment_bytes)
          return Status::invalid_argument("blank does not end this store's segment (segment sizes differ?)" + at(pos));
        if (left < rem) return Status::corruption("torn blank" + at(pos));
        if (!all_zero({p + format::kBlankHeaderSize, static_cast<size_t>(rem - format::kBlankHeaderSize)}))
          return Status::corruption("blank padding not zero" + at(pos));
        piece.tail = true;
        len = rem;
      } else if (format::is_entry_magic(magic) || format::is_payload_magic(magic)) {
        if (left < format::kEntryHeaderSize) return Status::corruption("torn entry header" + at(pos));
        piece.header = format::decode_entry_header(p);
        len = piece.header.length;
        const bool batch = format::is_entry_magic(magic);
        const int64_t min_len = batch ? format::kEntryHeaderSize + fb::kHeaderSize : format::kMinPayloadEntrySize;
        if (len < min_len) return Status::corruption("entry length too small" + at(pos));
        if (len > rem || len > segment_bytes - format::kBlankHeaderSize)
          return Status::invalid_argument("entry crosses this store's segment end (segment sizes differ?)" + at(pos));
        if (len > left) return Status::corruption("torn entry" + at(pos));
        const std::span<const std::byte> body(p + format::kEntryHeaderSize,
                                              static_cast<size_t>(len - format::kEntryHeaderSize));
        if (batch) {
          if (format::entry_crc(p) != piece.header.crc) return Status::corruption("entry CRC mismatch" + at(pos));
          if (fb::defect(body) != nullptr) return Status::corruption("batch header inconsistent" + at(pos));
          if (!batch_crc_ok(body)) return Status::corruption("batch CRC mismatch" + at(pos));
        } else {
          if (format::payload_entry_crc(p, piece.header.length) != piece.header.crc)
            return Status::corruption("entry CRC mismatch" + at(pos));
          const bool decodes = magic == format::kMetaMagic ? decode_meta_entry(body).has_value()
                                                           : decode_rewrite_commit(body).has_value();
          if (!decodes) return Status::corruption("entry body does not decode" + at(pos));
        }
      } else {
        return Status::corruption("no log entry" + at(pos));
      }
    }
    piece.bytes = {p, static_cast<size_t>(len)};
    out.push_back(piece);
    pos += len;
    off += static_cast<size_t>(len);
  }
  return out;
}

std::vector<std::byte> encode_meta_entry(const std::vector<MetaStore::Mutation>& batch,
                                         const std::vector<MetaStore::Mutation>& undo) {
  auto out = MetaJournal::encode_payload(batch);
  const auto tail = MetaJournal::encode_payload(undo);
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

std::optional<MetaEntry> decode_meta_entry(std::span<const std::byte> body) {
  MetaEntry e;
  size_t used = 0;
  if (!MetaJournal::decode_payload(body, e.batch, &used)) return std::nullopt;
  if (used == body.size()) return e;  // no undo part (older entries)
  e.undo.emplace();
  if (!MetaJournal::decode_payload(body.subspan(used), *e.undo)) return std::nullopt;
  return e;
}

std::vector<std::byte> encode_rewrite_commit(const RewriteCommit& c) {
  format::Encoder e;
  e.i64(c.from);
  e.i64(c.to);
  e.u32(static_cast<uint32_t>(c.units.size()));
  for (const auto& u : c.units) {
    auto& buf = e.buffer();
    buf.resize(buf.size() + format::kUnitSize);
    format::encode_unit(u, buf.data() + buf.size() - format::kUnitSize);
  }
  return std::move(e.buffer());
}

std::optional<RewriteCommit> decode_rewrite_commit(std::span<const std::byte> body) {
  format::Decoder d(body);
  RewriteCommit c;
  c.from = d.i64();
  c.to = d.i64();
  const uint32_t n = d.count(format::kUnitSize);  // bounded by the bytes the body holds
  if (!d.ok() || d.remaining() != size_t{n} * format::kUnitSize || c.from < 0 || c.to < c.from) return std::nullopt;
  c.units.reserve(n);
  const std::byte* p = body.data() + (body.size() - d.remaining());
  for (uint32_t i = 0; i < n; ++i) {
    const format::QueueUnit u = format::decode_unit(p + size_t{i} * format::kUnitSize);
    if (u.pos.value < 0 || u.size < 0 || u.last_offset_delta < 0) return std::nullopt;
    c.units.push_back(u);
  }
  return c;
}

std::vector<std::byte> encode_partition_state(const ProducerStateTable* producers, const TxnIndex* txns) {
  format::Encoder e;
  if (producers) {
    producers->encode(e);
  } else {
    ProducerStateTable().encode(e);
  }
  if (txns) {
    txns->encode(e);
  } else {
    TxnIndex().encode(e);
  }
  return std::move(e.buffer());
}

bool decode_partition_state(std::span<const std::byte> state, ProducerStateTable& producers, TxnIndex& txns) {
  format::Decoder d(state);
  return producers.decode(d) && txns.decode(d) && d.ok() && d.remaining() == 0;
}

std::vector<std::byte> encode_snapshot(const Store::BootstrapSnapshot& snap) {
  format::Encoder e;
  e.u32(kSnapshotMagic);
  e.i64(snap.begin);
  e.i64(snap.end);
  e.u32(static_cast<uint32_t>(snap.meta.size()));
  for (const auto& [key, value] : snap.meta) {
    e.bytes(key);
    e.bytes(value);
  }
  e.u32(static_cast<uint32_t>(snap.partitions.size()));
  for (const auto& p : snap.partitions) {
    e.u32(p.id);
    e.i64(p.next_offset);
    e.i64(p.running_max_ts);
    e.bytes({reinterpret_cast<const char*>(p.state.data()), p.state.size()});
  }
  return std::move(e.buffer());
}

Result<Store::BootstrapSnapshot> decode_snapshot(std::span<const std::byte> bytes) {
  format::Decoder d(bytes);
  Store::BootstrapSnapshot snap;
  if (d.u32() != kSnapshotMagic) return Status::corruption("snapshot magic");
  snap.begin = d.i64();
  snap.end = d.i64();
  if (!d.ok() || snap.begin < 0 || snap.end < snap.begin) return Status::corruption("snapshot positions");
  const uint32_t keys = d.count(8);  // a key and a value length at least
  snap.meta.reserve(keys);
  for (uint32_t i = 0; i < keys && d.ok(); ++i) {
    std::string key(d.bytes());
    std::string value(d.bytes());
    snap.meta.emplace_back(std::move(key), std::move(value));
  }
  const uint32_t parts = d.count(24);  // id, next offset, running max, state length at least
  if (!d.ok()) return Status::corruption("snapshot meta keys");
  snap.partitions.reserve(parts);
  for (uint32_t i = 0; i < parts && d.ok(); ++i) {
    Store::BootstrapSnapshot::PartitionStart p;
    p.id = d.u32();
    p.next_offset = d.i64();
    p.running_max_ts = d.i64();
    const std::string_view state = d.bytes();
    if (!d.ok() || p.next_offset < 0 || p.running_max_ts < -1 || (!snap.partitions.empty() && p.id <= snap.partitions.back().id))
      return Status::corruption("snapshot partition");
    const auto* b = reinterpret_cast<const std::byte*>(state.data());
    p.state.assign(b, b + state.size());
    ProducerStateTable producers;
    TxnIndex txns;
    if (!decode_partition_state(p.state, producers, txns)) return Status::corruption("snapshot partition state");
    snap.partitions.push_back(std::move(p));
  }
  if (!d.ok() || d.remaining() != 0) return Status::corruption("snapshot body");
  return snap;
}

}  // namespace rokka::storage::replication
