#include "storage/checkpoint.h"

namespace rokka::storage {

CheckpointWriter::CheckpointWriter(LogPosition log_end, uint32_t next_chunk, const std::vector<uint32_t>& free_chunks,
                                   const std::vector<std::pair<int64_t, int64_t>>& segment_ages, uint32_t chunk_units,
                                   uint32_t first_chunk_units, const std::vector<uint32_t>& free_small_chunks,
                                   int64_t confirmed) {
  body_.i64(log_end.value);
  body_.u32(next_chunk);
  body_.u32(static_cast<uint32_t>(free_chunks.size()));
  for (uint32_t c : free_chunks) body_.u32(c);
  body_.u32(chunk_units);
  body_.u32(first_chunk_units);
  body_.u32(static_cast<uint32_t>(free_small_chunks.size()));
  for (uint32_t c : free_small_chunks) body_.u32(c);
  body_.u32(static_cast<uint32_t>(segment_ages.size()));
  for (const auto& [start, ms] : segment_ages) {
    body_.i64(start);
    body_.i64(ms);
  }
  body_.i64(confirmed);
  count_at_ = body_.buffer().size();
  body_.u32(0);  // partition count, patched by finish()
}

void CheckpointWriter::add_partition(PartitionId id, const ConsumeQueue::State& q, const ProducerStateTable* producers,
                                     const TxnIndex* txns, int64_t high_watermark) {
  body_.u32(id);
  body_.i64(q.floor);
  body_.i64(q.next_offset);
  body_.i64(q.first_unit);
  body_.i64(q.unit_end);
  body_.i64(q.running_max_ts);
  body_.i64(q.first_base);
  body_.i64(q.dir.first_chunk_ordinal);
  body_.u8(q.dir.small_first ? 1 : 0);
  body_.u32(static_cast<uint32_t>(q.dir.chunks.size()));
  for (uint32_t c : q.dir.chunks) body_.u32(c);
  body_.u8(q.digest ? 1 : 0);
  body_.u64(q.digest.value_or(0));
  body_.i64(high_watermark);
  if (producers) {
    producers->encode(body_);
  } else {
    body_.u32(0);
  }
  if (txns) {
    txns->encode(body_);
  } else {
    body_.u32(0);  // open transactions
    body_.u32(0);  // aborted transactions
  }
  ++partitions_;
}

std::vector<std::byte> CheckpointWriter::finish() {
  auto& body = body_.buffer();
  format::put_le32(body.data() + count_at_, partitions_);
  std::vector<std::byte> out(format::kCheckpointHeaderSize);
  format::put_le32(out.data(), format::kCheckpointMagic);
  format::put_le32(out.data() + 4, format::kCheckpointVersion);
  format::put_le64(out.data() + 8, body.size());
  format::put_le32(out.data() + 16, crc32c(body));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Result<Checkpoint> decode_checkpoint(std::span<const std::byte> file) {
  if (file.size() < format::kCheckpointHeaderSize) return Status::corruption("checkpoint too short");
  const uint32_t version = format::get_le32(file.data() + 4);
  if (format::get_le32(file.data()) != format::kCheckpointMagic || version < 1 ||
      version > format::kCheckpointVersion)
    return Status::corruption("checkpoint magic/version");
  const uint64_t len = format::get_le64(file.data() + 8);
  const auto body = file.subspan(format::kCheckpointHeaderSize);
  if (len != body.size() || crc32c(body) != format::get_le32(file.data() + 16))
    return Status::corruption("checkpoint length/crc");
  format::Decoder d(body);
  Checkpoint cp;
  cp.log_end.value = d.i64();
  cp.next_chunk = d.u32();
  for (uint32_t n = d.count(4); n > 0 && d.ok(); --n) cp.free_chunks.push_back(d.u32());
  if (version >= 4) {
    cp.chunk_units = d.u32();
    cp.first_chunk_units = d.u32();
    for (uint32_t n = d.count(4); n > 0 && d.ok(); --n) cp.free_small_chunks.push_back(d.u32());
  }
  for (uint32_t n = d.count(16); n > 0 && d.ok(); --n) {
    const int64_t start = d.i64();
    cp.segment_ages.emplace_back(start, d.i64());
  }
  if (version >= 5) {
    cp.confirmed = d.i64();
    if (cp.confirmed < -1) return Status::corruption("checkpoint confirmed position");
  }
  for (uint32_t n = d.count(64); n > 0 && d.ok(); --n) {
    PartitionCheckpoint p;
    p.id = d.u32();
    auto& q = p.queue;
    q.floor = d.i64();
    q.next_offset = d.i64();
    q.first_unit = d.i64();
    q.unit_end = d.i64();
    q.running_max_ts = d.i64();
    q.first_base = d.i64();
    q.dir.first_chunk_ordinal = d.i64();
    q.dir.small_first = false;  // versions 1-3: the uniform layout
    if (version >= 4) {
      const uint8_t layout = d.u8();
      if (layout > 1) return Status::corruption("checkpoint chunk layout");
      q.dir.small_first = layout == 1;
    }
    for (uint32_t c = d.count(4); c > 0 && d.ok(); --c) q.dir.chunks.push_back(d.u32());
    q.digest = std::nullopt;
    if (version >= 3) {
      const bool known = d.u8() == 1;
      const uint64_t digest = d.u64();
      if (known) q.digest = digest;
    }
    if (version >= 5) {
      p.high_watermark = d.i64();
      if (p.high_watermark < -1) return Status::corruption("checkpoint high watermark");
    }
    if (!p.producers.decode(d)) return Status::corruption("checkpoint producer state");
    if (version >= 2) {
      auto txns = std::make_unique<TxnIndex>();
      if (!txns->decode(d)) return Status::corruption("checkpoint transaction state");
      if (!txns->empty()) p.txns = std::move(txns);
    }
    if (q.first_unit > q.unit_end || q.first_unit < 0) return Status::corruption("checkpoint unit range");
    cp.partitions.push_back(std::move(p));
  }
  if (!d.ok() || d.remaining() != 0) return Status::corruption("checkpoint body");
  return cp;
}

}  // namespace rokka::storage
