#include "storage/partition_records.h"

#include <algorithm>

#include "storage/format.h"

namespace rokka::storage::partition_records {
namespace {

std::string partition_key(PartitionId id) {
  const std::string digits = std::to_string(id);
  return std::string(kPartitionPrefix) + std::string(10 - digits.size(), '0') + digits;
}

std::optional<uint32_t> parse_u32(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(v);
}

std::string epoch_key(int32_t epoch) {
  const std::string digits = std::to_string(epoch);
  return std::string(kEpochPrefix) + std::string(10 - std::min<size_t>(digits.size(), 10), '0') + digits;
}

}  // namespace

MetaStore::Mutation put_partition(PartitionId id, int64_t floor) {
  std::string value(8, '\0');
  format::put_le64(reinterpret_cast<std::byte*>(value.data()), static_cast<uint64_t>(floor));
  return {partition_key(id), std::move(value), false};
}

MetaStore::Mutation erase_partition(PartitionId id) { return {partition_key(id), "", true}; }

MetaStore::Mutation put_next_id(PartitionId next) { return {std::string(kNextIdKey), std::to_string(next), false}; }

std::optional<PartitionRecord> parse_partition(std::string_view key, std::string_view value) {
  if (!key.starts_with(kPartitionPrefix) || value.size() != 8) return std::nullopt;
  const auto id = parse_u32(key.substr(kPartitionPrefix.size()));
  if (!id) return std::nullopt;
  return PartitionRecord{*id, static_cast<int64_t>(format::get_le64(reinterpret_cast<const std::byte*>(value.data())))};
}

std::optional<PartitionId> parse_next_id(std::string_view value) { return parse_u32(value); }

MetaStore::Mutation put_epoch(int32_t epoch, int64_t start) {
  std::string value(8, '\0');
  format::put_le64(reinterpret_cast<std::byte*>(value.data()), static_cast<uint64_t>(start));
  return {epoch_key(epoch), std::move(value), false};
}

MetaStore::Mutation erase_epoch(int32_t epoch) { return {epoch_key(epoch), "", true}; }

std::optional<EpochStart> parse_epoch(std::string_view key, std::string_view value) {
  if (!key.starts_with(kEpochPrefix) || value.size() != 8) return std::nullopt;
  const auto epoch = parse_u32(key.substr(kEpochPrefix.size()));
  if (!epoch || *epoch > static_cast<uint32_t>(INT32_MAX)) return std::nullopt;
  return EpochStart{static_cast<int32_t>(*epoch),
                    static_cast<int64_t>(format::get_le64(reinterpret_cast<const std::byte*>(value.data())))};
}

MetaStore::Mutation put_state_at(int64_t position) {
  std::string value(8, '\0');
  format::put_le64(reinterpret_cast<std::byte*>(value.data()), static_cast<uint64_t>(position));
  return {std::string(kStateAtKey), std::move(value), false};
}

std::optional<int64_t> parse_state_at(std::string_view value) {
  if (value.size() != 8) return std::nullopt;
  const auto v = static_cast<int64_t>(format::get_le64(reinterpret_cast<const std::byte*>(value.data())));
  return v < 0 ? std::nullopt : std::optional<int64_t>(v);
}

}  // namespace rokka::storage::partition_records
