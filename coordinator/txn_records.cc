#include "coordinator/txn_records.h"

#include "coordinator/byte_codec.h"
#include "coordinator/log.h"
#include "coordinator/meta_records.h"

namespace rokka::coordinator {

namespace {

constexpr uint8_t kRecordVersion = 0;
constexpr size_t kMinPartitionBytes = 4 + 4;  // empty topic name, partition
constexpr size_t kMinGroupBytes = 4 + 4;      // empty group id, offset count
constexpr size_t kMinOffsetBytes = 4 + 4 + 4;  // empty topic, partition, empty value

bool stored_state(uint8_t s) { return s <= static_cast<uint8_t>(TxnState::kCompleteAbort); }

void encode_tp(ByteWriter& out, const TopicPartition& tp) {
  out.str(tp.topic);
  out.i32(tp.partition);
}

TopicPartition decode_tp(ByteReader& in) {
  TopicPartition tp;
  tp.topic = std::string(in.str());
  tp.partition = in.i32();
  return tp;
}

}  // namespace

std::string encode_txn_key(std::string_view transactional_id) {
  return std::string(kTxnKeyPrefix) + std::string(transactional_id);
}

std::optional<std::string> decode_txn_key(std::string_view key) {
  if (!key.starts_with(kTxnKeyPrefix) || key.size() == kTxnKeyPrefix.size()) return std::nullopt;
  return std::string(key.substr(kTxnKeyPrefix.size()));
}

std::string encode_txn_value(const TxnMetadata& txn) {
  ByteWriter out;
  out.u8(kRecordVersion);
  out.i64(txn.producer_id);
  out.i64(txn.last_producer_id);
  out.i16(txn.producer_epoch);
  out.i16(txn.last_producer_epoch);
  out.i32(txn.timeout_ms);
  out.u8(static_cast<uint8_t>(txn.state));
  out.i64(txn.start_ms);
  out.i64(txn.update_ms);
  out.u32(static_cast<uint32_t>(txn.partitions.size()));
  for (const TopicPartition& tp : txn.partitions) encode_tp(out, tp);
  out.u32(static_cast<uint32_t>(txn.groups.size()));
  for (const auto& [group, offsets] : txn.groups) {
    out.str(group);
    out.u32(static_cast<uint32_t>(offsets.size()));
    for (const auto& [tp, offset] : offsets) {
      encode_tp(out, tp);
      out.str(encode_offset_value(offset));
    }
  }
  return std::move(out).take();
}

std::optional<TxnMetadata> decode_txn_value(std::string_view transactional_id, std::string_view value) {
  ByteReader in(value);
  if (in.u8() != kRecordVersion) return std::nullopt;
  TxnMetadata t;
  t.transactional_id = std::string(transactional_id);
  t.producer_id = in.i64();
  t.last_producer_id = in.i64();
  t.producer_epoch = in.i16();
  t.last_producer_epoch = in.i16();
  t.timeout_ms = in.i32();
  const uint8_t state = in.u8();
  if (!stored_state(state)) return std::nullopt;
  t.state = static_cast<TxnState>(state);
  t.start_ms = in.i64();
  t.update_ms = in.i64();
  auto partitions = in.count(kMinPartitionBytes);
  if (!partitions) return std::nullopt;
  for (uint32_t i = 0; i < *partitions && in.ok(); ++i) t.partitions.insert(decode_tp(in));
  auto groups = in.count(kMinGroupBytes);
  if (!groups) return std::nullopt;
  for (uint32_t g = 0; g < *groups && in.ok(); ++g) {
    StagedOffsets& staged = t.groups[std::string(in.str())];
    auto offsets = in.count(kMinOffsetBytes);
    if (!offsets) return std::nullopt;
    for (uint32_t i = 0; i < *offsets && in.ok(); ++i) {
      TopicPartition tp = decode_tp(in);
      auto offset = decode_offset_value(in.str());
      if (!offset) return std::nullopt;
      staged[std::move(tp)] = std::move(*offset);
    }
  }
  if (!in.at_end()) return std::nullopt;
  return t;
}

LoadedTxns load_transactions(const storage::MetaStore& meta) {
  LoadedTxns loaded;
  for (const auto& [key, value] : meta.scan(kTxnKeyPrefix)) {
    auto id = decode_txn_key(key);
    auto txn = id ? decode_txn_value(*id, value) : std::nullopt;
    if (!txn) {
      ++loaded.skipped_records;
      log().warn("skipping undecodable transaction record: key_bytes={} value_bytes={}", key.size(), value.size());
      continue;
    }
    loaded.txns.push_back(std::move(*txn));
  }
  return loaded;
}

}  // namespace rokka::coordinator
